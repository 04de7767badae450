"""The page's one card notation, for tests that compare what the page shows with the server's
text: "10H" -> "10♥", card tokens only (a rank and a suit letter, or JK, as a whole word)."""

from __future__ import annotations

import re

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
CARD_TOKEN = re.compile(r"\b(?:(10|[2-9AJQK])([SHDC])|JK)\b")


def symbolize(text: str) -> str:
    """The server's text with its card tokens as the page writes them."""
    return CARD_TOKEN.sub(lambda m: "JK" if m[0] == "JK" else m[1] + SUIT_SYMBOL[m[2]], text)


RANK_WORDS = {"A": "aces", "J": "jacks", "Q": "queens", "K": "kings"}
SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
TOKEN = r"(?:10|[2-9AJQK])[SHDC]|JK"
CARDS = rf"((?:(?:{TOKEN}) )*(?:{TOKEN}))(?=$|[ .,;:)|])"


def kind_from_cards(cards: list[str], wilds: set[str]) -> str | None:
    """A meld's kind read from its natural cards: "set of 7s" or "run of hearts"."""
    naturals = [(c[:-1], c[-1]) for c in cards if c not in wilds]
    if len(naturals) < 2:
        return None
    if len({r for r, _ in naturals}) == 1:
        rank = naturals[0][0]
        return "set of " + RANK_WORDS.get(rank, rank + "s")
    if len({s for _, s in naturals}) == 1:
        return "run of " + SUIT_NAME[naturals[0][1]]
    return None


def name_melds(text: str, players: list[str], wilds: set[str]) -> str:
    """The server's line with the melds it names by their cards named by owner and kind, as the
    page writes them ("on Ann's 5H 6H 7H" -> "on Ann's run of hearts")."""
    def owned(m: re.Match[str]) -> str:
        who, cards = m[1], m[2]
        kind = kind_from_cards(cards.split(" "), wilds) \
            if any(p and who.endswith(p) for p in players) else None
        return f"{who}'s {kind}" if kind else m[0]

    def wild(m: re.Match[str]) -> str:
        kind = kind_from_cards(m[1].split(" "), wilds)
        return f"the wild in the {kind}" if kind else m[0]

    out = re.sub(rf"(\S[^']*?)'s {CARDS}", owned, text)
    return re.sub(rf"the wild in {CARDS}", wild, out, count=1)
