"""Answers fairly, but at decision N of a game discards a card it does not hold."""

from botlib import fair, misbehave_at, run

AT = misbehave_at()
CARDS = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                         "J", "Q", "K")]


def answer(message):
    if message["n"] == AT:
        hand = set(message["view"]["hand"])
        card = next(c for c in CARDS if c not in hand)
        return {"type": "action", "id": message["id"],
                "action": {"type": "discard", "player": message["view"]["seat"], "card": card}}
    return fair(message)


run("illegal", answer)
