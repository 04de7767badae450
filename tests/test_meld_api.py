"""The one meld API (liverpool.melds, over liverpool.cards): the one wild test.

Domain words: *wild* (a joker, or a 2 where 2s are wild), *natural*.
"""

from __future__ import annotations

from liverpool.cards import JOKER, Card, is_wild, parse_cards, sorted_cards, wild_cards


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# ---- one wild test ---------------------------------------------------------------------------

def test_is_wild_and_wild_cards_agree() -> None:
    assert [c for c in range(53) if is_wild(c, False)] == [JOKER]
    assert [c for c in range(53) if is_wild(c, True)] == sorted(cs("2S 2H 2D 2C JK"))
    assert wild_cards(False) == {JOKER}
    assert wild_cards(True) == set(cs("2S 2H 2D 2C JK"))
    # outputs list sets with the wilds last, a set of 2s by suit
    assert sorted_cards(cs("JK 2C 7S 2H 7D"), True) == list(cs("7S 7D 2H 2C JK"))
    assert sorted_cards(cs("JK 2C 7S 2H 7D"), False) == list(cs("7S 2H 7D 2C JK"))
