"""Out-of-turn requests (liverpool.outofturn) on stacked deals: who may ask to buy and why not
(the player on turn, the discarder, a down player where down players may not take the discard,
the buy limit, a stock too low once the drawer's card is counted), a refused request changing
nothing, a request forgotten when its window ends, and how the next step of a buy round or
call window is chosen (a seat asked later may ask ahead; a no is recorded at once)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import act, stacked_game
from scenario import pass_buys

from liverpool.actions import Action
from liverpool.engine import Game, IllegalActionError, Phase
from liverpool.outofturn import Requests, after_silence, kind_now, window_key

# standard, 3 players, dealer 0: seat 1 plays first on the upcard KC; the stock starts QC 5D
S0 = "AH 3H 4H 5H 6S 8S 10H JS QS 2C"
S1 = "7H 7S 7D 9D 9C 9S 7C 4C 6D KD"
S2 = "AS 3S 5S 6H 8H 10S JH QH KS 4D"


def std3(overrides: dict[str, Any] | None = None, stock: str = "QC 5D 8D 3C 4S 6C") -> Game:
    return stacked_game("standard", [S0, S1, S2], upcard="KC", stock=stock, overrides=overrides)


def do(game: Game, *steps: tuple[int, str] | tuple[int, str, str]) -> None:
    """Apply (seat, type) or (seat, "discard", card) steps."""
    for step in steps:
        if len(step) == 3:
            act(game, player=step[0], type=step[1], card=step[2])
        else:
            act(game, player=step[0], type=step[1])


# ---- who may ask, and why not --------------------------------------------------------------

def test_the_player_on_turn_may_not_ask_the_others_may() -> None:
    g = std3()
    assert g.phase is Phase.DRAW and g.turn == 1 and kind_now(g) == "buy"
    assert g.why_no_request(1) == "it is your turn: take the discard instead of buying it"
    assert g.request_kinds(1) == ()
    assert g.why_no_request(2) is None and g.request_kinds(2) == ("buy",)
    assert g.why_no_request(0) is None  # the dealer may buy the opening upcard


def test_the_discarder_may_not_buy_its_discard_back() -> None:
    g = std3()
    do(g, (1, "draw"))
    pass_buys(g)
    do(g, (1, "discard", "4C"))
    assert g.turn == 2 and g.discarder == 1
    assert g.why_no_request(1) == "you threw that card away: you cannot buy it back"
    assert g.request_kinds(0) == ("buy",)


def test_a_down_player_may_not_ask_where_down_players_may_not_take_the_discard() -> None:
    # classic deals 11; seat 1 goes down with 7s and 9s, then seat 2 discards 5D
    hands = ["AH 3H 4H 5H 6S 8S 10H JS QS 2C 3D", "7H 7S 7D 9D 9C 9S 4C 6D 8C KD JH",
             "AS 3S 5S 6H 8H 10S JH QH KS 4D 5C"]
    for allowed in (False, True):
        g = stacked_game("classic", hands, upcard="KC", stock="QC 5D 8D 3C",
                         overrides={"down_may_take_discard": allowed})
        do(g, (1, "draw"))
        pass_buys(g)
        act(g, player=1, type="go_down", melds=[["7H", "7S", "7D"], ["9D", "9C", "9S"]])
        do(g, (1, "discard", "KD"), (2, "draw"))
        pass_buys(g)
        do(g, (2, "discard", "5D"))
        assert g.turn == 0 and g.down[1]
        if allowed:
            assert g.why_no_request(1) is None
        else:
            assert g.why_no_request(1) == \
                "you are down: in these rules you may not take the discard"
            assert g.request_kinds(1) == ()


def test_the_buy_limit() -> None:
    g = std3({"max_buys": 1})
    do(g, (1, "draw"), (2, "buy"), (1, "discard", "5D"),  # seat 2 used its one buy
       (2, "draw"))
    pass_buys(g)
    do(g, (2, "discard", "8D"), (0, "draw"))
    pass_buys(g)
    do(g, (0, "discard", "3C"))
    assert g.turn == 1 and g.phase is Phase.DRAW and g.buys[2] == 1
    assert g.why_no_request(2) == "you have bought 1 times: the limit is 1"
    assert g.why_no_request(0) == "you threw that card away: you cannot buy it back"


# one deck without jokers, 16 cards each to 3 players: 48 + the upcard 10C + a stock of 3
_TINY = {"decks": 1, "jokers_per_deck": 0, "deal_sizes": [16],
         "contracts": [{"sets": 2, "runs": 0}]}
_TINY_HANDS = ["7D 8D 9D 10D JD QD KD AC 2C 3C 4C 5C 6C 7C 8C 9C",
               "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H",
               "4H 5H 6H 7H 8H 9H 10H JH QH KH AD 2D 3D 4D 5D 6D"]


@pytest.mark.parametrize("renewals", [0, 1])
def test_a_stock_too_low_once_the_drawer_draws(renewals: int) -> None:
    g = stacked_game("standard", _TINY_HANDS, upcard="10C", stock="JC QC KC",
                     overrides={**_TINY, "stock_reshuffles": renewals})
    do(g, (1, "draw"))
    pass_buys(g)
    do(g, (1, "discard", "AS"), (2, "draw"))
    pass_buys(g)
    do(g, (2, "discard", "QC"))
    # one card in the stock: enough for the penalty card, not for it and the drawer's card,
    # unless the pile below the top can renew the stock
    assert len(g.stock) == 1 and g.turn == 0
    if renewals:
        assert g.why_no_request(1) is None
    else:
        assert g.why_no_request(1) == "the stock is too low to pay the penalty card"


def test_no_request_without_a_fresh_discard() -> None:
    g = std3({"buying": False})
    assert g.why_no_request(2) == "there is no discard to buy now"
    assert window_key(g) is None and kind_now(g) is None


# ---- asking --------------------------------------------------------------------------------

def test_a_refused_request_says_why_and_changes_nothing() -> None:
    g = std3()
    r = Requests()
    r.ask(g, 2)
    before, wanted, declined = g.snapshot(), dict(r.wanted), set(r.declined)
    with pytest.raises(IllegalActionError) as refused:
        r.ask(g, 1)
    assert str(refused.value) == g.why_no_request(1)
    with pytest.raises(IllegalActionError, match="only ask to buy"):
        r.ask(g, 0, Action("call", 0))
    assert g.snapshot() == before and r.wanted == wanted and r.declined == declined


def test_a_request_lasts_its_window_and_no_longer() -> None:
    g = std3()
    r = Requests()
    assert r.ask(g, 0) == Action("buy", 0)
    do(g, (1, "draw"))  # the buy round over the same discard: the same window
    assert not r.sync(g) and r.seats("buy") == [0]
    pass_buys(g)  # the round ends without it being settled: the window is over
    assert r.sync(g) and r.wanted == {} and r.key is None
    assert not r.sync(g)  # nothing more to forget


def test_a_request_is_forgotten_when_the_player_takes_the_discard() -> None:
    g = std3()
    r = Requests()
    r.ask(g, 2)
    r.answer(g, 0, Action("pass", 0))
    do(g, (1, "take_discard"))
    assert r.sync(g) and r.wanted == {} and r.declined == set()


def test_withdraw() -> None:
    g = std3()
    r = Requests()
    r.ask(g, 2)
    assert r.withdraw(g, 2) and not r.withdraw(g, 2) and r.wanted == {}


# ---- the next step of a window -------------------------------------------------------------

def test_a_seat_asked_later_may_ask_ahead_in_a_seat_priority_round() -> None:
    g = std3()
    do(g, (1, "draw"))
    assert g.to_act() == (2,) and g.asked == [2, 0]
    r = Requests()
    r.ask(g, 0)  # not seat 0's turn to answer yet: its request waits for it
    assert r.next_step(g, answers=[2]) == 2  # seat 2 is asked first
    r.answer(g, 2, Action("pass", 2))
    assert r.next_step(g, answers=[2]) == Action("pass", 2)
    g.apply(Action("pass", 2))
    assert r.next_step(g, answers=[2]) == Action("buy", 0)


def test_a_no_in_a_first_call_round_is_recorded_at_once() -> None:
    g = std3({"buy_priority": "first_call"})
    do(g, (1, "draw"))
    r = Requests()
    # people first: seat 0 is asked before seat 2, though seat 2 sits nearer the drawer's left
    assert r.next_step(g, answers=[0, 2], people=[0]) == 0
    r.answer(g, 0, Action("pass", 0))
    assert r.next_step(g, answers=[0, 2], people=[0]) == Action("pass", 0)
    g.apply(Action("pass", 0))
    assert r.next_step(g, answers=[0, 2], people=[0]) == 2


def test_silence_is_a_pass() -> None:
    g = std3()
    do(g, (1, "draw"))
    assert Requests().next_step(g, answers=()) == Action("pass", 2)
    quiet = after_silence(g)
    assert quiet.phase is Phase.PLAY and quiet.turn == 1 and g.phase is Phase.BUY
    assert Requests().next_step(quiet, answers=()) is None
