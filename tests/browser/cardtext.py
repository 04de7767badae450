"""The page's one card notation, for tests that compare what the page shows with the server's
text: "10H" -> "10♥", card tokens only (a rank and a suit letter, or JK, as a whole word)."""

from __future__ import annotations

import re

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
CARD_TOKEN = re.compile(r"\b(?:(10|[2-9AJQK])([SHDC])|JK)\b")


def symbolize(text: str) -> str:
    """The server's text with its card tokens as the page writes them."""
    return CARD_TOKEN.sub(lambda m: "JK" if m[0] == "JK" else m[1] + SUIT_SYMBOL[m[2]], text)
