"""Scenario tests for the `standard` preset (docs/rules.md (Presets), column `standard`, and the
details of play that it exercises), played on stacked decks.

Card points in `standard`: A 15, JK 20, 2-9 5, 10-K 10. Two decks hold two copies of each card,
so a stacked deal never names a card more than twice (three times with three decks).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import act, hand_of, stacked_game
from scenario import draw_and_all_pass as draw
from scenario import everything as all_cards
from scenario import go_down, illegal, legal
from scenario import table as melds_text

from liverpool.cards import new_deck, parse_cards
from liverpool.engine import Game, Phase
from liverpool.record import game_record
from liverpool.rules import Contract, RulesError, RuleSet

# A hand of 10 high diamonds and clubs for seats that only draw, pass and discard:
# 8 cards at 10 (K, Q, J, 10) and two 9s at 5 = 90 points.
FILL = "KD KC QD QC JD JC 10D 10C 9D 9C"
FILL_POINTS = 90


# ---------------------------------------------------------------------------- deal --------
def test_deal_ten_cards_one_at_a_time_from_the_left_of_the_dealer() -> None:
    rules = RuleSet.preset("standard")
    deck = new_deck(2, 2)  # a known order, top first
    g = Game(rules, 3, deals=[deck], first_dealer=0)
    # seat 1 (left of dealer 0) gets cards 0, 3, 6..27; seat 2 gets 1, 4..28; seat 0 2, 5..29
    assert g.hands[1] == [deck[3 * i] for i in range(10)]
    assert g.hands[2] == [deck[3 * i + 1] for i in range(10)]
    assert g.hands[0] == [deck[3 * i + 2] for i in range(10)]
    assert g.discard == [deck[30]]  # the upcard
    assert g.stock[-1] == deck[31]  # the first card drawn
    assert len(g.stock) == 108 - 31
    assert g.turn == 1


def test_dealer_moves_left_and_the_next_hand_deals_ten_at_once() -> None:
    # seat 0 goes down and out on its first turn; hand 2 is shuffled from the seed
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D 7S 5C 7H QS", FILL, FILL],
                     upcard="KH", stock="5S", dealer=2, overrides={"hands": [1, 2]},
                     contract_no=1)
    assert g.turn == 0  # left of dealer 2
    draw(g, 0)
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    for card, meld in (("7S", 0), ("5C", 1), ("7H", 0), ("5S", 1)):
        act(g, player=0, type="lay_off", card=card, meld=meld)
    act(g, player=0, type="discard", card="QS")
    # 0 out; seats 1 and 2 hold FILL
    assert g.scores == [[0, FILL_POINTS, FILL_POINTS]]
    assert g.dealer == 0 and g.turn == 1 and g.phase is Phase.DRAW
    assert [len(h) for h in g.hands] == [10, 10, 10]
    assert g.hand_number() == 2 and g.contract_for(1) == Contract(1, 1)
    assert sum(all_cards(g).values()) == 108


# ---------------------------------------------------------------------------- contracts ---
# (contract number, seat 1's ten cards, a go-down that meets it, one that does not);
# seat 1 draws 7S first.
CONTRACT_CASES = [
    (1, "7H 7C 7D 5S 5H 5D 3S 4S 6S 8H",
     ["7H 7C 7D", "5S 5H 5D"], ["7H 7C 7D", "3S 4S 5S 6S"]),
    (2, "7H 7C 7D 5S 5H 5D 3S 4S 6S 8H",
     ["7H 7C 7D", "3S 4S 5S 6S"], ["7H 7C 7D", "5S 5H 5D"]),
    (3, "3S 4S 5S 6S 8H 9H 10H JH 7C 7D",
     ["3S 4S 5S 6S", "8H 9H 10H JH"], ["7C 7D 7S", "3S 4S 5S 6S"]),
    (4, "7H 7C 7D 5S 5H 5D 3S 3H 3D 8H",
     ["7H 7C 7D", "5S 5H 5D", "3S 3H 3D"], ["7H 7C 7D", "5S 5H 5D"]),
    (5, "7H 7C 7D 5S 5H 5D 3C 4C 5C 6C",
     ["7H 7C 7D", "5S 5H 5D", "3C 4C 5C 6C"], ["7H 7C 7D", "5S 5H 5D"]),
    (6, "7H 7C 3S 4S 5S 6S 8H 9H 10H JH",
     ["7H 7C 7S", "3S 4S 5S 6S", "8H 9H 10H JH"], ["7H 7C 7S", "3S 4S 5S 6S"]),
]


@pytest.mark.parametrize(("k", "hand", "good", "bad"), CONTRACT_CASES)
def test_contracts_each_hand_asks_its_own(k: int, hand: str, good: list[str],
                                          bad: list[str]) -> None:
    g = stacked_game("standard", [FILL, hand, FILL], upcard="2H", stock="7S",
                     overrides={"hands": [k]}, contract_no=k)
    draw(g, 1)
    assert not legal(g, player=1, type="go_down", melds=[m.split() for m in bad])
    go_down(g, 1, *good)
    c = RuleSet.preset("standard").contracts[k - 1]
    assert g.down[1]
    assert sorted(m.kind for m in g.melds) == sorted(["set"] * c.sets + ["run"] * c.runs)
    used = sum(len(m.split()) for m in good)
    assert len(g.hands[1]) == 11 - used
    if k == 6:
        # 3 + 4 + 4 = all 11 cards: going down empties the hand, so seat 1 floats and the
        # turn ends with no discard
        assert g.floating[1] and g.turn == 2 and g.phase is Phase.DRAW


def test_no_extra_melds_at_go_down() -> None:
    g = stacked_game("standard", [FILL, "7H 7C 7D 5S 5H 5D 3S 3H 3D 8H", FILL],
                     upcard="2H", stock="7S", overrides={"hands": [1]}, contract_no=1)
    draw(g, 1)
    # contract 1 is two sets; a third set is not allowed (extra_melds_at_go_down is off)
    assert not legal(g, player=1, type="go_down",
                     melds=[["7H", "7C", "7D"], ["5S", "5H", "5D"], ["3S", "3H", "3D"]])
    # but a bigger set is fine
    assert legal(g, player=1, type="go_down", melds=[["7H", "7C", "7D", "7S"], ["5S", "5H", "5D"]])


# ---------------------------------------------------------------------------- runs --------
@pytest.mark.parametrize(("run", "ok"), [
    ("AS 2S 3S 4S", True),        # ace low
    ("JS QS KS AS", True),        # ace high
    ("2S 3S 4S", False),          # runs are 4+ in standard
    ("KS AS 2S 3S", False),       # never turns the corner
    ("QS KS AS 2S", False),
    ("2S 3S 4S 5H", False),       # one suit
    ("JS QS KS 2S", False),       # in sequence
])
def test_runs_four_or_more_in_suit_sequence(run: str, ok: bool) -> None:
    g = stacked_game("standard", [FILL, "7H 7C 7D JS QS KS 2S 3S 4S 5H", FILL],
                     upcard="2H", stock="AS", overrides={"hands": [2]}, contract_no=2)
    draw(g, 1)  # AS
    assert legal(g, player=1, type="go_down", melds=[["7H", "7C", "7D"], run.split()]) is ok


# ---------------------------------------------------------------------------- naturals ----
# standard: a new set needs 2 natural cards, a new run 3 (whatever its length)
NATURAL_CASES = [
    (1, "7H JK JK 5S 5H 5D 3S 4S 6S 8H", "7C", ["7H JK JK", "5S 5H 5D"], False),
    (1, "7H JK JK 5S 5H 5D 3S 4S 6S 8H", "7C", ["7H 7C JK", "5S 5H 5D"], True),
    (1, "7H JK JK 5S 5H 5D 3S 4S 6S 8H", "7C", ["7H 7C JK JK", "5S 5H 5D"], True),
    (2, "5S 5H 5D 3S 4S JK JK 7S 8H 9H", "6S", ["5S 5H 5D", "3S 4S JK JK"], False),
    (2, "5S 5H 5D 3S 4S JK JK 7S 8H 9H", "6S", ["5S 5H 5D", "3S 4S JK 6S"], True),
    (2, "5S 5H 5D 3S 4S JK JK 7S 8H 9H", "6S", ["5S 5H 5D", "JK 4S JK 6S"], False),
    (2, "5S 5H 5D 3S 4S JK JK 7S 8H 9H", "6S", ["5S 5H 5D", "3S 4S JK JK 7S"], True),
    (2, "5S 5H 5D 3S 4S JK JK 7S 8H 9H", "6S", ["5S 5H 5D", "JK 4S JK 6S 7S"], True),
]


@pytest.mark.parametrize(("k", "hand", "drawn", "melds", "ok"), NATURAL_CASES)
def test_naturals_new_set_needs_two_new_run_three(k: int, hand: str, drawn: str,
                                                   melds: list[str], ok: bool) -> None:
    g = stacked_game("standard", [FILL, hand, FILL], upcard="2H", stock=drawn,
                     overrides={"hands": [k]}, contract_no=k)
    draw(g, 1)
    assert legal(g, player=1, type="go_down", melds=[m.split() for m in melds]) is ok


# ---------------------------------------------------------------------------- final_all_out
def test_final_hand_all_out_only_a_player_who_bought_can_do_it() -> None:
    # contract 7 (three runs, 12+ cards) with 10-card hands
    g = stacked_game("standard", [
        FILL,
        "3C 4C 5C 6C 8H 9H 10H JH 6D 7D",
        "3H 4H 5H 6H 5S 6S 7S 8S 4D 5D",
    ], upcard="6D", stock="7D AS 8D", dealer=0, overrides={"hands": [7]}, contract_no=7)
    act(g, player=1, type="draw")
    assert g.to_act() == (2,)
    act(g, player=2, type="buy")  # 6D + penalty 7D
    assert len(g.hands[2]) == 12 and len(g.hands[1]) == 11  # seat 1 then draws AS
    # seat 1 holds 11 cards: three runs need 12, so it cannot go down at all
    assert g.best_go_down(1) is None
    assert not legal(g, player=1, type="go_down",
                     melds=[["3C", "4C", "5C", "6C"], ["8H", "9H", "10H", "JH"]])
    act(g, player=1, type="discard", card="AS")
    draw(g, 2)  # seat 0 passes on AS; seat 2 draws 8D: 13 cards
    assert len(g.hands[2]) == 13
    # three runs that leave a card in hand are refused in the last hand
    assert not legal(g, player=2, type="go_down",
                     melds=[["3H", "4H", "5H", "6H"], ["5S", "6S", "7S", "8S"],
                            ["4D", "5D", "6D", "7D"]])
    go_down(g, 2, "3H 4H 5H 6H", "5S 6S 7S 8S", "4D 5D 6D 7D 8D")
    # out at once, no discard; the one-hand game is over
    # seat 0: FILL = 90; seat 1: 3C 4C 5C 6C 8H 9H 6D 7D (8 x 5) + 10H JH (2 x 10) = 60
    assert g.phase is Phase.OVER
    assert g.scores == [[FILL_POINTS, 60, 0]]
    assert g.totals == [FILL_POINTS, 60, 0] and g.winners == (2,)


# ---------------------------------------------------------------------------- buying ------
def four_seats(**kw: Any) -> Game:
    return stacked_game("standard", [
        "KD KC QD QC JD JC 10D 10C 9D 9C",
        "KS KH QS QH JS JH 10S 10H 9S 9H",
        "KD KC QD QC JD JC 10D 10C 9D 9C",
        "KS KH QS QH JS JH 10S 10H 9S 9H",
    ], upcard="5H", stock="8S 3H 4H 6H", **kw)


def test_buy_seat_priority_nearest_left_of_the_drawer_is_asked_first_and_wins() -> None:
    g = four_seats()
    act(g, player=1, type="draw")
    # the drawer waits: buyers are asked in seat order from its left
    assert g.phase is Phase.BUY and g.to_act() == (2,) and len(g.hands[1]) == 10
    act(g, player=2, type="buy")
    # seat 2 wins (seats 3 and 0 are never asked): upcard + penalty card (stock top 8S),
    # and only then seat 1 receives the next stock card (3H)
    assert g.phase is Phase.PLAY and g.turn == 1
    assert len(g.hands[2]) == 12 and {"5H", "8S"} <= set(hand_of(g, 2))
    assert len(g.hands[1]) == 11 and "3H" in hand_of(g, 1)
    assert g.discard == [] and len(g.stock) == 108 - 41 - 2
    assert [a.to_json() for a in g.actions] == [
        {"player": 1, "type": "draw"}, {"player": 2, "type": "buy"}]


def test_buy_after_passes_the_next_seat_and_the_dealer_for_the_upcard() -> None:
    g = four_seats()
    act(g, player=1, type="draw")
    act(g, player=2, type="pass")
    assert g.to_act() == (3,)
    act(g, player=3, type="pass")
    # the upcard has no discarder: the dealer (seat 0) is asked too
    assert g.to_act() == (0,)
    act(g, player=0, type="buy")
    assert len(g.hands[0]) == 12 and len(g.hands[1]) == 11 and "3H" in hand_of(g, 1)
    # records are strict: each pass is an action in the record
    assert [a["type"] for a in game_record(g)["actions"]] == ["draw", "pass", "pass", "buy"]


def test_buy_the_discarder_is_not_asked() -> None:
    g = four_seats()
    draw(g, 1)  # 3 passes; seat 1 draws 8S
    act(g, player=1, type="discard", card="8S")
    act(g, player=2, type="draw")
    assert g.to_act() == (3,)
    act(g, player=3, type="pass")
    assert g.to_act() == (0,)
    act(g, player=0, type="pass")  # seat 1 discarded 8S: not asked
    assert g.phase is Phase.PLAY and g.turn == 2 and "3H" in hand_of(g, 2)


def test_buy_first_call_every_eligible_seat_may_act_and_the_first_buy_wins() -> None:
    g = four_seats(overrides={"buy_priority": "first_call"})
    act(g, player=1, type="draw")
    assert g.phase is Phase.BUY and sorted(g.to_act()) == [0, 2, 3]
    for s in (0, 2, 3):
        assert {a.type for a in g.legal_actions(s)} == {"buy", "pass"}
    act(g, player=3, type="pass")
    assert sorted(g.to_act()) == [0, 2]
    # seat 0 is farther from the drawer than seat 2 but asks first: it wins
    act(g, player=0, type="buy")
    assert g.phase is Phase.PLAY and g.turn == 1
    assert len(g.hands[0]) == 12 and {"5H", "8S"} <= set(hand_of(g, 0))
    assert len(g.hands[2]) == 10 and len(g.hands[1]) == 11 and "3H" in hand_of(g, 1)


def test_buy_first_call_round_ends_when_all_have_passed() -> None:
    g = four_seats(overrides={"buy_priority": "first_call"})
    act(g, player=1, type="draw")
    for s in (2, 0, 3):
        act(g, player=s, type="pass")
    assert g.phase is Phase.PLAY and g.turn == 1
    assert g.discard == parse_cards("5H") and hand_of(g, 1).count("8S") == 1


# ---------------------------------------------------------------------------- joker swap --
def test_joker_swap_from_runs_only_and_the_joker_must_be_played_this_turn() -> None:
    g = stacked_game("standard", [
        "5S 5C JK 3H 4H JK 6H 8S 8H 4C",
        "7D 7C 7S 10S JS QS KS 5H 5D 4S",
        FILL,
    ], upcard="KH", stock="2D 3D", dealer=2, overrides={"hands": [2]}, contract_no=2)
    draw(g, 0)
    go_down(g, 0, "5S 5C JK", "3H 4H JK 6H")  # 2 naturals in the set, 3 in the run
    act(g, player=0, type="discard", card="8S")
    draw(g, 1)  # gets 3D
    illegal(g, player=1, type="swap_joker", card="5H", meld=1)  # not down yet
    go_down(g, 1, "7D 7C 7S", "10S JS QS KS")
    illegal(g, player=1, type="swap_joker", card="5D", meld=0)  # a set: runs only
    act(g, player=1, type="swap_joker", card="5H", meld=1)
    assert melds_text(g)[1] == "3H 4H 5H 6H"
    assert hand_of(g, 1) == ["4S", "3D", "5D", "JK"]
    illegal(g, player=1, type="discard", card="3D")  # the joker must be played first
    # the joker could go at either end of 10S..KS: the end must be given
    illegal(g, player=1, type="lay_off", card="JK", meld=3)
    act(g, player=1, type="lay_off", card="JK", meld=3, end="low")
    act(g, player=1, type="lay_off", card="5D", meld=0)
    act(g, player=1, type="discard", card="3D")
    # outputs list a set by suit (S H D C), wilds last; a run low to high
    assert melds_text(g) == ["5S 5D 5C JK", "3H 4H 5H 6H", "7S 7D 7C", "JK 10S JS QS KS"]
    assert hand_of(g, 1) == ["4S"] and g.turn == 2


# ---------------------------------------------------------------------------- going_out float
def test_float_lay_off_last_card_then_draw_only_lay_off_fits_discard_goes_out() -> None:
    # seat 1's cards are worth A 15 + A 15 + JK 20 + 2S 4H 6H 8H (4 x 5) + 10S JS QS (3 x 10)
    seat1 = "AS AH JK 2S 4H 6H 8H 10S JS QS"
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D 7S 5C 7H 5S", seat1, FILL],
                     upcard="KH", stock="7D 7S 3H 5H 4S 6S KS", dealer=2,
                     overrides={"hands": [1]}, contract_no=1)
    draw(g, 0)  # seats 1 and 2 (the dealer, for the upcard) pass; 7D
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    for card, meld in (("7S", 0), ("5C", 1), ("7H", 0), ("5S", 1)):
        act(g, player=0, type="lay_off", card=card, meld=meld)
    act(g, player=0, type="lay_off", card="7D", meld=0)
    # empty hand without a discard: floating, the turn ends, the top (KH) is not fresh
    assert g.floating[0] and g.hands[0] == [] and not g.out[0]
    assert g.turn == 1 and g.phase is Phase.DRAW and g.discard == parse_cards("KH")
    assert not g.view_for(1).fresh
    act(g, player=1, type="draw")
    assert g.phase is Phase.PLAY  # no buy round for a non-fresh top
    act(g, player=1, type="discard", card="7S")
    # 7S fits the 7s but the only down player floats (holds no card): no window
    assert g.turn == 2 and g.phase is Phase.DRAW
    act(g, player=2, type="draw")
    # the floater is never asked in a buy round, seat 1 made the discard: no round at all
    assert g.phase is Phase.PLAY and "3H" in hand_of(g, 2)
    act(g, player=2, type="discard", card="3H")
    # the floater draws from the stock only
    assert [a.type for a in g.legal_actions(0)] == ["draw"]
    illegal(g, player=0, type="take_discard")
    draw(g, 0)  # seat 1 passes on 3H; 5H drawn
    assert hand_of(g, 0) == ["5H"]
    illegal(g, player=0, type="discard", card="5H")  # it fits: it must be laid off
    act(g, player=0, type="lay_off", card="5H", meld=1)
    assert g.floating[0] and g.turn == 1  # floats on
    draw(g, 1)
    act(g, player=1, type="discard", card="4S")
    draw(g, 2)
    act(g, player=2, type="discard", card="6S")
    draw(g, 0)  # KS fits no meld
    illegal(g, player=0, type="lay_off", card="KS", meld=0)
    act(g, player=0, type="discard", card="KS")
    # seat 0 out; seat 1 kept its ten cards = 15+15+20+4*5+3*10 = 100; seat 2 FILL = 90
    assert g.phase is Phase.OVER
    assert g.scores == [[0, 100, FILL_POINTS]] and g.winners == (0,)


# ---------------------------------------------------------------------------- playable_discard
def test_take_back_when_the_discarder_is_down() -> None:
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D KS QS 3C 7S", FILL, FILL],
                     upcard="KH", stock="4C 8H 6H", dealer=2, overrides={"hands": [1]},
                     contract_no=1)
    draw(g, 0)  # 4C
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    stock = len(g.stock)
    act(g, player=0, type="discard", card="7S")
    # 7S fits seat 0's own set (own melds count in standard); take_back asks every other
    # seat, down or not, from the next player
    assert g.phase is Phase.CALL and g.to_act() == (1,)
    act(g, player=1, type="pass")
    assert g.to_act() == (2,)
    act(g, player=2, type="call")
    # the discarder takes 7S back plus a penalty card (8H); the turn ends with no discard
    assert hand_of(g, 0) == ["7S", "QS", "KS", "8H", "3C", "4C"]
    assert len(g.stock) == stock - 1 and g.discard == parse_cards("KH")
    assert g.turn == 1 and g.phase is Phase.DRAW and not g.view_for(1).fresh
    act(g, player=1, type="draw")
    # the top is not fresh: no buy round, seat 1 draws at once
    assert g.phase is Phase.PLAY and "6H" in hand_of(g, 1) and len(g.stock) == stock - 2
    act(g, player=1, type="discard", card="6H")
    act(g, player=2, type="draw")
    # a player who is down may still buy in standard: seat 0 is asked
    assert g.phase is Phase.BUY and g.to_act() == (0,)


def test_bonus_when_the_discarder_is_not_down() -> None:
    seat1 = "7S 3H 4H 6S 8S AS AH JK 10S 2H"
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D KS QS 3C 5C", seat1, FILL],
                     upcard="KH", stock="4C 8H 6H 9H", dealer=2, overrides={"hands": [1]},
                     contract_no=1)
    draw(g, 0)  # 4C
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    act(g, player=0, type="discard", card="KS")  # fits nothing: no window
    assert g.turn == 1 and g.phase is Phase.DRAW
    act(g, player=1, type="draw")
    assert g.to_act() == (2,)  # seat 0, the discarder, is not asked
    act(g, player=2, type="pass")
    act(g, player=1, type="discard", card="7S")
    # seat 1 is not down: bonus; only down players holding a card are asked (not seat 2)
    assert g.phase is Phase.CALL and g.to_act() == (0,)
    act(g, player=0, type="call")
    assert g.phase is Phase.BONUS and g.to_act() == (0,)
    illegal(g, player=0, type="discard", card="7S")  # not the card taken
    act(g, player=0, type="lay_off", card="7S", meld=0)
    illegal(g, player=0, type="lay_off", card="5C", meld=1)  # one lay-off at most
    act(g, player=0, type="discard", card="5C")
    # 5C fits the 5s, but the bonus discard opens no window; play resumes with seat 2
    assert g.turn == 2 and g.phase is Phase.DRAW
    assert hand_of(g, 0) == ["QS", "3C", "4C"]
    assert melds_text(g)[0] == "7S 7H 7D 7C"  # a set is listed by suit S H D C
    # the bonus discard is fresh, seat 0 its discarder: seat 1 alone may buy it
    act(g, player=2, type="draw")
    assert g.to_act() == (1,)
    act(g, player=1, type="buy")  # 5C + penalty 6H; seat 2 then draws 9H
    assert len(g.hands[1]) == 12 and {"5C", "6H"} <= set(hand_of(g, 1))
    assert "9H" in hand_of(g, 2)


def test_take_back_of_the_only_pile_card_leaves_an_empty_pile_so_the_next_player_draws(
) -> None:
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D 7S KS QS JS", FILL, FILL],
                     upcard="8H", stock="4C 6H", dealer=2, overrides={"hands": [1]},
                     contract_no=1)
    act(g, player=0, type="take_discard")  # the pile is now empty
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    act(g, player=0, type="discard", card="7S")
    act(g, player=1, type="call")  # seat 1 is asked first and calls: the window ends
    assert g.discard == [] and hand_of(g, 0) == ["7S", "JS", "QS", "KS", "8H", "4C"]
    assert g.turn == 1 and [a.type for a in g.legal_actions(1)] == ["draw"]
    illegal(g, player=1, type="take_discard")
    act(g, player=1, type="draw")
    assert g.phase is Phase.PLAY and "6H" in hand_of(g, 1)


def test_floater_is_not_asked_in_a_take_back_window() -> None:
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D 7S 5C 7H 5S",
                                  "8S 8H 8D 3S 3H 3D 8C QS JS 9H", FILL],
                     upcard="KH", stock="7D 4H 6H", dealer=2, overrides={"hands": [1]},
                     contract_no=1)
    draw(g, 0)  # 7D
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    for card, meld in (("7S", 0), ("5C", 1), ("7H", 0), ("5S", 1), ("7D", 0)):
        act(g, player=0, type="lay_off", card=card, meld=meld)
    assert g.floating[0]
    act(g, player=1, type="draw")  # the top is not fresh: no buy round; 4H
    go_down(g, 1, "8S 8H 8D", "3S 3H 3D")
    act(g, player=1, type="discard", card="8C")
    # 8C fits seat 1's own set: take_back asks every other seat but the floater
    assert g.phase is Phase.CALL and g.to_act() == (2,)
    act(g, player=2, type="pass")
    assert g.turn == 2 and g.phase is Phase.DRAW
    act(g, player=2, type="draw")
    # buyers would be seat 0 (floating) and seat 1 (the discarder): no round
    assert g.phase is Phase.PLAY and "6H" in hand_of(g, 2)


def test_a_card_that_could_only_replace_a_joker_does_not_fit() -> None:
    g = stacked_game("standard", ["9S 9H JK 3H 4H JK 6H 5H 8S 4C", FILL, FILL],
                     upcard="KH", stock="2D", dealer=2, overrides={"hands": [2]}, contract_no=2)
    draw(g, 0)
    go_down(g, 0, "9S 9H JK", "3H 4H JK 6H")
    # 5H is the card the run's joker stands for, but as a lay-off the run takes only 2H or
    # 7H: the discard does not fit, so no take_back window opens
    act(g, player=0, type="discard", card="5H")
    assert g.turn == 1 and g.phase is Phase.DRAW and g.view_for(1).fresh


def test_playable_discard_standard_needs_down_may_take_discard() -> None:
    with pytest.raises(RulesError, match="playable_discard"):
        RuleSet.preset("standard", {"down_may_take_discard": False})


# ---------------------------------------------------------------------------- other -------
def test_no_discard_of_the_taken_card_nor_a_lay_off_that_leaves_only_it() -> None:
    g = stacked_game("standard", ["7H 7C 7D 5S 5H 5D 7S 5C 7S KS", FILL, FILL],
                     upcard="KS", dealer=2, overrides={"hands": [1]}, contract_no=1)
    act(g, player=0, type="take_discard")
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    # both KS in hand are the card taken: neither may be discarded this turn
    illegal(g, player=0, type="discard", card="KS")
    act(g, player=0, type="lay_off", card="7S", meld=0)
    act(g, player=0, type="lay_off", card="5C", meld=1)
    # laying off the last 7S would leave only KS KS, which may not be discarded: a dead end
    illegal(g, player=0, type="lay_off", card="7S", meld=0)
    act(g, player=0, type="discard", card="7S")
    # 7S fits seat 0's own set: the take_back window opens (every other seat)
    assert g.phase is Phase.CALL and g.to_act() == (1,)
    act(g, player=1, type="pass")
    act(g, player=2, type="pass")
    assert g.turn == 1 and g.discard[-1] == parse_cards("7S")[0] and g.view_for(1).fresh
    assert hand_of(g, 0) == ["KS", "KS"]


@pytest.mark.parametrize(("count", "bonus"), [(31, 50), (30, 0), (32, 0)])
def test_cut_bonus_exact_cut_takes_50_off_in_that_hands_row(count: int, bonus: int) -> None:
    seat1 = "7H 7C 7D 5S 5H 5D 7S 5C 7H QS"
    g = stacked_game("standard", [FILL, seat1, FILL], upcard="KH", stock="5S", dealer=0,
                     overrides={"cut_bonus": 50, "hands": [1, 2]}, contract_no=1)
    # the seat right of the dealer (0) cuts: seat 2
    assert g.phase is Phase.CUT and g.to_act() == (2,)
    illegal(g, player=1, type="cut", count=31)
    illegal(g, player=2, type="cut", count=0)
    illegal(g, player=2, type="cut", count=108)  # 1..deck size - 1
    act(g, player=2, type="cut", count=count)
    # the cut does not change the deal
    assert g.hands[1] == parse_cards(seat1) and g.hands[0] == parse_cards(FILL)
    assert g.phase is Phase.DRAW and g.turn == 1
    draw(g, 1)  # seats 2 and 0 pass on the upcard; 5S
    go_down(g, 1, "7H 7C 7D", "5S 5H 5D")
    for card, meld in (("7S", 0), ("5C", 1), ("7H", 0), ("5S", 1)):
        act(g, player=1, type="lay_off", card=card, meld=meld)
    act(g, player=1, type="discard", card="QS")
    # 3 players x 10 cards + 1 upcard = 31: seat 2's row is 90 - 50
    assert g.scores == [[FILL_POINTS, 0, FILL_POINTS - bonus]]
    assert g.totals == [FILL_POINTS, 0, FILL_POINTS - bonus]
    # hand 2 starts at once with a new cut, by the seat right of the new dealer (1): seat 0
    assert g.dealer == 1 and g.phase is Phase.CUT and g.to_act() == (0,)


def test_cut_bonus_is_off_by_default() -> None:
    # no cut decision: the player left of the dealer is the first to act
    g = Game(RuleSet.preset("standard"), 3, seed=2, first_dealer=1)
    assert g.phase is Phase.DRAW and g.to_act() == (2,)


def test_first_dealer_is_recorded_and_the_player_to_its_left_starts() -> None:
    g = Game(RuleSet.preset("standard"), 5, seed=4, first_dealer=3)
    assert g.dealer == 3 and g.turn == 4 and game_record(g)["first_dealer"] == 3
