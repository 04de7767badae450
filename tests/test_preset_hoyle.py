"""Scenario tests for the ``hoyle`` preset: one or more tests per row of its column in docs/rules.md
(Presets), and the details of play it exercises (deep pickup, give_cards, hand 7 all out).

Every expected hand, meld, pile, stock size and score below is worked out from docs/rules.md by
hand.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import C, act, stacked_game
from scenario import draw_and_all_pass, holds, illegal, phase_of, table

from liverpool.engine import Phase


# ---------------------------------------------------------------- deal -------------------------
def test_hand_one_out_at_once_then_hand_two_deals_ten() -> None:
    # seat 1 draws 5C and holds two sets of four: going down with all 8 cards empties the hand,
    # which under going_out "empty" ends the hand at once (no discard)
    g = stacked_game("hoyle", ["AH AD JK JK QS 4C 7C", "5S 5H 5D 9S 9H 9D 9C",
                               "AS JK 2H 8D 10C KH 3S"], upcard="KC", stock="5C")
    act(g, player=1, type="draw")
    # the upcard has no discarder: seat 2 then the dealer (seat 0) are asked to buy
    assert phase_of(g) is Phase.BUY and g.to_act() == (2,)
    act(g, player=2, type="pass")
    assert g.to_act() == (0,)
    act(g, player=0, type="pass")
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D", "5C"], ["9S", "9H", "9D", "9C"]])
    # seat 0: A A JK JK Q 4 7 = 25+25+50+50+10+5+5 = 170
    # seat 2: A JK 2 8 10 K 3 = 25+50+5+5+10+10+5 = 110
    assert g.scores == [[170, 0, 110]]
    assert g.totals == [170, 0, 110]
    # hand 2 is dealt at once: 10 cards each, the dealer moved one seat left
    assert g.hand_number() == 2 and g.dealer == 1
    assert [len(h) for h in g.hands] == [10, 10, 10]
    assert g.melds == [] and g.down == [False, False, False]
    assert phase_of(g) is Phase.DRAW and g.to_act() == (2,)
    assert len(g.stock) == 108 - 30 - 1


# ---------------------------------------------------------------- contracts --------------------
# per contract: seat 1's deal, the stock card it draws, go-downs that break the contract and
# the one that meets it
CONTRACT_CASES = [
    (1, "7S 7H 7D KS KH KD 3H", "4H",
     [[["7S", "7H", "7D"]], [["KS", "KH", "KD"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"]]),
    (2, "7S 7H 7D 3H 4H 5H 6H KC QD 9S", "2D",
     [[["3H", "4H", "5H", "6H"]], [["7S", "7H", "7D"]]],
     [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]]),
    (3, "3H 4H 5H 6H 8C 9C 10C JC KD 2S", "2D",
     [[["3H", "4H", "5H", "6H"]]],
     [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]),
    (4, "7S 7H 7D KS KH KD 4C 4D 4H 9S", "2D",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["4H", "4D", "4C"]]),
    (5, "7S 7H 7D KS KH KD 3H 4H 5H 6H 9S 9C", "9D",
     [[["7S", "7H", "7D"], ["KS", "KH", "KD"]], [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]],
      # one meld more than the contract asks
      [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["9S", "9D", "9C"], ["3H", "4H", "5H", "6H"]]],
     [["7S", "7H", "7D"], ["KS", "KH", "KD"], ["3H", "4H", "5H", "6H"]]),
    (6, "7S 7H 7D 3H 4H 5H 6H 8C 9C 10C JC 2S", "2D",
     [[["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"]],
      [["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]],
     [["7S", "7H", "7D"], ["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]]),
]

# junk for seat 0 (two players); no card of it completes anything above
JUNK = "AS 2H 5D 9C 10S JH QD KC AH 3S 6C 8D"


@pytest.mark.parametrize(("contract_no", "deal", "draw", "wrong", "right"), CONTRACT_CASES)
def test_contracts_one_to_six(contract_no: int, deal: str, draw: str,
                              wrong: list[list[list[str]]], right: list[list[str]]) -> None:
    size = len(deal.split())
    g = stacked_game("hoyle", [" ".join(JUNK.split()[:size]), deal], upcard="JD", stock=draw,
                     overrides={"hands": [contract_no]}, contract_no=contract_no)
    draw_and_all_pass(g, 1)
    for melds in wrong:  # too few melds, the wrong kinds, or an extra meld
        illegal(g, player=1, type="go_down", melds=melds)
    act(g, player=1, type="go_down", melds=right)
    assert g.down == [False, True]
    assert table(g) == [" ".join(m) for m in right]
    # what is left in hand: the deal plus the drawn card less the melded cards
    left = Counter(C(deal + " " + draw))
    left.subtract(C(" ".join(" ".join(m) for m in right)))
    assert Counter(g.hands[1]) == +left


def test_hand_seven_two_sets_of_three_and_run_of_seven_all_out() -> None:
    # seat 1 holds 13 cards after drawing KH: 7S 7D 7C / KS KD KC / 7H..KH (seven hearts)
    g = stacked_game("hoyle", ["AS JK 2H 5D 9C 10S JH QD KC AH JK 3S",
                               "7S 7D 7C KS KD KC 7H 8H 9H 10H JH QH"],
                     upcard="4D", stock="KH", overrides={"hands": [7]}, contract_no=7)
    draw_and_all_pass(g, 1)
    # the same 13 cards as sets of four and a run of five: the sizes are wrong
    illegal(g, player=1, type="go_down",
            melds=[["7S", "7D", "7C", "7H"], ["KS", "KD", "KC", "KH"],
                   ["8H", "9H", "10H", "JH", "QH"]])
    # sets of three and a run of six (8H..KH): leaves 7H in hand, and the run is not seven
    illegal(g, player=1, type="go_down",
            melds=[["7S", "7D", "7C"], ["KS", "KD", "KC"], ["8H", "9H", "10H", "JH", "QH", "KH"]])
    act(g, player=1, type="go_down",
        melds=[["7S", "7D", "7C"], ["KS", "KD", "KC"],
               ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]])
    # out at once with no discard; the one-hand game is over.
    # seat 0: A JK 2 5 9 10 J Q K A JK 3 = 25+50+5+5+5+10+10+10+10+25+50+5 = 210
    assert g.scores == [[210, 0]]
    assert g.over and g.winners == (1,)
    assert g.discard == C("4D")


def test_hand_seven_a_buyer_cannot_go_out() -> None:
    # the dealer (seat 0) buys the upcard: 12 + KH + penalty 2C, then draws 4S: 15 cards, and a
    # go-down must meld every card in sets of exactly 3 and a run of exactly 7 (13 cards)
    g = stacked_game("hoyle", ["7S 7D 7C KS KD KC 7H 8H 9H 10H JH QH",
                               "AS JK 2H 5D 9C 10S JH QD KC AH JK 3S"],
                     upcard="KH", stock="2C 6D 4S", overrides={"hands": [7]}, contract_no=7)
    act(g, player=1, type="draw")
    act(g, player=0, type="buy")
    assert holds(g, 0, "7S 7D 7C KS KD KC 7H 8H 9H 10H JH QH KH 2C")
    assert holds(g, 1, "AS JK 2H 5D 9C 10S JH QD KC AH JK 3S 6D")
    act(g, player=1, type="discard", card="6D")
    act(g, player=0, type="draw")  # no one may buy 6D: seat 1 discarded it
    assert len(g.hands[0]) == 15
    illegal(g, player=0, type="go_down",
            melds=[["7S", "7D", "7C"], ["KS", "KD", "KC"],
                   ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]])
    assert not any(a.type == "go_down" for a in g.iter_legal(0))


# ---------------------------------------------------------------- runs -------------------------
def test_runs_four_or_more_ace_high_or_low_never_round_the_corner() -> None:
    g = stacked_game("hoyle", ["AS 2D 5D 9S 10S JD QD KC 6C 3S",
                               "JH QH KH AH 2H 3H 4H 8C 9C 10C"],
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
    assert holds(g, 1, "JH QH KH")


# ---------------------------------------------------------------- naturals ---------------------
def test_naturals_must_outnumber_wilds_in_a_set() -> None:
    g = stacked_game("hoyle", ["AS 2D 5D 9S 10S JD QD", "7S JK JK KS KH KD 4C"],
                     upcard="8D", stock="7H")
    draw_and_all_pass(g, 1)
    kings = ["KS", "KH", "KD"]
    illegal(g, player=1, type="go_down", melds=[["7S", "JK", "JK"], kings])  # 1 natural, 2 wild
    illegal(g, player=1, type="go_down", melds=[["7S", "7H", "JK", "JK"], kings])  # 2 and 2
    act(g, player=1, type="go_down", melds=[["7S", "7H", "JK"], kings])  # 2 naturals, 1 wild
    assert holds(g, 1, "JK 4C")


def test_naturals_must_outnumber_wilds_in_a_run() -> None:
    g = stacked_game("hoyle", ["AS 2D 5D 9S 10S JD QD KC 6C 3S",
                               "3H JK JK 6H 8C 9C 10C JC 4H KD"],
                     upcard="8D", stock="2S", overrides={"hands": [3]}, contract_no=3)
    draw_and_all_pass(g, 1)
    clubs = ["8C", "9C", "10C", "JC"]
    illegal(g, player=1, type="go_down", melds=[["3H", "JK", "JK", "6H"], clubs])  # 2 and 2
    act(g, player=1, type="go_down", melds=[["3H", "4H", "JK", "6H"], clubs])  # 3 and 1
    assert table(g) == ["3H 4H JK 6H", "8C 9C 10C JC"]
    assert holds(g, 1, "JK KD 2S")


# ---------------------------------------------------------------- buying -----------------------
def test_may_i_buy_takes_the_card_and_one_penalty_card_nearest_seat_first() -> None:
    # four players, dealer 0: seat 1 draws, then seats 2, 3, 0 are asked in that order
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH", "AS 2H 3C 4S 6D 7C 10H",
                               "5S 5H 5D 9S 9H 9D QC", "KS KH KD 8S 8H 8D 5C"],
                     upcard="QS", stock="2C 3D 4H")
    assert len(g.stock) == 108 - 28 - 1
    act(g, player=1, type="draw")
    assert g.to_act() == (2,)
    act(g, player=2, type="pass")
    illegal(g, player=0, type="buy")  # seat 3 comes first
    act(g, player=3, type="buy")
    # the buyer takes QS and the stock top 2C; only then does seat 1 get its card, 3D;
    # the dealer is never asked because the round ended with the buy
    assert holds(g, 3, "KS KH KD 8S 8H 8D 5C QS 2C")
    assert holds(g, 1, "AS 2H 3C 4S 6D 7C 10H 3D")
    assert g.discard == [] and len(g.stock) == 79 - 2  # penalty card + the draw
    assert phase_of(g) is Phase.PLAY and g.to_act() == (1,)


def test_deep_pickup_takes_every_card_above_and_one_penalty_card() -> None:
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH", "AS 2H 3C 4S 6D 7C 10H",
                               "5S 5H 5D 9S 9H 9D QC"],
                     upcard="KC", stock="QD 8S 6H")
    draw_and_all_pass(g, 1)  # seat 1 gets QD
    act(g, player=1, type="discard", card="4S")
    assert g.discard == C("KC 4S")
    stock = len(g.stock)  # 108 - 21 - 1 - 1 = 85
    assert stock == 85
    act(g, player=2, type="draw")
    # seat 1 discarded 4S: only seat 0 may buy
    assert g.to_act() == (0,)
    illegal(g, player=0, type="buy", depth=3)  # the pile holds two cards
    act(g, player=0, type="buy", depth=2)
    # depth 2: KC and the 4S above it, plus one penalty card (8S); then seat 2 draws 6H
    assert holds(g, 0, "AH 2D 3S 4D 6C 7S JH KC 4S 8S")
    assert holds(g, 2, "5S 5H 5D 9S 9H 9D QC 6H")
    assert g.discard == [] and len(g.stock) == stock - 2
    # with the pile empty the next player can only draw
    act(g, player=2, type="discard", card="QC")
    assert g.discard == C("QC")


def test_deep_pickup_leaves_the_cards_below() -> None:
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH", "AS 2H 3C 4S 6D 7C 10H",
                               "5S 5H 5D 9S 9H 9D QC"],
                     upcard="KC", stock="QD 8S 6H 2C")
    draw_and_all_pass(g, 1)  # QD
    act(g, player=1, type="discard", card="4S")
    draw_and_all_pass(g, 2)  # 8S; seat 0 passes on 4S
    act(g, player=2, type="discard", card="8S")
    assert g.discard == C("KC 4S 8S")
    act(g, player=0, type="draw")
    # seat 2 discarded 8S, so seat 1 is the only buyer; depth 2 is 4S and the 8S on it
    assert g.to_act() == (1,)
    act(g, player=1, type="buy", depth=2)
    assert holds(g, 1, "AS 2H 3C 6D 7C 10H QD 4S 8S 6H")  # + penalty 6H
    assert holds(g, 0, "AH 2D 3S 4D 6C 7S JH 2C")
    assert g.discard == C("KC")


# ---------------------------------------------------------------- going out / other ------------
def test_laying_off_the_last_card_ends_the_hand_at_once() -> None:
    # "extra layoff after down same turn": seat 1 goes down, then lays off 9C and 5C at once;
    # the last lay-off empties the hand, which ends it with no discard
    g = stacked_game("hoyle", ["AS JK 2H 8D 10C KH 3S", "5S 5H 5D 9S 9H 9D 9C"],
                     upcard="QD", stock="5C")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="lay_off", card="9C", meld=1)
    assert phase_of(g) is Phase.PLAY and holds(g, 1, "5C")
    act(g, player=1, type="lay_off", card="5C", meld=0)
    # seat 0: A JK 2 8 10 K 3 = 25+50+5+5+10+10+5 = 110
    assert g.scores == [[110, 0]]
    assert g.hand_number() == 2  # the next hand is already dealt


def test_discarding_the_last_card_goes_out_too() -> None:
    g = stacked_game("hoyle", ["AS JK 2H 8D 10C KH 3S", "5S 5H 5D 9S 9H 9D QC"],
                     upcard="QD", stock="5C")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="lay_off", card="5C", meld=0)
    act(g, player=1, type="discard", card="QC")
    assert g.scores == [[110, 0]]


# ---------------------------------------------------------------- playable discard -------------
def test_give_cards_caller_lays_it_off_and_the_others_give_from_the_discarders_left() -> None:
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH", "5S 5H 5D 9S 9H 9D QC",
                               "KS KH KD 8S 8H 8D 5C", "AS 2H 3C 4S 6D 7C 10H"],
                     upcard="KC", stock="2C 3D 4H")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")  # fits no meld: no window
    assert phase_of(g) is Phase.DRAW and g.to_act() == (2,)
    draw_and_all_pass(g, 2)  # seat 2 gets 3D
    act(g, player=2, type="go_down", melds=[["KS", "KH", "KD"], ["8S", "8H", "8D"]])
    act(g, player=2, type="discard", card="5C")
    # 5C fits seat 1's set of fives and seat 2 is down: every other seat is asked, from seat 3
    assert phase_of(g) is Phase.CALL and g.to_act() == (3,)
    act(g, player=3, type="pass")
    assert g.to_act() == (0,)
    illegal(g, player=0, type="call")  # the caller must say where the card goes
    illegal(g, player=0, type="call", meld=1)  # 5C does not fit the nines
    act(g, player=0, type="call", meld=0)
    assert table(g) == ["5S 5H 5D 5C", "9S 9H 9D", "KS KH KD", "8S 8H 8D"]
    # gives in seat order from the discarder's left: seat 3, then seat 0 (the caller too);
    # seat 1 holds one card (2C) and gives nothing
    assert phase_of(g) is Phase.GIVE and g.to_act() == (3,)
    illegal(g, player=0, type="give", card="AH")
    act(g, player=3, type="give", card="10H")
    act(g, player=0, type="give", card="JH")
    assert holds(g, 2, "3D 10H JH")
    assert holds(g, 3, "AS 2H 3C 4S 6D 7C")
    assert holds(g, 0, "AH 2D 3S 4D 6C 7S")
    assert holds(g, 1, "2C")
    # the pile top (QC) is not fresh: seat 3 draws with no buy round
    assert phase_of(g) is Phase.DRAW and g.to_act() == (3,)
    assert g.discard == C("KC QC")
    act(g, player=3, type="draw")
    assert phase_of(g) is Phase.PLAY and holds(g, 3, "AS 2H 3C 4S 6D 7C 4H")


def test_give_cards_only_for_other_players_melds() -> None:
    # fits_own_melds is off: seat 1's 5C fits only its own set, so no window opens
    g = stacked_game("hoyle", ["AS JK 2H 8D 10C KH 3S", "5S 5H 5D 9S 9H 9D 5C",
                               "AH 2D 3S 4D 6C 7S JH"], upcard="QD", stock="QC")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="5C")
    assert phase_of(g) is Phase.DRAW and g.to_act() == (2,)
    assert g.discard == C("QD 5C")
    # the discard is fresh: when seat 2 draws, seat 0 may buy it
    act(g, player=2, type="draw")
    assert phase_of(g) is Phase.BUY and g.to_act() == (0,)


def test_give_cards_needs_the_discarder_to_be_down() -> None:
    # seat 2 is not down: its 5C fits seat 1's set, but nothing happens
    g = stacked_game("hoyle", ["AS JK 2H 8D 10C KH 3S", "5S 5H 5D 9S 9H 9D QC",
                               "AH 2D 3S 4D 6C 7S 5C"], upcard="QD", stock="2C 3D")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)
    act(g, player=2, type="discard", card="5C")
    assert phase_of(g) is Phase.DRAW and g.to_act() == (0,)


def test_give_cards_never_follows_a_discard_that_goes_out() -> None:
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH", "5S 5H 5D 9S 9H 9D QC",
                               "KS KH KD 8S 8H 8D 5C"], upcard="KC", stock="2C 8C")
    draw_and_all_pass(g, 1)
    act(g, player=1, type="go_down", melds=[["5S", "5H", "5D"], ["9S", "9H", "9D"]])
    act(g, player=1, type="discard", card="QC")
    draw_and_all_pass(g, 2)  # seat 2 gets 8C
    act(g, player=2, type="go_down", melds=[["KS", "KH", "KD"], ["8S", "8H", "8D", "8C"]])
    # 5C fits seat 1's fives, but it is seat 2's last card: it goes out, no one calls
    act(g, player=2, type="discard", card="5C")
    # seat 0: A 2 3 4 6 7 J = 25+5+5+5+5+5+10 = 60; seat 1 holds 2C = 5
    assert g.scores == [[60, 5, 0]]
    assert g.hand_number() == 2 and phase_of(g) is Phase.DRAW


def test_give_cards_call_names_the_end_and_only_other_players_melds() -> None:
    # hand 3 (two runs): seat 2 discards a joker, which fits every run on the table
    g = stacked_game("hoyle", ["AH 2D 3S 4D 6C 7S JH 10D 9D 2S",
                               "3H 4H 5H 6H 8C 9C 10C JC QD KD",
                               "3S 4S 5S 6S 8D 9D 10D JD JK QC"],
                     upcard="KH", stock="2C AS", overrides={"hands": [3]}, contract_no=3)
    draw_and_all_pass(g, 1)  # 2C
    act(g, player=1, type="go_down", melds=[["3H", "4H", "5H", "6H"], ["8C", "9C", "10C", "JC"]])
    act(g, player=1, type="discard", card="QD")
    draw_and_all_pass(g, 2)  # AS
    act(g, player=2, type="go_down", melds=[["3S", "4S", "5S", "6S"], ["8D", "9D", "10D", "JD"]])
    act(g, player=2, type="discard", card="JK")
    assert phase_of(g) is Phase.CALL and g.to_act() == (0,)
    illegal(g, player=0, type="call", meld=0)  # either end of 3H..6H: say which
    illegal(g, player=0, type="call", meld=2, end="low")  # seat 2's own run does not count
    act(g, player=0, type="call", meld=0, end="low")
    assert table(g)[0] == "JK 3H 4H 5H 6H"
    # seat 0 (10 cards) and seat 1 (KD 2C) each give seat 2 a card
    assert phase_of(g) is Phase.GIVE and g.to_act() == (0,)
    act(g, player=0, type="give", card="2S")
    act(g, player=1, type="give", card="KD")
    assert holds(g, 2, "QC AS 2S KD") and holds(g, 1, "2C")
    assert phase_of(g) is Phase.DRAW and g.to_act() == (0,)
