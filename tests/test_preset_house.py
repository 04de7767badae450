"""Scenario tests for the `house` preset (docs/rules.md (Presets), column `house`, and the
details of play that it exercises), played on stacked decks.

Card points in `house`: A 20, JK 50, 2 20, 3-9 5, 10-K 10. 2s are wild (a 2 standing for itself
counts as natural). Two decks hold two copies of each card, so a stacked deal never names a card
more than twice.
"""

from __future__ import annotations

import pytest
from conftest import act, hand_of, stacked_game
from scenario import HOUSE_SEAT0 as SEAT0
from scenario import HOUSE_SEAT1 as SEAT1
from scenario import HOUSE_SEAT2 as SEAT2
from scenario import draw_and_all_pass as draw
from scenario import go_down, illegal, legal
from scenario import house_two_down as two_down
from scenario import table as melds_text

from liverpool.cards import parse_cards
from liverpool.engine import Phase
from liverpool.rules import RuleSet

# High diamonds and clubs for seats that only draw, pass and discard.
FILL9 = "KD KC QD QC JD JC 10D 10C 9D"            # 8 x 10 + 5 = 85
FILL12 = "KD KC QD QC JD JC 10D 10C 9D 9C 8D 8C"  # 8 x 10 + 4 x 5 = 100


# ---------------------------------------------------------------------------- contracts ---
# (contract number, seat 1's cards, a go-down that meets it, one that does not);
# seat 1 draws 7S first.
CONTRACT_CASES = [
    (1, "7H 7C 7D 5S 5H 5D 3C 4C 5C", ["7H 7C 7D", "5S 5H 5D"], ["7H 7C 7D", "3C 4C 5C"]),
    (2, "7H 7C 7D 5S 5H 5D 3C 4C 5C", ["7H 7C 7D", "3C 4C 5C"], ["7H 7C 7D", "5S 5H 5D"]),
    (3, "3C 4C 5C 6H 7H 8H 7C 7D 3S", ["3C 4C 5C", "6H 7H 8H"], ["7C 7D 7S", "3C 4C 5C"]),
    (4, "7H 7C 7D 5S 5H 5D 3C 3H 3D", ["7H 7C 7D", "5S 5H 5D", "3C 3H 3D"],
     ["7H 7C 7D", "5S 5H 5D"]),
    (5, "7H 7C 7D 5S 5H 5D 3C 4C 5C 6C AS AH", ["7H 7C 7D", "5S 5H 5D", "3C 4C 5C 6C"],
     ["7H 7C 7D", "5S 5H 5D"]),
    (6, "7H 7C 7D 3C 4C 5C 8H 9H 10H AS AH KS", ["7H 7C 7D", "3C 4C 5C", "8H 9H 10H"],
     ["7H 7C 7D", "3C 4C 5C"]),
    (7, "3C 4C 5C 8H 9H 10H 3S 4S 5S AH KS QH", ["3C 4C 5C", "8H 9H 10H", "3S 4S 5S"],
     ["3C 4C 5C", "8H 9H 10H"]),
]


@pytest.mark.parametrize(("k", "hand", "good", "bad"), CONTRACT_CASES)
def test_contracts_each_hand_asks_its_own(k: int, hand: str, good: list[str],
                                          bad: list[str]) -> None:
    fill = FILL9 if k <= 4 else FILL12
    size = 9 if k <= 4 else 12
    g = stacked_game("house", [fill, hand, fill], upcard="KH", stock="7S",
                     overrides={"hands": [k]}, contract_no=k)
    draw(g, 1)
    assert not legal(g, player=1, type="go_down", melds=[m.split() for m in bad])
    go_down(g, 1, *good)
    c = RuleSet.preset("house").contracts[k - 1]
    assert g.down[1]
    assert sorted(m.kind for m in g.melds) == sorted(["set"] * c.sets + ["run"] * c.runs)
    used = sum(len(m.split()) for m in good)
    assert len(g.hands[1]) == size + 1 - used and g.phase is Phase.PLAY


def test_final_hand_is_not_all_out() -> None:
    # contract 7 (three runs): going down keeps the other cards, then an ordinary discard
    g = stacked_game("house", [FILL12, "3C 4C 5C 8H 9H 10H 3S 4S 5S AH KS QH", FILL12],
                     upcard="KH", stock="7S", overrides={"hands": [7]}, contract_no=7)
    draw(g, 1)
    go_down(g, 1, "3C 4C 5C", "8H 9H 10H", "3S 4S 5S")
    assert hand_of(g, 1) == ["7S", "KS", "AH", "QH"] and not g.out[1]
    act(g, player=1, type="discard", card="KS")
    assert g.turn == 2 and g.phase is Phase.DRAW and g.scores == []


# ------------------------------------------------------------------ runs / wilds / naturals
# naturals: the source is silent, so naturals must outnumber wilds; a 2 in its own place (or
# in a set of 2s) is natural, any other 2 is wild
WILD_CASES = [
    (1, "7H 7C 2S JK 5S 5H 5D 3C 4C", ["7H 7C 2S", "5S 5H 5D"], True),
    (1, "7H 7C 2S JK 5S 5H 5D 3C 4C", ["7H 2S JK", "5S 5H 5D"], False),      # 1 v 2
    (1, "7H 7C 2S JK 5S 5H 5D 3C 4C", ["7H 7C 2S JK", "5S 5H 5D"], False),   # 2 v 2
    (1, "7H 7C 2S JK 5S 5H 5D 3C 4C", ["7H 7C 7S 2S JK", "5S 5H 5D"], True),  # 3 v 2
    (1, "2H 2S 2D 5S 5H 5D 3C 4C JK", ["2H 2S 2D", "5S 5H 5D"], True),      # a set of 2s
    (1, "2H 2S 2D 5S 5H 5D 3C 4C JK", ["2H 2S JK", "5S 5H 5D"], True),      # 2 natural 2s
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2S 3S"], True),      # runs of 3
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2S JK"], True),      # 2S natural
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2H JK"], False),     # 2H wild: 1 v 2
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2H 3S"], True),      # 2H as 2S
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2S 3S JK"], True),   # 3 v 1
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS JK 3S 2H"], False),  # 2 v 2
    (2, "7H 7C 7D AS 2S 3S 2H JK 5D", ["7H 7C 7D", "AS 2S"], False),        # too short
]


@pytest.mark.parametrize(("k", "hand", "melds", "ok"), WILD_CASES)
def test_twos_wild_and_naturals_outnumber_wilds(k: int, hand: str, melds: list[str],
                                                ok: bool) -> None:
    g = stacked_game("house", [FILL9, hand, FILL9], upcard="KH", stock="7S",
                     overrides={"hands": [k]}, contract_no=k)
    draw(g, 1)
    assert legal(g, player=1, type="go_down", melds=[m.split() for m in melds]) is ok


@pytest.mark.parametrize(("run", "ok"), [
    ("QS KS AS", True),      # 3 cards, ace high
    ("AS 2S 3S", True),      # ace low
    ("2S QS KS AS", True),   # the 2 is a wild standing for JS
    ("KS AS 2S", False),     # never turns the corner
    ("QS KS AS 2S", False),  # nothing above a high ace
    ("QS KS", False),        # too short
    ("2S 3S 4D", False),     # one suit
])
def test_runs_three_or_more(run: str, ok: bool) -> None:
    g = stacked_game("house", [FILL9, "7H 7C 7D QS KS AS 2S 3S 4D", FILL9], upcard="KH",
                     stock="5H", overrides={"hands": [2]}, contract_no=2)
    draw(g, 1)
    assert legal(g, player=1, type="go_down", melds=[["7H", "7C", "7D"], run.split()]) is ok


# ---------------------------------------------------------------------------- buying ------
def test_buy_seat_priority_plus_one_penalty() -> None:
    g = stacked_game("house", [FILL9, "3S 4S 5S 6H 7H 8H 9S 10S JS", FILL9],
                     upcard="5H", stock="8S 3H")
    act(g, player=1, type="draw")
    assert g.phase is Phase.BUY and g.to_act() == (2,) and len(g.hands[1]) == 9
    act(g, player=2, type="buy")
    # the nearest seat wins at once (seat 0 is never asked); it takes 5H + penalty 8S and
    # only then does seat 1 get 3H
    assert len(g.hands[2]) == 11 and {"5H", "8S"} <= set(hand_of(g, 2))
    assert len(g.hands[1]) == 10 and "3H" in hand_of(g, 1)
    assert g.phase is Phase.PLAY and g.turn == 1 and len(g.stock) == 108 - 28 - 2


def test_the_next_player_taking_the_discard_pays_no_penalty() -> None:
    g = stacked_game("house", [FILL9, "3S 4S 5S 6H 7H 8H 9S 10S JS", FILL9],
                     upcard="5H", stock="8S 3H")
    stock = len(g.stock)
    act(g, player=1, type="take_discard")
    assert g.phase is Phase.PLAY and len(g.hands[1]) == 10 and len(g.stock) == stock


def test_buy_dealer_is_asked_for_the_upcard_after_the_others_pass() -> None:
    g = stacked_game("house", [FILL9, "3S 4S 5S 6H 7H 8H 9S 10S JS", FILL9],
                     upcard="5H", stock="8S 3H")
    act(g, player=1, type="draw")
    act(g, player=2, type="pass")
    assert g.to_act() == (0,)
    act(g, player=0, type="buy")
    assert len(g.hands[0]) == 11 and len(g.hands[1]) == 10 and len(g.hands[2]) == 9


# ---------------------------------------------------------------------------- two seats down
# The shared opening of `scenario.house_two_down` (seats 0 and 1 down, seat 2 to draw).


def test_layoff_needs_a_second_player_down() -> None:
    g = stacked_game("house", [SEAT0, SEAT1, SEAT2], upcard="KH", stock="7S 5C 3S 6S",
                     dealer=2, overrides={"hands": [1]}, contract_no=1)
    draw(g, 0)
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    # seat 0 is the only one down: no lay-off, not even on its own meld
    illegal(g, player=0, type="lay_off", card="7S", meld=0)
    act(g, player=0, type="discard", card="KS")
    draw(g, 1)
    go_down(g, 1, "10S 10H 10D 10C", "4S 4H 4D")
    # two down now: seat 1 lays off in the very turn it went down
    act(g, player=1, type="lay_off", card="5C", meld=1)
    act(g, player=1, type="discard", card="QS")
    draw(g, 2)
    act(g, player=2, type="discard", card="3S")
    draw(g, 0)
    act(g, player=0, type="lay_off", card="7S", meld=0)
    assert melds_text(g)[0] == "7S 7H 7D 7C" and melds_text(g)[1] == "5S 5H 5D 5C"
    assert hand_of(g, 0) == ["6S", "8S", "4C"]


def test_rummy_points_window_adds_25_to_the_discarders_row_and_the_card_stays_fresh(
) -> None:
    g = two_down("4C JS 10S 6C 4D")
    draw(g, 2)  # seat 0 passes on QS; seat 2 draws 4C
    act(g, player=2, type="discard", card="4C")
    # 4C fits seat 1's 4s, but seat 2 is not down: no window
    assert g.turn == 0 and g.phase is Phase.DRAW
    draw(g, 0)  # seat 1 passes on 4C; seat 0 draws JS
    act(g, player=0, type="discard", card="4C")
    # seat 0 is down and 4C fits another player's meld: every other seat is asked, from the
    # next player, down or not
    assert g.phase is Phase.CALL and g.to_act() == (1,)
    act(g, player=1, type="pass")
    assert g.to_act() == (2,)
    act(g, player=2, type="call")
    # the card stays on the pile, still fresh: the next player may take it, or draw and let
    # the others buy it
    assert g.turn == 1 and g.phase is Phase.DRAW
    assert g.discard[-1] == parse_cards("4C")[0] and g.view_for(1).fresh
    assert legal(g, player=1, type="take_discard")
    act(g, player=1, type="draw")
    assert g.phase is Phase.BUY and g.to_act() == (2,)
    act(g, player=2, type="pass")  # seat 1 draws 10S
    act(g, player=1, type="lay_off", card="10S", meld=2)
    act(g, player=1, type="discard", card="JH")  # out; final turns for seats 2 and 0
    assert g.out[1] and g.scores == [] and g.turn == 2
    draw(g, 2)  # seat 0 passes on JH; 6C
    act(g, player=2, type="discard", card="6C")
    act(g, player=0, type="draw")  # seat 1 is out, seat 2 made the discard: no buy round
    assert g.phase is Phase.PLAY and "4D" in hand_of(g, 0)
    act(g, player=0, type="discard", card="4D")
    # 4D fits the 4s: the window asks every other seat but seat 1, which is out
    assert g.phase is Phase.CALL and g.to_act() == (2,)
    act(g, player=2, type="pass")
    # seat 0: 8S 7S (2 x 5) + JS 10 = 20, + 25 rummy = 45; seat 1 out; seat 2: 85
    assert g.phase is Phase.OVER
    assert g.scores == [[45, 0, 85]]


def test_discard_fitting_only_the_discarders_own_meld_opens_no_window() -> None:
    g = two_down("3S JS")
    draw(g, 2)
    act(g, player=2, type="discard", card="3S")
    draw(g, 0)  # JS
    act(g, player=0, type="discard", card="7S")  # fits seat 0's own 7s only
    assert g.turn == 1 and g.phase is Phase.DRAW and g.penalties == [0, 0, 0]


def test_wild_discard_by_a_down_player_fits_other_melds_and_opens_the_window() -> None:
    g = two_down("3S 2D")
    draw(g, 2)
    act(g, player=2, type="discard", card="3S")
    draw(g, 0)  # 2D
    act(g, player=0, type="discard", card="2D")  # a wild lays off on any meld
    assert g.phase is Phase.CALL and g.to_act() == (1,)


def test_borrow_a_natural_card_from_a_meld_that_keeps_three() -> None:
    g = two_down("3S 2C")
    # seat 2 is not down: it may not borrow
    act(g, player=2, type="draw")
    act(g, player=0, type="pass")
    illegal(g, player=2, type="borrow", meld=2, card="10S", new_meld=["10S", "JS", "QS"])
    act(g, player=2, type="discard", card="3S")
    draw(g, 0)  # 2C: seat 0 holds 8S 4C 7S 2C
    # the 4s hold three cards: taking one would leave two
    illegal(g, player=0, type="borrow", meld=3, card="4S", new_meld=["4S", "4C", "2C"])
    illegal(g, player=0, type="borrow", meld=2, card="9S", new_meld=["8S", "9S", "2C"])
    act(g, player=0, type="borrow", meld=2, card="10S", new_meld=["8S", "2C", "10S"])
    assert melds_text(g)[2] == "10H 10D 10C"
    assert melds_text(g)[4] == "8S 2C 10S"
    assert g.melds[4].owner == 0 and g.melds[4].kind == "run"
    assert hand_of(g, 0) == ["7S", "4C"]
    # the 10s are down to three: nothing more may be taken from them
    assert not legal(g, player=0, type="borrow", meld=2, card="10H",
                     new_meld=["10H", "10S", "10S"])
    act(g, player=0, type="discard", card="7S")  # fits only seat 0's own melds
    assert g.turn == 1 and g.phase is Phase.DRAW


def test_layoff_instead_of_draw() -> None:
    g = two_down("3S")
    assert not legal(g, player=2, type="no_draw")  # seat 2 is not down
    draw(g, 2)
    act(g, player=2, type="discard", card="3S")
    stock = len(g.stock)
    act(g, player=0, type="no_draw")
    # no_draw declines the fresh 3S just like draw: the buy round follows
    assert g.phase is Phase.BUY and g.to_act() == (1,)
    act(g, player=1, type="pass")
    assert g.phase is Phase.PLAY and len(g.stock) == stock
    assert hand_of(g, 0) == ["7S", "8S", "4C"]
    illegal(g, player=0, type="discard", card="8S")  # must lay off first
    act(g, player=0, type="lay_off", card="7S", meld=0)
    act(g, player=0, type="discard", card="8S")
    assert hand_of(g, 0) == ["4C"] and g.turn == 1 and len(g.stock) == stock


# ---------------------------------------------------------------------------- joker swap --
def test_joker_swap_runs_and_sets_the_wild_must_be_played() -> None:
    g = stacked_game("house", [
        "9S 9C 9H JK 2D 5H 2C 7H 6H",
        "8S 8H 8D 3D 4D 5D 9D 6H AC",
        FILL9,
    ], upcard="KH", stock="3S AH", dealer=2, overrides={"hands": [2]}, contract_no=2)
    draw(g, 0)
    go_down(g, 0, "9S 9C 9H JK 2D", "5H 2C 7H")  # 3 v 2 and 2 v 1: naturals outnumber
    # swaps follow the lay-off gates: seat 0 is the only one down
    illegal(g, player=0, type="swap_joker", card="6H", meld=1)
    act(g, player=0, type="discard", card="3S")
    draw(g, 1)  # AH
    illegal(g, player=1, type="swap_joker", card="9D", meld=0, wild="2D")  # not down
    go_down(g, 1, "8S 8H 8D", "3D 4D 5D")
    # the set of 9s holds a joker and a 2: say which wild leaves
    illegal(g, player=1, type="swap_joker", card="9D", meld=0)
    act(g, player=1, type="swap_joker", card="9D", meld=0, wild="2D")
    # outputs list a set by suit S H D C, wilds last
    assert melds_text(g)[0] == "9S 9H 9D 9C JK"
    assert hand_of(g, 1) == ["AH", "6H", "AC", "2D"]
    illegal(g, player=1, type="discard", card="AC")  # the 2D must be played first
    # 2D can be the natural 2D below 3D or a wild 6D above 5D: the end must be given
    illegal(g, player=1, type="lay_off", card="2D", meld=3)
    act(g, player=1, type="lay_off", card="2D", meld=3, end="low")
    act(g, player=1, type="swap_joker", card="6H", meld=1)  # from a run: 2C leaves
    assert melds_text(g)[1] == "5H 6H 7H"
    illegal(g, player=1, type="discard", card="AC")
    act(g, player=1, type="lay_off", card="2C", meld=2)
    act(g, player=1, type="discard", card="AC")
    assert melds_text(g) == ["9S 9H 9D 9C JK", "5H 6H 7H", "8S 8H 8D 2C", "2D 3D 4D 5D"]
    assert hand_of(g, 1) == ["AH"] and g.turn == 2


# ---------------------------------------------------------------- going_out / final_turns
def test_going_out_by_discard_only_then_one_final_turn_two_players() -> None:
    g = stacked_game("house", ["7H 7C 7D 5S 5H 5D 7S 5C KS", "8S 8H 8D 4S 4H 4D 8C 4C 9H"],
                     upcard="KH", stock="QS 8C AS 7S JK", dealer=1, overrides={"hands": [1]},
                     contract_no=1)
    act(g, player=0, type="draw")
    assert g.to_act() == (1,)  # the dealer may buy the upcard
    act(g, player=1, type="pass")
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    act(g, player=0, type="discard", card="KS")
    act(g, player=1, type="draw")
    assert g.phase is Phase.PLAY  # the only other seat made the discard: no buy round
    go_down(g, 1, "8S 8H 8D", "4S 4H 4D")
    act(g, player=1, type="lay_off", card="8C", meld=2)
    act(g, player=1, type="lay_off", card="8C", meld=2)
    act(g, player=1, type="discard", card="9H")
    act(g, player=0, type="draw")  # AS
    act(g, player=0, type="lay_off", card="7S", meld=0)
    act(g, player=0, type="lay_off", card="5C", meld=1)
    act(g, player=0, type="discard", card="QS")
    act(g, player=1, type="draw")  # 7S: seat 1 holds 4C 7S
    act(g, player=1, type="lay_off", card="4C", meld=3)
    # 7S fits seat 0's 7s, but it is seat 1's last card: it must be discarded
    illegal(g, player=1, type="lay_off", card="7S", meld=0)
    act(g, player=1, type="discard", card="7S")
    # out by discarding: no rummy window for a discard that goes out; seat 0 gets one turn
    assert g.out[1] and g.scores == [] and g.turn == 0 and g.phase is Phase.DRAW
    assert g.penalties == [0, 0]
    act(g, player=0, type="draw")  # JK
    act(g, player=0, type="discard", card="AS")
    # seat 0 keeps JK = 50
    assert g.phase is Phase.OVER and g.scores == [[50, 0]] and g.winners == (1,)


def test_final_turns_every_other_player_one_turn_a_second_player_out_scores_zero() -> None:
    seat2 = "AS AH JK 2H 3H 6D 10H JH QH"  # 20 + 20 + 50 + 20 + 5 + 5 + 3 x 10 = 150
    seat3 = "KD KC QD QC JD JC 9D 9C 2C"   # 6 x 10 + 2 x 5 + 20 = 90
    g = stacked_game("house", ["7H 7C 7D 7S 5S 5H 5D 5C 5S", "8S 8H 8D 8C 4S 4H 4D 4C 8S",
                               seat2, seat3],
                     upcard="KH", stock="7H QS JS 10S", dealer=3, overrides={"hands": [1]},
                     contract_no=1)
    draw(g, 0)  # seats 1, 2 and 3 (the dealer) pass; 7H
    # going out needs a discard: a go-down may not meld all ten cards
    assert not legal(g, player=0, type="go_down",
                     melds=[["7H", "7C", "7D", "7S", "7H"], ["5S", "5H", "5D", "5C", "5S"]])
    go_down(g, 0, "7H 7C 7D 7S", "5S 5H 5D 5C 5S")
    act(g, player=0, type="discard", card="7H")
    assert g.out[0] and g.scores == [] and g.turn == 1
    act(g, player=1, type="draw")
    assert g.to_act() == (2,)
    act(g, player=2, type="pass")
    act(g, player=3, type="pass")  # QS
    go_down(g, 1, "8S 8H 8D 8C 8S", "4S 4H 4D 4C")
    act(g, player=1, type="discard", card="QS")  # seat 1 goes out in its final turn
    assert g.turn == 2
    act(g, player=2, type="draw")
    # seat 0 is out (never asked), seat 1 made the discard: only seat 3 may buy
    assert g.phase is Phase.BUY and g.to_act() == (3,)
    act(g, player=3, type="pass")  # JS
    act(g, player=2, type="discard", card="JS")
    act(g, player=3, type="draw")
    assert g.phase is Phase.PLAY  # 0 and 1 are out, 2 discarded: no buy round
    act(g, player=3, type="discard", card="10S")
    assert g.phase is Phase.OVER
    assert g.scores == [[0, 0, 150, 90]] and g.winners == (0, 1)
