"""The page's one card notation, for tests that compare what the page shows with the server's
text: "10H" -> "10♥", card tokens only (a rank and a suit letter, or JK, as a whole word); and
the text of an event's entry as the page draws it (its cards and melds from the event's fields)."""

from __future__ import annotations

import re
from typing import Any

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
CARD_TOKEN = re.compile(r"\b(?:(10|[2-9AJQK])([SHDC])|JK)\b")


def symbolize(text: str) -> str:
    """The server's text with its card tokens as the page writes them."""
    return CARD_TOKEN.sub(lambda m: "JK" if m[0] == "JK" else m[1] + SUIT_SYMBOL[m[2]], text)


RANK_WORDS = {"A": "aces", "J": "jacks", "Q": "queens", "K": "kings"}
SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def kind_text(meld: dict[str, Any]) -> str:
    """A meld's kind as the page names it from its JSON: "run of hearts", "set of 7s"."""
    if meld["kind"] == "run":
        return "run of " + SUIT_NAME[meld["suit"]] if meld.get("suit") in SUIT_NAME else "run"
    stands = meld.get("stands_for") or [None] * len(meld["cards"])
    for card, means in zip(meld["cards"], stands, strict=True):
        if means is None and card != "JK":
            rank = card[:-1]
            break
        if means is not None and means[-1] not in SUIT_NAME:
            rank = means
            break
    else:
        return "set"
    return "set of " + RANK_WORDS.get(rank, rank + "s")


def event_melds(ev: dict[str, Any]) -> list[dict[str, Any]]:
    """The melds an event's entry draws (static/events.js eventMelds)."""
    if ev["type"] == "went_down":
        return list(ev["melds"])
    if ev["type"] in ("laid_off", "swapped", "called"):
        return [ev["result"]] if ev.get("result") else []
    if ev["type"] == "borrowed":
        return [ev["new_meld"]]
    return []


def entry_text(ev: dict[str, Any]) -> str:
    """The text of an event's entry on the page: the server's words with the cards in the
    page's notation; a meld the words list after its kind ("run 5H 6H 7H") named by the kind
    of its JSON ("run of hearts 5♥ 6♥ 7♥"); a meld the words do not list drawn after them."""
    text = symbolize(ev["text"])
    for m in event_melds(ev):
        listing = symbolize(" ".join(m["cards"]))
        if f"{m['kind']} {listing}" in text:
            text = text.replace(f"{m['kind']} {listing}", f"{kind_text(m)} {listing}", 1)
        elif listing not in text:
            text += " " + listing
    return text
