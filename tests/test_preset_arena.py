"""Scenario tests for the ``arena`` preset: one or more tests per row of its column in docs/rules.md
(Presets), and the details of play it exercises (the BONUS window and the take_back option,
joker swaps from sets and runs, one swap while going down, going out by discard, short games).

Every expected hand, meld, pile, stock size and score below is worked out from docs/rules.md by
hand.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import C, act, stacked_game
from scenario import draw_and_all_pass, holds, illegal, phase_of, table

from liverpool.engine import Game, Phase, stacked_deck
from liverpool.rules import RulesError, RuleSet

# ---------------------------------------------------------------- contracts --------------------
CONTRACT_CASES = [
    (1, "7S 7H 7D KS KH KD 3H 4H 5H 6H", "9C",
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
    (4, "7S 7H 7D KS KH KD 4C 4D 4H 3H 5H 9C", "6H",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]],
      [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["4H", "4D", "4C"]]),
    (5, "7S 7H 7D KS KH KD 3H 4H 5H 6H 9S 2C", "9D",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]], [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]),
    (6, "7S 7H 7D 3H 4H 5H 6H 8C 9C 10C JC 2S", "2D",
     [[["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]],
      [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]],
     [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]),
    (7, "3H 4H 5H 6H 8C 9C 10C JC 2S 3S 4S KD", "5S",
     [[["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]],
     [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"], ["2S", "3S", "4S", "5S"]]),
]

JUNK = "AS 2H 5D 9D 10S JH QD KC AH 3S 6C 8D"  # seat 0's cards: nothing in them matters


@pytest.mark.parametrize(("contract_no", "deal", "draw", "wrong", "right"), CONTRACT_CASES)
def test_contracts(contract_no: int, deal: str, draw: str, wrong: list[list[list[str]]],
                   right: list[list[str]]) -> None:
    size = len(deal.split())
    g = stacked_game("arena", [" ".join(JUNK.split()[:size]), deal], upcard="JD", stock=draw,
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


# ---------------------------------------------------------------- runs and naturals ------------
def test_runs_four_or_more_ace_high_or_low_never_round_the_corner() -> None:
    g = stacked_game("arena", [" ".join(JUNK.split()[:11]), "JH QH KH AH 2H 3H 4H 8C 9C 10C 5D"],
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
    g = stacked_game("arena", [" ".join(JUNK.split()[:11]), "3H JK JK 6H 8C 9C 10C JC 4H KD 7S"],
                     upcard="8D", stock="2S", overrides={"hands": [3]}, contract_no=3)
    draw_and_all_pass(g, 1)
    clubs = ["8C", "9C", "10C", "JC"]
    illegal(g, player=1, type="go_down", melds=[["3H", "JK", "JK", "6H"], clubs])  # 2 and 2
    act(g, player=1, type="go_down", melds=[["3H", "4H", "JK", "6H"], clubs])  # 3 and 1
    assert holds(g, 1, "JK KD 7S 2S")


# ---------------------------------------------------------------- final_all_out: no ------------
def test_hand_seven_goes_down_then_goes_out_by_discarding() -> None:
    # 12 dealt + 5S = 13 cards: three runs of 4 and one card to discard
    g = stacked_game("arena", [JUNK, "3H 4H 5H 6H 7H 8C 9C 10C JC 2S 3S 4S"],
                     upcard="KD", stock="5S", overrides={"hands": [7]}, contract_no=7)
    draw_and_all_pass(g, 1)
    # melding all 13 would leave nothing to discard (going_out "discard")
    illegal(g, player=1, type="go_down",
            melds=[["3H", "4H", "5H", "6H", "7H"], ["8C", "9C", "10C", "JC"],
                   ["2S", "3S", "4S", "5S"]])
    act(g, player=1, type="go_down",
        melds=[["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"], ["2S", "3S", "4S", "5S"]])
    assert holds(g, 1, "7H") and not g.over
    illegal(g, player=1, type="lay_off", card="7H", meld=0)  # the last card must be discarded
    act(g, player=1, type="discard", card="7H")
    # seat 0: AS 15 + 2H 5 + 5D 5 + 9D 5 + 10S 10 + JH 10 + QD 10 + KC 10 + AH 15 + 3S 5
    #         + 6C 5 + 8D 5 = 100
    assert g.scores == [[100, 0]]
    assert g.over and g.winners == (1,)
    assert g.discard == C("KD 7H")


# ---------------------------------------------------------------- going out --------------------
def test_going_out_by_discard_the_last_card_may_not_be_laid_off() -> None:
    g = stacked_game("arena", [" ".join(JUNK.split()[:10]), "5S 5H 5D 9S 9H 9D 9C 5C 3D 4D"],
                     upcard="KD", stock="5S 6H 9H 7C 5C")
    draw_and_all_pass(g, 1)  # 5S
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="lay_off", card="9C", meld=1)
    act(g, player=1, type="lay_off", card="5C", meld=0)
    act(g, player=1, type="discard", card="3D")
    assert holds(g, 1, "4D 5S")
    draw_and_all_pass(g, 0)  # 6H
    act(g, player=0, type="discard", card="6H")
    draw_and_all_pass(g, 1)  # 9H
    act(g, player=1, type="lay_off", card="9H", meld=1)
    act(g, player=1, type="discard", card="4D")
    draw_and_all_pass(g, 0)  # 7C
    act(g, player=0, type="discard", card="7C")
    draw_and_all_pass(g, 1)  # 5C
    act(g, player=1, type="lay_off", card="5S", meld=0)
    # 5C fits the fives too, but it is the last card: it must be discarded
    illegal(g, player=1, type="lay_off", card="5C", meld=0)
    assert {a.type for a in g.legal_actions(1)} == {"discard"}
    act(g, player=1, type="discard", card="5C")
    # out; seat 0 holds its 10 dealt cards: AS 15 + 2H 5 + 5D 5 + 9D 5 + 10S 10 + JH 10
    # + QD 10 + KC 10 + AH 15 + 3S 5 = 90
    assert g.scores == [[90, 0]]
    assert g.hand_number() == 2 and g.melds == []


# ---------------------------------------------------------------- buying -----------------------
def test_buy_one_penalty_card_and_a_player_who_is_down_may_buy() -> None:
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "5S 5H 5D 9S 9H 9D QC KC 4H 3D",
                               "AS 2H 3C 4S 6D 7C 10H JD QS KD"],
                     upcard="8H", stock="2C 6S 8C 7H 4C")
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # 6S
    act(g, player=2, type="discard", card="QS")
    stock = len(g.stock)  # 108 - 30 - 1 - 2 = 75
    assert stock == 75
    act(g, player=0, type="draw")
    # seat 1 is down and may still buy (down_may_take_discard is on in arena)
    assert phase_of(g) is Phase.BUY and g.to_act() == (1,)
    act(g, player=1, type="buy")
    assert holds(g, 1, "KC 4H 3D 2C QS 8C")
    assert holds(g, 0, "AH 2D 3S 4D 6C 7S JH 10D 9D 2S 7H")
    assert g.discard == C("8H QC") and len(g.stock) == stock - 2


# ---------------------------------------------------------------- joker swap -------------------
def test_swap_from_a_set_and_from_a_run_once_down_the_joker_may_stay_in_hand() -> None:
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S 3C",
                               "8S 8H JK 4H 5H JK 7H QC KC 3D 9C",
                               "6H 8C 10S JS QS KS 4C 4D 4S 6D 9D"],
                     upcard="KH", stock="2C AD", overrides={"hands": [2]}, contract_no=2)
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["8S", "8H", "JK"], ["4H", "5H", "JK", "7H"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # AD
    act(g, player=2, type="go_down", melds=[["4S", "4D", "4C"], ["10S", "JS", "QS", "KS"]])
    act(g, player=2, type="swap_joker", card="8C", meld=0)  # any eight replaces the set's joker
    act(g, player=2, type="swap_joker", card="6H", meld=1)
    assert table(g) == ["8S 8H 8C", "4H 5H 6H 7H", "4S 4D 4C", "10S JS QS KS"]
    assert holds(g, 2, "6D 9D AD JK JK")
    act(g, player=2, type="discard", card="9D")  # no rule makes the jokers be played now
    assert holds(g, 2, "6D AD JK JK")


def test_swap_one_joker_just_before_going_down_then_go_down_with_it() -> None:
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "7S 7H JK KS KH JK QC 3D 9C 4H",
                               "7D KC 4S 4H 4D QS QH QD 8C 6H"], upcard="10H", stock="2C 5C")
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["7S", "7H", "JK"], ["KS", "KH", "JK"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # 5C
    act(g, player=2, type="swap_joker", card="7D", meld=0)
    assert table(g)[0] == "7S 7H 7D" and holds(g, 2, "KC 4S 4H 4D QS QH QD 8C 6H 5C JK")
    # now the only legal action is a go-down that uses the joker
    assert {a.type for a in g.legal_actions(2)} == {"go_down"}
    illegal(g, player=2, type="swap_joker", card="KC", meld=1)  # one swap at go-down only
    illegal(g, player=2, type="discard", card="5C")
    illegal(g, player=2, type="go_down", melds=[["4S", "4H", "4D"], ["QS", "QH", "QD"]])
    act(g, player=2, type="go_down", melds=[["4S", "4H", "JK"], ["QS", "QH", "QD"]])
    assert table(g) == ["7S 7H 7D", "KS KH JK", "4S 4H JK", "QS QH QD"]
    # once down, seat 2 plays on as usual: KC replaces the joker of the kings
    act(g, player=2, type="swap_joker", card="KC", meld=1)
    act(g, player=2, type="discard", card="5C")
    assert holds(g, 2, "4D 8C 6H JK")


# ---------------------------------------------------------------- playable discard: bonus ------
def test_bonus_caller_takes_lays_off_one_discards_and_play_resumes() -> None:
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "5S 5H 5D 9S 9H 9D QC 9C 4H 3D",
                               "KS KH KD 8S 8H 8D 5C AS 2H 3C"],
                     upcard="10H", stock="2C 6S 7D 8C")
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # 6S
    act(g, player=2, type="go_down", melds=[["KS", "KH", "KD"], ["8S", "8H", "8D"]])
    act(g, player=2, type="discard", card="5C")
    # 5C fits the fives: down seats holding cards are asked from the next player; seat 0 is
    # not down, so seat 1 is asked
    assert phase_of(g) is Phase.CALL and g.to_act() == (1,)
    act(g, player=1, type="call")
    assert phase_of(g) is Phase.BONUS and holds(g, 1, "9C 4H 3D 2C 5C")
    illegal(g, player=1, type="discard", card="5C")  # not the card just taken
    act(g, player=1, type="lay_off", card="5C", meld=0)
    illegal(g, player=1, type="lay_off", card="9C", meld=1)  # one lay-off only
    act(g, player=1, type="discard", card="9C")
    # 9C fits the nines and seat 2 is down, but a bonus discard opens no window: play resumes
    # with seat 0, the player the call interrupted
    assert phase_of(g) is Phase.DRAW and g.to_act() == (0,)
    assert table(g) == ["5S 5H 5D 5C", "9S 9H 9D", "KS KH KD", "8S 8H 8D"]
    assert holds(g, 1, "4H 3D 2C") and holds(g, 2, "AS 2H 3C 6S")
    assert g.discard == C("10H QC 9C")
    # 9C is fresh with seat 1 as its discarder: seat 2 (down) may buy it
    act(g, player=0, type="draw")
    assert phase_of(g) is Phase.BUY and g.to_act() == (2,)
    act(g, player=2, type="pass")
    assert holds(g, 0, "AH 2D 3S 4D 6C 7S JH 10D 9D 2S 7D")


def test_bonus_window_asks_down_seats_from_the_discarders_left() -> None:
    # four players; seats 1 and 3 are down when seat 0 (not down) discards 5C
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 5C",
                               "5S 5H 5D 9S 9H 9D QC 9C 4H 3D",
                               "AS 2H 3C 4S 6D 7C 10H JD QS KD",
                               "KS KH KD 8S 8H 8D 2S AC 6H 7H"],
                     upcard="10H", stock="2C 6S 7D 8C 4C")
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # 6S
    act(g, player=2, type="discard", card="QS")
    draw_and_all_pass(g, 3)  # 7D
    act(g, player=3, type="go_down", melds=[["KS", "KH", "KD"], ["8S", "8H", "8D"]])
    act(g, player=3, type="discard", card="2S")
    draw_and_all_pass(g, 0)  # 8C
    act(g, player=0, type="discard", card="5C")
    # seat 1 first, then seat 3; seat 2 is not down and is never asked
    assert phase_of(g) is Phase.CALL and g.to_act() == (1,)
    illegal(g, player=3, type="call")
    after_pass = g.clone()
    act(after_pass, player=1, type="pass")
    act(after_pass, player=3, type="pass")
    # nobody called: 5C stays on the pile, fresh; seat 1 draws and seats 2, 3 may buy it
    assert phase_of(after_pass) is Phase.DRAW and after_pass.to_act() == (1,)
    act(after_pass, player=1, type="draw")
    assert phase_of(after_pass) is Phase.BUY and after_pass.to_act() == (2,)
    # or seat 1 passes and seat 3 calls: seat 3 plays the bonus, then seat 1 resumes
    act(g, player=1, type="pass")
    act(g, player=3, type="call")
    assert phase_of(g) is Phase.BONUS and g.to_act() == (3,)
    assert holds(g, 3, "AC 6H 7H 7D 5C")
    act(g, player=3, type="discard", card="AC")  # no lay-off: it is optional
    assert phase_of(g) is Phase.DRAW and g.to_act() == (1,)
    assert holds(g, 3, "6H 7H 7D 5C") and g.discard == C("10H QC QS 2S AC")


def test_bonus_discard_may_go_out() -> None:
    # seat 1 goes down to one card (9C); seat 2, not down, discards 5C: the window still opens
    # (bonus does not need the discarder to be down)
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "5S 5H 5D 5S 9S 9H 9D 9C 9H 3D",
                               "AS 2H 3C 4S 6D 7C 10H JD JK 5C"],
                     upcard="10S", stock="9C 6S")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down",
        melds=[["5S", "5H", "5D", "5S"], ["9S", "9H", "9D", "9C", "9H"]])
    act(g, player=1, type="discard", card="3D")
    draw_and_all_pass(g, 2)
    act(g, player=2, type="discard", card="5C")
    assert phase_of(g) is Phase.CALL and g.to_act() == (1,)
    act(g, player=1, type="call")
    assert holds(g, 1, "9C 5C")
    # laying off 9C would leave only the 5C just taken, which may not be discarded: dead end
    illegal(g, player=1, type="lay_off", card="9C", meld=1)
    act(g, player=1, type="lay_off", card="5C", meld=0)
    act(g, player=1, type="discard", card="9C")
    # seat 0: AH 15 + 2D 3S 4D 6C 7S 9D 2S (7 x 5 = 35) + JH 10 + 10D 10 = 70
    # seat 2: AS 15 + 2H 3C 4S 6D 7C 6S (6 x 5 = 30) + 10H 10 + JD 10 + JK 20 = 85
    assert g.scores == [[70, 0, 85]]


def test_take_back_option_returns_the_card_with_a_penalty_card() -> None:
    g = stacked_game("arena", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "5S 5H 5D 9S 9H 9D QC KC 4H 5C",
                               "AS 2H 3C 4S 6D 7C 10H JD 9C KD"],
                     upcard="10S", stock="2C 7D 8H", overrides={"playable_discard": "take_back"})
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="5C")  # fits seat 1's own fives
    # every other seat is asked, from the discarder's left
    assert phase_of(g) is Phase.CALL and g.to_act() == (2,)
    act(g, player=2, type="pass")
    act(g, player=0, type="call")
    # seat 1 takes 5C back plus the penalty 7D; its turn ends with no new discard
    assert holds(g, 1, "QC KC 4H 2C 5C 7D")
    assert g.discard == C("10S")
    # the pile top is not fresh: seat 2 may take it, or draw with no buy round
    assert phase_of(g) is Phase.DRAW and g.to_act() == (2,)
    assert "take_discard" in {a.type for a in g.legal_actions(2)}
    act(g, player=2, type="draw")
    assert phase_of(g) is Phase.PLAY and holds(g, 2, "AS 2H 3C 4S 6D 7C 10H JD 9C KD 8H")
    # seat 2 is not down: its 9C fits the nines but take_back does not apply
    act(g, player=2, type="discard", card="9C")
    assert phase_of(g) is Phase.DRAW and g.to_act() == (0,)


# ---------------------------------------------------------------- other: shorter games ---------
def test_shorter_game_with_the_hands_override() -> None:
    rules = RuleSet.preset("arena", {"hands": [2, 7]})
    # hand 1 plays contract 2 (set + run, 11 cards); hand 2 contract 7 (3 runs, 12 cards)
    first = stacked_deck(rules, 2, 0, [C("AS JK 2H 9D 10C JH QS KC 3S 8D 4C"),
                                       C("7S 7H 7D 7C 3H 4H 5H 6H 7H 8H 9H")],
                         C("QD")[0], C("KD"), contract_no=2)
    second = stacked_deck(rules, 2, 1, [C("3H 4H 5H 6H 8C 9C 10C JC 2S 3S 4S KD"),
                                        C("AH JK 2D 9S 10D JS QH KS 3C 8S 4D 6D")],
                          C("QC")[0], C("5S"), contract_no=7)
    g = Game(rules, 2, seed=1, deals=[first, second], first_dealer=0)
    assert g.hand_number() == 1 and [len(h) for h in g.hands] == [11, 11]
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down",
        melds=[["7S", "7H", "7D", "7C"], ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]])
    act(g, player=1, type="discard", card="KD")
    # seat 0: A 15 + JK 20 + 2 5 + 9 5 + 10 10 + J 10 + Q 10 + K 10 + 3 5 + 8 5 + 4 5 = 100
    assert g.scores == [[100, 0]]
    # hand 2 is contract 7: 12 cards each, seat 1 deals, seat 0 starts
    assert g.hand_number() == 2 and g.dealer == 1 and g.to_act() == (0,)
    assert [len(h) for h in g.hands] == [12, 12]
    draw_and_all_pass(g, 0)  # 5S
    act(g, player=0, type="go_down",
        melds=[["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"], ["2S", "3S", "4S", "5S"]])
    act(g, player=0, type="discard", card="KD")
    # seat 1: A 15 + JK 20 + 2 9 3 8 4 6 (6 x 5 = 30) + 10 J Q K (4 x 10 = 40) = 105
    assert g.scores == [[100, 0], [0, 105]]
    assert g.totals == [100, 105]
    assert g.over and g.winners == (0,) and g.hand_number() == 2


def test_bonus_cannot_be_combined_with_down_players_barred_from_the_discard() -> None:
    # a bonus caller is down and takes the discard: turning down_may_take_discard off
    # contradicts it, and the error names the knob
    with pytest.raises(RulesError, match="down_may_take_discard"):
        RuleSet.preset("arena", {"down_may_take_discard": False})
    # with take_back instead of bonus the same override is accepted
    rules = RuleSet.preset("arena", {"playable_discard": "take_back",
                                     "down_may_take_discard": False})
    assert rules.playable_discard == "take_back" and not rules.down_may_take_discard
