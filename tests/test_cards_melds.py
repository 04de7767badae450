"""Card notation (docs/rules.md, Notation) and what makes a meld: sets, runs written low to
high with wilds in their places, aces low or high but never around the corner, 13 cards at most, the
naturals minimum; then lay-off ends, joker-swap options and borrow places (docs/rules.md, A
hand, step by step)."""

from __future__ import annotations

from typing import Any

import pytest

from liverpool.cards import (
    JOKER,
    CardError,
    card_str,
    parse_card,
    parse_cards,
    sorted_cards,
)
from liverpool.melds import (
    RUN,
    SET,
    Meld,
    borrow_places,
    lay_off,
    layoff_ends,
    meld_readings,
    swap_options,
    without,
)
from liverpool.rules import RuleSet

STANDARD = RuleSet.preset("standard")
CLASSIC = RuleSet.preset("classic")  # naturals silent: they must outnumber the wilds
HOUSE = RuleSet.preset("house")  # 2s wild, runs of 3+


def cs(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def text(cards: Any) -> str:
    return " ".join(card_str(c) for c in cards)


# ---- notation --------------------------------------------------------------------------------

def test_canonical_output() -> None:
    names = [card_str(c) for c in range(52)]
    assert " ".join(names[:13]) == "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    assert {n[-1] for n in names} == set("SHDC")
    assert card_str(JOKER) == "JK"
    assert [card_str(parse_card(t)) for t in ("10H", "AS", "QD", "JK")] == ["10H", "AS", "QD",
                                                                          "JK"]


def test_every_card_reads_back() -> None:
    for c in [*range(52), JOKER]:
        assert parse_card(card_str(c)) == c


@pytest.mark.parametrize(("written", "canonical"), [
    ("TH", "10H"), ("th", "10H"), ("10h", "10H"), ("10♥", "10H"), ("T♥", "10H"),
    ("as", "AS"), ("A♠", "AS"), ("qd", "QD"), ("Q♦", "QD"), ("7♣", "7C"), ("k♣", "KC"),
    ("jk", "JK"), ("Jk", "JK"), (" 9S ", "9S"),
])
def test_input_forms(written: str, canonical: str) -> None:
    assert card_str(parse_card(written)) == canonical


@pytest.mark.parametrize("bad", [
    "", " ", "H", "10", "1H", "11H", "0S", "1S", "ZS", "KX", "K", "JJ", "10HH", "AHS", "S7",
    "7 H", "♥10", "joke",
])
def test_bad_text_is_a_card_error(bad: str) -> None:
    with pytest.raises(CardError):
        parse_card(bad)


def test_card_error_is_a_value_error_and_not_text_is_refused() -> None:
    assert issubclass(CardError, ValueError)
    with pytest.raises(CardError):
        parse_card(7)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        parse_cards("7H 8H XX")


def test_parse_several_and_decks_are_interchangeable() -> None:
    assert parse_cards("7H 8H JK") == parse_cards(["7h", "8♥", "jk"])
    assert parse_card("7H") == parse_card("7h")  # any 7H names any deck's 7H


def test_output_order_suit_then_rank_wilds_last() -> None:
    assert text(sorted_cards(cs("KC JK 2S AH 10D AS QH"))) == "AS 2S AH QH 10D KC JK"
    # with 2s wild the 2s go with the jokers, after every natural
    out = [card_str(c) for c in sorted_cards(cs("KC JK 2S AH 10D AS"), True)]
    assert out[:4] == ["AS", "AH", "10D", "KC"] and sorted(out[4:]) == ["2S", "JK"]


# ---- meld validity ---------------------------------------------------------------------------

def kinds(cards: str, rules: RuleSet = STANDARD) -> set[str]:
    """The kinds of meld the cards make when first laid down (empty: not a meld)."""
    return {m.kind for m in meld_readings(cs(cards), 0, rules)}


@pytest.mark.parametrize(("cards", "ok"), [
    ("7H 7S 7D", True), ("7H 7H 7S", True),  # suits may repeat
    ("7C 7H 7S 7D 7C 7H", True),
    ("7H 7S", False), ("7H 7S 8D", False),
    ("7H 7S JK", True), ("JK 7H 7S", True),  # any order
    ("7H JK JK", False),  # standard: 2 naturals
    ("JK JK JK", False),
])
def test_sets(cards: str, ok: bool) -> None:
    assert (kinds(cards) == {SET}) is ok


@pytest.mark.parametrize(("cards", "ok"), [
    ("4C 5C 6C 7C", True),
    ("4C 5C 6C 7C 8C 9C 10C", True),
    ("7C 6C 5C 4C", False),  # written low to high
    ("4C 6C 5C 7C", False),
    ("4C 5C 6C", False),  # runs are 4+ outside house
    ("4C 5C 6H 7C", False),  # one suit
    ("4C 5C 7C 8C", False),  # a gap with no wild
    ("4C 5C JK 7C", True),
    ("JK 4C 5C 6C", True),
])
def test_runs(cards: str, ok: bool) -> None:
    assert (kinds(cards) == {RUN}) is ok


@pytest.mark.parametrize(("cards", "lo", "stands"), [
    ("7H 8H JK 10H", 7, "7H 8H 9H 10H"),  # docs/rules.md: the joker is 9H
    ("4C 5C 6C JK", 4, "4C 5C 6C 7C"),
    ("JK 4C 5C 6C", 3, "3C 4C 5C 6C"),
    ("JK JK 9D 10D JD", 7, "7D 8D 9D 10D JD"),
    ("10S JS QS JK", 10, "10S JS QS KS"),
    ("JS QS KS JK", 11, "JS QS KS AS"),  # the joker is a high ace
    ("JK 2S 3S 4S", 1, "AS 2S 3S 4S"),  # the joker is a low ace
])
def test_a_wilds_place_fixes_its_card(cards: str, lo: int, stands: str) -> None:
    (m,) = meld_readings(cs(cards), 0, STANDARD)
    assert m.kind == RUN and m.lo == lo
    assert text(m.stands_for(i) for i in range(len(m.cards))) == stands


@pytest.mark.parametrize(("cards", "ok"), [
    ("AH 2H 3H 4H", True),  # ace low
    ("JH QH KH AH", True),  # ace high
    ("QH KH AH 2H", False),  # never around the corner
    ("KH AH 2H 3H", False),
    ("KH AH JK 3H", False),
    ("JK AH 2H 3H", False),  # nothing below a low ace
    ("QH KH AH JK", False),  # nothing above a high ace
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", True),  # 13 cards
    ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", True),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", False),  # one ace at most
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK", False),  # 14 cards
    ("JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK", False),
])
def test_aces_and_the_corner(cards: str, ok: bool) -> None:
    assert (kinds(cards) == {RUN}) is ok


@pytest.mark.parametrize(("cards", "rules", "ok"), [
    ("7H 7S JK JK", STANDARD, True),  # standard: 2 naturals in a set, whatever its size
    ("7H 7S JK JK", CLASSIC, False),  # silent: 2 naturals do not outnumber 2 wilds
    ("7H 7S 7D JK JK", CLASSIC, True),
    ("4C JK JK 7C", STANDARD, False),  # standard: 3 naturals in a run
    ("4C 5C JK JK 8C", STANDARD, True),
    ("4C 5C JK JK", CLASSIC, False),
    ("4C 5C 6C JK JK", CLASSIC, True),
    ("JK JK 6C 7C 8C JK JK", CLASSIC, False),  # 3 naturals, 4 wilds
])
def test_naturals_minimum(cards: str, rules: RuleSet, ok: bool) -> None:
    assert bool(kinds(cards, rules)) is ok


def test_a_meld_on_the_table_may_hold_more_wilds_than_a_new_one() -> None:
    # the naturals minimum binds the first laying down only
    assert meld_readings(cs("7H JK JK"), 0, CLASSIC) == []
    assert [m.kind for m in meld_readings(cs("7H JK JK"), 0, CLASSIC, first_down=False)] == [SET]


@pytest.mark.parametrize(("cards", "kind"), [
    ("7H 7S 2C", SET),
    ("2H 2S 2D", SET),  # a set of 2s: the 2s stand for themselves
    ("AH 2H 3H", RUN),  # house runs are 3+; 2H in its own place is natural
    ("5C 2H 7C", RUN),  # the 2 is wild: it stands for 6C
    ("2C 3C 4C 5C", RUN),
])
def test_deuces_wild_melds(cards: str, kind: str) -> None:
    assert kinds(cards, HOUSE) == {kind}


def test_deuce_in_its_own_place_counts_as_natural() -> None:
    # standard naturals with 2s wild: AH 2H 3H JK has 3 naturals (2H stands for itself)
    rules = RuleSet.preset("standard", {"deuces_wild": True})
    assert kinds("AH 2H 3H JK", rules) == {RUN}
    assert kinds("AH 2S 3H JK", rules) == set()  # 2S stands for 2H: only 2 naturals


# ---- lay-off ends ----------------------------------------------------------------------------

def meld(cards: str, rules: RuleSet = STANDARD) -> Meld:
    (m,) = meld_readings(cs(cards), 0, rules, first_down=False)
    return m


def ends(cards: str, card: str, rules: RuleSet = STANDARD) -> tuple[str | None, ...]:
    return layoff_ends(meld(cards, rules), parse_card(card), rules)


@pytest.mark.parametrize(("cards", "card", "want"), [
    ("7H 7S 7D", "7C", (None,)), ("7H 7S 7D", "JK", (None,)), ("7H 7S 7D", "8C", ()),
    ("4C 5C 6C 7C", "3C", ("low",)), ("4C 5C 6C 7C", "8C", ("high",)),
    ("4C 5C 6C 7C", "JK", ("low", "high")),  # either end: the lay-off must name one
    ("4C 5C 6C 7C", "9C", ()), ("4C 5C 6C 7C", "3H", ()),
    ("AH 2H 3H 4H", "JK", ("high",)), ("AH 2H 3H 4H", "KH", ()),
    ("JH QH KH AH", "JK", ("low",)), ("JH QH KH AH", "2H", ()),
    ("10H JH QH KH", "AH", ("high",)),
    ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AH", ("low", "high")),  # an ace at either end
    ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "JK", ("low", "high")),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AH", ()),  # 13 cards: full
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "JK", ()),
    ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "AH", ()),
])
def test_layoff_ends(cards: str, card: str, want: tuple[str | None, ...]) -> None:
    assert ends(cards, card) == want


def test_lay_off_places_the_card() -> None:
    run = meld("4C 5C 6C 7C")
    low = lay_off(run, JOKER, "low", STANDARD)
    assert text(low.cards) == "JK 4C 5C 6C 7C" and low.lo == 3
    high = lay_off(run, JOKER, "high", STANDARD)
    assert text(high.cards) == "4C 5C 6C 7C JK" and high.lo == 4
    aces = lay_off(meld("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"), parse_card("AH"), "high",
                   STANDARD)
    assert aces.lo == 2 and aces.hi == 14
    assert layoff_ends(aces, parse_card("AH"), STANDARD) == ()  # one ace per run


# ---- joker swaps -----------------------------------------------------------------------------

def swaps(cards: str, card: str, rules: RuleSet) -> list[tuple[int, str]]:
    return [(p, card_str(w)) for p, w in swap_options(meld(cards, rules), parse_card(card),
                                                      rules)]


RUNS_AND_SETS = RuleSet.preset("standard", {"joker_swap": "runs_and_sets"})
NO_SWAP = RuleSet.preset("standard", {"joker_swap": "none"})


@pytest.mark.parametrize(("cards", "card", "rules", "want"), [
    ("4C 5C JK 7C", "6C", STANDARD, [(2, "JK")]),  # the very card the joker stands for
    ("4C 5C JK 7C", "6H", STANDARD, []),
    ("4C 5C JK 7C", "5C", STANDARD, []),
    ("4C 5C JK 7C", "JK", STANDARD, []),
    ("4C 5C JK 7C", "6C", NO_SWAP, []),
    ("JK 2H 3H 4H", "AH", STANDARD, [(0, "JK")]),  # low ace
    ("JH QH KH JK", "AH", STANDARD, [(3, "JK")]),  # high ace
    ("7H 7S JK", "7D", STANDARD, []),  # standard swaps from runs only
    ("7H 7S JK", "7D", RUNS_AND_SETS, [(2, "JK")]),  # any card of the set's rank
    ("7H 7S JK", "7H", RUNS_AND_SETS, [(2, "JK")]),
    ("7H 7S JK", "8D", RUNS_AND_SETS, []),
])
def test_swap_options(cards: str, card: str, rules: RuleSet, want: list[tuple[int, str]]
                      ) -> None:
    assert swaps(cards, card, rules) == want


def test_swap_options_name_each_kind_of_wild() -> None:
    # house: a set holding a 2 and a joker offers both; the swap must name the wild
    got = swaps("7H 7S 2C JK", "7D", HOUSE)
    assert sorted(w for _, w in got) == ["2C", "JK"]
    # a 2 standing for itself in a run is natural: nothing to swap
    assert swaps("AH 2H 3H 4H", "2H", HOUSE) == []
    assert swaps("AH 2S 3H 4H", "2H", HOUSE) == [(1, "2S")]


# ---- borrow places (house) -------------------------------------------------------------------

def places(cards: str, card: str) -> list[int]:
    return borrow_places(meld(cards, HOUSE), parse_card(card), HOUSE)


@pytest.mark.parametrize(("cards", "card", "want"), [
    ("7H 7S 7D 7C", "7C", [3]),
    ("7H 7S 7D", "7D", []),  # would leave 2 cards
    ("7H 7S 7D 7C", "8C", []),
    ("4C 5C 6C 7C", "4C", [0]),  # either end of a run
    ("4C 5C 6C 7C", "7C", [3]),
    ("4C 5C 6C 7C", "5C", []),  # not from the middle
    ("4C 5C 6C", "4C", []),  # would leave a run of 2
    ("4C 5C 6C JK", "JK", []),  # only a natural card
    ("4C 5C 6C JK", "4C", [0]),
])
def test_borrow_places(cards: str, card: str, want: list[int]) -> None:
    assert places(cards, card) == want


def test_without_keeps_a_valid_meld() -> None:
    run = meld("4C 5C 6C 7C", HOUSE)
    rest = without(run, 0)
    assert text(rest.cards) == "5C 6C 7C" and rest.lo == 5
    rest = without(run, 3)
    assert text(rest.cards) == "4C 5C 6C" and rest.lo == 4
    s = without(meld("7H 7S 7D 7C", HOUSE), 3)
    assert s.kind == SET and sorted(text(s.cards).split()) == ["7D", "7H", "7S"]
