"""The one meld API (liverpool.melds, over liverpool.cards): the one wild test,
``arrangements`` of picked cards, what each place of a meld stands for, and a meld's JSON both
ways.

Domain words: *wild*, *arrangement* (picked cards in notation order as a valid new meld, wilds in
the places they stand for), *stands for* (a run's place: a card; a set: its rank), *meld JSON*
(what views, replays and records carry: owner, kind, cards, a run's suit and low, stands_for).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from liverpool.cards import (
    JOKER,
    Card,
    is_wild,
    make_card,
    parse_cards,
    sorted_cards,
    wild_cards,
)
from liverpool.engine import Game, SeatView
from liverpool.melds import RUN, SET, Meld, arrangements, distinct_orders, meld_readings
from liverpool.randomplay import random_action
from liverpool.rules import RuleSet
from liverpool.soak import RandomRules

HOUSE = RuleSet.preset("house")  # 2s wild, runs of 3+
STANDARD = RuleSet.preset("standard")


def cs(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


@st.composite
def card_groups(draw: st.DrawFn, max_size: int = 7) -> list[Card]:
    """2 to ``max_size`` cards, in any order, shaped like a run (one suit in sequence) or a set
    (one rank), each card kept, or swapped for a wild, or now and then for any card at all: so
    that many make a meld, some several ways, and some none."""
    n = draw(st.integers(2, max_size))
    if draw(st.booleans()):
        suit = draw(st.integers(0, 3))
        lo = draw(st.integers(1, 15 - n))
        shape = [make_card(lo + i, suit) for i in range(n)]
    else:
        rank = draw(st.integers(1, 13))
        shape = [make_card(rank, draw(st.integers(0, 3))) for _ in range(n)]
    wild = st.sampled_from([JOKER, *(make_card(2, s) for s in range(4))])
    cards = []
    for c in shape:
        change = draw(st.integers(0, 9))
        cards.append(c if change < 6 else draw(wild) if change < 9 else draw(st.integers(0, 52)))
    return draw(st.permutations(cards))


def oracle(cards: list[Card], rules: RuleSet) -> set[tuple[Card, ...]]:
    """Every order of ``cards`` that reads as a valid new run, and the set as outputs list it
    where the cards make a valid new set: found by trying every permutation."""
    out: set[tuple[Card, ...]] = set()
    for p in set(permutations(cards)):
        kinds = {m.kind for m in meld_readings(p, 0, rules)}
        if RUN in kinds:
            out.add(p)
        if SET in kinds:
            out.add(tuple(sorted_cards(cards, rules.deuces_wild)))
    return out


# ---- one wild test ---------------------------------------------------------------------------

def test_is_wild_and_wild_cards_agree() -> None:
    assert [c for c in range(53) if is_wild(c, False)] == [JOKER]
    assert [c for c in range(53) if is_wild(c, True)] == sorted(cs("2S 2H 2D 2C JK"))
    assert wild_cards(False) == {JOKER}
    assert wild_cards(True) == set(cs("2S 2H 2D 2C JK"))
    # outputs list sets with the wilds last, a set of 2s by suit
    assert sorted_cards(cs("JK 2C 7S 2H 7D"), True) == list(cs("7S 7D 2H 2C JK"))
    assert sorted_cards(cs("JK 2C 7S 2H 7D"), False) == list(cs("7S 2H 7D 2C JK"))


# ---- arrangements ----------------------------------------------------------------------------

def engine_orderings(card: Card, combo: tuple[Card, ...], rules: RuleSet
                     ) -> list[tuple[Card, ...]]:
    """The engine's ``_orderings`` as it was before the engine called ``arrangements`` (commit
    733aa0c), verbatim: the behaviour ``arrangements`` keeps (the borrow listing's order)."""
    cards = (card, *combo)
    deuces = rules.deuces_wild
    found: list[tuple[Card, ...]] = []
    as_set = tuple(sorted_cards(cards, deuces))
    if any(m.kind == SET for m in meld_readings(as_set, 0, rules)):
        found.append(as_set)
    n = len(cards)
    if n < rules.min_run:
        return found
    naturals = [c for c in cards if not (c == JOKER or (deuces and c % 13 == 1))]
    wilds = [c for c in cards if c == JOKER or (deuces and c % 13 == 1)]
    if not naturals or len({c // 13 for c in naturals}) > 1:
        return found
    for lo in range(1, 16 - n):
        places: dict[int, Card] = {}
        for c in naturals:
            r = c % 13 + 1
            spot = r - lo if lo <= r <= lo + n - 1 else (14 - lo if r == 1 else -1)
            if not 0 <= spot < n or spot in places:
                break
            places[spot] = c
        else:
            free = [i for i in range(n) if i not in places]
            for order in set(permutations(wilds)):
                run = dict(places)
                run.update(zip(free, order, strict=True))
                m = tuple(run[i] for i in range(n))
                if m not in found and any(x.kind == RUN for x in meld_readings(m, 0, rules)):
                    found.append(m)
    return found


@settings(max_examples=1000, deadline=None)
@given(rr=rule_sets(), cards=card_groups())
def test_arrangements_are_the_engines_orderings(rr: RandomRules, cards: list[Card]) -> None:
    """The same melds in the same order as the engine's borrow listing has always made them
    (its ``_orderings`` of a borrowed card and a combination of hand cards)."""
    rules = rr.rules()
    assert arrangements(cards, rules) == engine_orderings(cards[0], tuple(cards[1:]), rules)


@settings(max_examples=300, deadline=None)
@given(rr=rule_sets(), cards=card_groups(max_size=6))
def test_arrangements_are_every_valid_order_and_only_those(rr: RandomRules,
                                                          cards: list[Card]) -> None:
    rules = rr.rules()
    got = arrangements(cards, rules)
    assert len(got) == len(set(got))
    for m in got:
        assert Counter(m) == Counter(cards)
    if any(not is_wild(c, rules.deuces_wild) for c in cards):
        assert set(got) == oracle(cards, rules)
    else:  # wilds alone: at most the set (a set of 2s), never a run
        assert set(got) <= oracle(cards, rules)
        assert all(SET in {x.kind for x in meld_readings(m, 0, rules)} for m in got)


def test_arrangements_do_not_depend_on_the_order_picked() -> None:
    rng = random.Random(7)
    for text in ("8H 6H 5H 7H", "4C 5C 7C JK", "QS KS AS JK", "2H 4H JK", "7S JK 7D 2C 7C"):
        cards = list(cs(text))
        first = arrangements(cards, HOUSE)
        for _ in range(5):
            rng.shuffle(cards)
            assert sorted(arrangements(cards, HOUSE)) == sorted(first)


def test_arrangements_by_hand() -> None:
    assert arrangements(cs("8H 6H 5H 7H"), STANDARD) == [cs("5H 6H 7H 8H")]
    assert arrangements(cs("JK 7C 4C 5C"), STANDARD) == [cs("4C 5C JK 7C")]
    # an ace goes low or high; a spare wild at either end, lowest run first
    assert arrangements(cs("KS QS AS JK"), STANDARD) == [cs("JK QS KS AS")]
    assert arrangements(cs("5D 6D 7D JK"), STANDARD) == [cs("JK 5D 6D 7D"), cs("5D 6D 7D JK")]
    # a set as outputs list it, wilds last; 2s wild only where the rules say so
    assert arrangements(cs("JK 7S 2C 7D 7H"), HOUSE) == [cs("7S 7H 7D 2C JK")]
    assert arrangements(cs("JK 7S 2C 7D 7H"), STANDARD) == []
    assert arrangements(cs("JK 2H 2S"), STANDARD) == [cs("2S 2H JK")]  # 2s standing for 2s
    # with 2s wild a 2 of the run's suit stands for itself, or for another card of the run
    assert arrangements(cs("4H JK 3H 2H"), HOUSE) == [cs("JK 2H 3H 4H"), cs("2H 3H 4H JK")]
    assert arrangements(cs("7H 6H 2H 5H"), HOUSE) == [cs("2H 5H 6H 7H"), cs("5H 6H 7H 2H")]
    assert arrangements(cs("2H 3H 4H"), HOUSE) == [cs("2H 3H 4H"), cs("3H 4H 2H")]
    # too few naturals for a new meld, or no meld at all
    assert arrangements(cs("7S JK JK"), STANDARD) == []
    assert arrangements(cs("7H 7S 4C"), STANDARD) == []


# ---- what a meld stands for, and its JSON ----------------------------------------------------

def test_stands_for_marks_only_the_wilds_in_places_not_their_own() -> None:
    run = Meld(0, RUN, cs("2H JK 4H 2C"), 1, 2)  # 2H in its own place, JK the 3H, 2C the 5H
    assert [run.wild_stands_for(i) for i in range(4)] == [None, "3H", None, "5H"]
    high = Meld(1, RUN, cs("QS KS JK"), 0, 12)
    assert high.to_json()["stands_for"] == [None, None, "AS"]
    sevens = Meld(2, SET, cs("7S 7D 2C JK"), 7)
    assert sevens.to_json() == {"owner": 2, "kind": "set", "cards": ["7S", "7D", "2C", "JK"],
                                "stands_for": [None, None, "7", "7"]}
    deuces = Meld(3, SET, cs("2S 2H JK"), 2)
    assert deuces.to_json()["stands_for"] == [None, None, "2"]
    tens = Meld(0, SET, cs("10S 10H JK"), 10)
    assert tens.to_json()["stands_for"] == [None, None, "10"]
    assert run.to_json() == {"owner": 0, "kind": "run", "cards": ["2H", "JK", "4H", "2C"],
                             "suit": "H", "low": 2, "stands_for": [None, "3H", None, "5H"]}


def test_a_run_that_reads_two_ways_says_which() -> None:
    """2C 2H JK is A-3 of hearts or 2-4 of clubs: suit, low and stands_for tell them apart."""
    hearts = Meld(1, RUN, cs("2C 2H JK"), 1, 1)
    clubs = Meld(2, RUN, cs("2C 2H JK"), 3, 2)
    assert hearts.to_json()["stands_for"] == ["AH", None, "3H"]
    assert clubs.to_json()["stands_for"] == [None, "3C", "4C"]
    for m in (hearts, clubs):
        assert Meld.from_json(json.loads(json.dumps(m.to_json())), HOUSE) == m


def test_from_json_reads_earlier_forms_and_refuses_bad_melds() -> None:
    m = Meld(0, RUN, cs("5D JK 7D"), 2, 5)
    bare = {"owner": 0, "kind": "run", "cards": ["5D", "JK", "7D"]}
    assert Meld.from_json(bare, HOUSE) == m
    assert Meld.from_json({**bare, "suit": "D", "low": 5}, HOUSE) == m
    # stands_for is derived, never read: a wrong one changes nothing
    assert Meld.from_json({**bare, "stands_for": [None, "QS", None]}, HOUSE) == m
    # a suit and low that do not fit the cards: the cards decide
    assert Meld.from_json({**bare, "suit": "S", "low": 5}, HOUSE) == m
    for bad in ([], {**bare, "kind": "pair"}, {**bare, "cards": ["5D", "9C", "7D"]}):
        with pytest.raises(ValueError):
            Meld.from_json(bad, HOUSE)
    with pytest.raises(ValueError, match="missing field 'cards'"):
        Meld.from_json({"owner": 0, "kind": "run"}, HOUSE)


def test_meld_json_round_trips_and_agrees_with_the_view_reader() -> None:
    """Over whole random games: every table meld's JSON reads back to the meld, as the view
    reader reads it, and stands_for names exactly the wilds out of their own place."""
    seen = 0
    for preset, seed in (("house", 1), ("standard", 2), ("hoyle", 3), ("arena", 4)):
        rules = RuleSet.preset(preset)
        game = Game(rules, 4, seed=seed)
        rng = random.Random(seed)
        while not game.over and len(game.actions) < 1500:
            game.apply(random_action(game, rng))
            if not game.melds:
                continue
            view = json.loads(json.dumps(game.view_for(0).to_json()))
            assert SeatView.from_json(view, rules).melds == tuple(game.melds)
            for m, obj in zip(game.melds, view["melds"], strict=True):
                assert obj == m.to_json()
                assert Meld.from_json(obj, rules) == m
                bare = {"owner": obj["owner"], "kind": obj["kind"], "cards": obj["cards"]}
                assert Meld.from_json(bare, rules).cards == m.cards
                for place, (c, sf) in enumerate(zip(m.cards, obj["stands_for"], strict=True)):
                    own = c == m.stands_for(place) if m.kind == RUN else (
                        c != JOKER and c % 13 + 1 == m.key)
                    assert (sf is None) == own
                    if not own:
                        assert is_wild(c, rules.deuces_wild)
                seen += 1
    assert seen > 1000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(cs("JK 2S 2H 2D 2C")), max_size=6))
def test_distinct_orders_are_the_permutations_without_repeats(wilds: list[Card]) -> None:
    """The same orderings as ``set(permutations(...))`` holds, met in the same order, so the
    set built from them lists them in the same order too (the borrow listing's order)."""
    got = list(distinct_orders(wilds))
    assert got == list(dict.fromkeys(permutations(wilds)))
    assert list(set(got)) == list(set(permutations(wilds)))


@pytest.mark.timeout(60)
def test_many_identical_wilds_are_placed_once() -> None:
    """12 jokers and one natural: the set and the two runs of 13 (ace low, ace high), found
    without trying the jokers' 12! orders."""
    rules = RuleSet.preset("standard", {"naturals": [1, 1]})
    got = arrangements(cs("5H" + " JK" * 12), rules)
    assert got == [cs("5H" + " JK" * 12), cs("JK JK JK JK 5H" + " JK" * 8),
                   cs("JK JK JK 5H" + " JK" * 9)]
