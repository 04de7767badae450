"""Scenario tests for the ``classic`` preset: one or more tests per row of its column in
docs/rules.md (Presets), and the details of play it exercises (no buying or taking once down,
run-only joker swaps whose joker must be played this turn, face-value points, the three-run
all-out hand).

Every expected hand, meld, pile, stock size and score below is worked out from docs/rules.md
by hand.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import C, act, stacked_game
from scenario import draw_and_all_pass, holds, illegal, phase_of, table

from liverpool.engine import Phase


# ---------------------------------------------------------------- deal -------------------------
def test_the_next_hand_is_dealt_eleven_too() -> None:
    # seat 1 draws 5H and goes down with two sets of six: every card melded, out at once
    g = stacked_game("classic", ["AS JK 2H 3D 7D 8C 9C 10S JH QD KC",
                                 "5S 5H 5D 5C 5S 9S 9H 9D 9C 9S 9H"], upcard="4D", stock="5H")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down",
        melds=[["5S", "5H", "5D", "5C", "5S", "5H"], ["9S", "9H", "9D", "9C", "9S", "9H"]])
    assert len(g.scores) == 1
    assert g.hand_number() == 2 and g.dealer == 1
    assert [len(h) for h in g.hands] == [11, 11]


# ---------------------------------------------------------------- contracts --------------------
# per contract: seat 1's deal, the card it draws, go-downs that break the contract, the one that
# meets it (contract 7 is tested with final_all_out below)
CONTRACT_CASES = [
    (1, "7S 7H 7D KS KH KD 3H 4H 5H 6H 9C", "2D",
     [[["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]], [["KS", "KH", "KD"]],
      # one meld more than the contract asks
      [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"]]),
    (2, "7S 7H 7D KS KH KD 3H 4H 5H 6H 9C", "2D",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]], [["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]]),
    (3, "3H 4H 5H 6H 8C 9C 10C JC 7S 7H 7D", "2D",
     [[["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]]],
     [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]),
    (4, "7S 7H 7D KS KH KD 4C 4D 4H 3H 5H", "6H",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]],
      [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["4H", "4D", "4C"]]),
    (5, "7S 7H 7D KS KH KD 3H 4H 5H 6H 9S", "9D",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]], [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]),
    (6, "7S 7H 7D 3H 4H 5H 6H 8C 9C 10C JC", "2D",
     [[["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]],
      [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]],
     [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]),
]

JUNK = "AS 2H 5D 9D 10S JH QD KC AH 3S 6C"  # seat 0's hand: nothing in it matters


@pytest.mark.parametrize(("contract_no", "deal", "draw", "wrong", "right"), CONTRACT_CASES)
def test_contracts_one_to_six(contract_no: int, deal: str, draw: str,
                              wrong: list[list[list[str]]], right: list[list[str]]) -> None:
    g = stacked_game("classic", [JUNK, deal], upcard="JD", stock=draw,
                     overrides={"hands": [contract_no]}, contract_no=contract_no)
    draw_and_all_pass(g, 1)
    for melds in wrong:
        illegal(g, player=1, type="go_down", melds=melds)
    act(g, player=1, type="go_down", melds=right)
    assert g.down == [False, True]
    assert table(g) == [" ".join(m) for m in right]
    left = Counter(C(deal + " " + draw))
    left.subtract(C(" ".join(" ".join(m) for m in right)))
    assert Counter(g.hands[1]) == +left


# ---------------------------------------------------------------- final_all_out ----------------
def test_final_hand_three_runs_all_out_without_a_discard() -> None:
    # 11 dealt + 2S drawn = 12 cards = three runs of four
    g = stacked_game("classic", ["AS JK 2H 3D 7D 8C 9D 10S JH QD KC",
                                 "3H 4H 5H 6H 8C 9C 10C JC 3S 4S 5S"],
                     upcard="KD", stock="2S", overrides={"hands": [7]}, contract_no=7)
    draw_and_all_pass(g, 1)
    hearts, clubs = ["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]
    illegal(g, player=1, type="go_down", melds=[hearts, clubs])  # two runs are not the contract
    act(g, player=1, type="go_down", melds=[hearts, clubs, ["2S", "3S", "4S", "5S"]])
    # out with no discard: A 15 + JK 15 + 2 + 3 + 7 + 8 + 9 + 10 + J 10 + Q 10 + K 10 = 99
    assert g.scores == [[99, 0]]
    assert g.over and g.winners == (1,)
    assert g.discard == C("KD")


def test_final_hand_a_buyer_must_meld_all_fourteen_cards() -> None:
    # the dealer buys the upcard 5S (+ penalty 7H), then draws QC: 14 cards
    g = stacked_game("classic", ["3H 4H 5H 6H 8C 9C 10C JC 2S 3S 4S",
                                 "AS JK 2H 3D 7D 8C 9D 10S JH QD KC"],
                     upcard="5S", stock="7H KD QC", overrides={"hands": [7]}, contract_no=7)
    act(g, player=1, type="draw")
    act(g, player=0, type="buy")
    assert holds(g, 0, "3H 4H 5H 6H 8C 9C 10C JC 2S 3S 4S 5S 7H")
    act(g, player=1, type="discard", card="KD")
    act(g, player=0, type="draw")  # only seat 1 could buy, and it discarded KD: no buy round
    assert phase_of(g) is Phase.PLAY and len(g.hands[0]) == 14
    # three runs of four leave 7H and QC in hand: not all out
    illegal(g, player=0, type="go_down",
            melds=[["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"], ["2S", "3S", "4S", "5S"]])
    act(g, player=0, type="go_down",
        melds=[["3H", "4H", "5H", "6H", "7H"], ["8C", "9C", "10C", "JC", "QC"],
               ["2S", "3S", "4S", "5S"]])
    assert g.scores == [[0, 99]]  # seat 1 holds the same 11 cards as above: 99


# ---------------------------------------------------------------- runs and naturals ------------
def test_runs_four_or_more_ace_high_or_low_never_round_the_corner() -> None:
    g = stacked_game("classic", [JUNK, "JH QH KH AH 2H 3H 4H 8C 9C 10C 5D"],
                     upcard="7D", stock="JC", overrides={"hands": [3]}, contract_no=3)
    draw_and_all_pass(g, 1)
    clubs = ["8C", "9C", "10C", "JC"]
    illegal(g, player=1, type="go_down", melds=[["QH", "KH", "AH", "2H"], clubs])  # corner
    illegal(g, player=1, type="go_down", melds=[["2H", "3H", "4H"], clubs])  # 3 cards
    high = g.clone()
    act(high, player=1, type="go_down", melds=[["JH", "QH", "KH", "AH"], clubs])
    assert table(high) == ["JH QH KH AH", "8C 9C 10C JC"]
    act(g, player=1, type="go_down", melds=[["AH", "2H", "3H", "4H"], clubs])
    assert table(g) == ["AH 2H 3H 4H", "8C 9C 10C JC"]


def test_naturals_must_outnumber_wilds() -> None:
    g = stacked_game("classic", [JUNK, "7S JK JK KS KH KD 4C 5D 6C 8H 9D"],
                     upcard="8D", stock="7H")
    draw_and_all_pass(g, 1)
    kings = ["KS", "KH", "KD"]
    illegal(g, player=1, type="go_down", melds=[["7S", "JK", "JK"], kings])  # 1 natural, 2 wild
    illegal(g, player=1, type="go_down", melds=[["7S", "7H", "JK", "JK"], kings])  # 2 and 2
    act(g, player=1, type="go_down", melds=[["7S", "7H", "JK"], kings])
    assert holds(g, 1, "JK 4C 5D 6C 8H 9D")


# ---------------------------------------------------------------- buying -----------------------
def test_buy_takes_the_card_and_one_penalty_card() -> None:
    g = stacked_game("classic", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C",
                                 "AS 2H 3C 4S 6D 7C 10H JD QS KD 8S",
                                 "5S 5H 5D 9S 9H 9D QC KC 4H 3D 7C"],
                     upcard="QH", stock="2C 3H")
    act(g, player=1, type="draw")
    act(g, player=2, type="buy")
    # QH and the penalty 2C to seat 2, then seat 1 draws 3H; stock 108 - 33 - 1 = 74, less 2
    assert holds(g, 2, "5S 5H 5D 9S 9H 9D QC KC 4H 3D 7C QH 2C")
    assert holds(g, 1, "AS 2H 3C 4S 6D 7C 10H JD QS KD 8S 3H")
    assert g.discard == [] and len(g.stock) == 72


def test_a_player_who_is_down_may_neither_buy_nor_take_the_discard() -> None:
    g = stacked_game("classic", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C",
                                 "5S 5H 5D 9S 9H 9D QC KC 4H 3D 7C",
                                 "AS 2H 3C 4S 6D 7C 10H JD QS KD 8S"],
                     upcard="QH", stock="2C 6S 8H 9C")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    # seat 2 draws: seat 0 (not down) is asked about QC
    act(g, player=2, type="draw")
    assert phase_of(g) is Phase.BUY and g.to_act() == (0,)
    act(g, player=0, type="pass")
    act(g, player=2, type="discard", card="JD")
    # seat 0 draws: the only other seat that could buy JD is seat 1, which is down: no round
    act(g, player=0, type="draw")
    assert phase_of(g) is Phase.PLAY and holds(g, 0, "AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C 8H")
    act(g, player=0, type="discard", card="2S")
    # seat 1 may not take 2S from the pile; it draws, and seat 2 may buy 2S
    illegal(g, player=1, type="take_discard")
    assert {a.type for a in g.legal_actions(1)} == {"draw"}
    act(g, player=1, type="draw")
    assert phase_of(g) is Phase.BUY and g.to_act() == (2,)
    act(g, player=2, type="pass")
    assert holds(g, 1, "KC 4H 3D 7C 2C 9C")


# ---------------------------------------------------------------- joker swap -------------------
def test_run_joker_swap_and_the_joker_must_be_played_this_turn() -> None:
    g = stacked_game("classic", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C",
                                 "8S 8H JK 4H 5H JK 7H QC KC 3D 9C",
                                 "6H 8C 10S JS QS KS 4C 4D 4S 6D 9D"],
                     upcard="KH", stock="2C AD", overrides={"hands": [2]}, contract_no=2)
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["8S", "8H", "JK"], ["4H", "5H", "JK", "7H"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # seat 2 gets AD
    illegal(g, player=2, type="swap_joker", card="6H", meld=1)  # not down yet
    act(g, player=2, type="go_down", melds=[["4S", "4D", "4C"], ["10S", "JS", "QS", "KS"]])
    illegal(g, player=2, type="swap_joker", card="8C", meld=0)  # a joker only comes out of a run
    act(g, player=2, type="swap_joker", card="6H", meld=1)
    assert table(g)[1] == "4H 5H 6H 7H"
    assert holds(g, 2, "8C 6D 9D AD JK")
    illegal(g, player=2, type="discard", card="9D")  # the joker must be played first
    illegal(g, player=2, type="lay_off", card="JK", meld=1)  # either end: say which
    act(g, player=2, type="lay_off", card="JK", meld=1, end="high")
    assert table(g) == ["8S 8H JK", "4H 5H 6H 7H JK", "4S 4D 4C", "10S JS QS KS"]
    act(g, player=2, type="discard", card="9D")
    assert holds(g, 2, "8C 6D AD") and g.discard == C("KH QC 9D")


# ---------------------------------------------------------------- going out --------------------
def test_laying_off_the_last_card_ends_the_hand_at_once() -> None:
    g = stacked_game("classic", ["AS JK 2H 3D 7D 8C 9C 10S JH QD KC",
                                 "5S 5H 5D 5C 5S 9S 9H 9D 9C 9S 9H"], upcard="4D", stock="KD")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down",
        melds=[["5S", "5H", "5D", "5C", "5S"], ["9S", "9H", "9D", "9C", "9S", "9H"]])
    assert holds(g, 1, "KD")
    act(g, player=1, type="discard", card="KD")  # one card left: discarding it goes out
    # seat 0: 15 + 15 + 2 + 3 + 7 + 8 + 9 + 10 + 10 + 10 + 10 = 99
    assert g.scores == [[99, 0]]

    g = stacked_game("classic", ["AS JK 2H 3D 7D 8C 9C 10S JH QD KC",
                                 "5S 5H 5D 5C 5S 9S 9H 9D 9C 9S 9H"], upcard="4D", stock="5H")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down",
        melds=[["5S", "5H", "5D", "5C", "5S"], ["9S", "9H", "9D", "9C", "9S", "9H"]])
    act(g, player=1, type="lay_off", card="5H", meld=0)  # the last card: out, no discard
    assert g.scores == [[99, 0]] and g.hand_number() == 2


# ---------------------------------------------------------------- playable discard -------------
def test_a_discard_that_fits_a_meld_opens_no_window() -> None:
    g = stacked_game("classic", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C",
                                 "5S 5H 5D 9S 9H 9D QC KC 4H 3D 7C",
                                 "KS KH KD 8S 8H 8D 5C 2H 4S 6D 10C"],
                     upcard="QH", stock="2C 6S")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)
    act(g, player=2, type="go_down", melds=[["KS", "KH", "KD"], ["8S", "8H", "8D"]])
    act(g, player=2, type="discard", card="5C")  # fits seat 1's fives; both seats are down
    assert phase_of(g) is Phase.DRAW and g.to_act() == (0,)
    assert g.discard == C("QH QC 5C") and holds(g, 2, "2H 4S 6D 10C 6S")
