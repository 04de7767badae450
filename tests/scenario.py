"""Small helpers the scenario tests share: refusing an action without changing the state,
drawing with everyone passing the buy round, reading hands and the table as text, and a
`house` opening with two seats down."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import C, act, stacked_game

from liverpool.actions import Action
from liverpool.engine import Game, IllegalActionError, Phase


def holds(game: Game, seat: int, text: str) -> bool:
    """The seat holds exactly these cards (order ignored)."""
    return sorted(game.hands[seat]) == sorted(C(text))


def table(game: Game) -> list[str]:
    """The table melds as text, in table order."""
    return [str(m) for m in game.melds]


def legal(game: Game, **fields: Any) -> bool:
    return game.is_legal(Action.from_json(fields))


def illegal(game: Game, **fields: Any) -> None:
    """The action is refused and the state is left exactly as it was."""
    before = game.snapshot()
    with pytest.raises(IllegalActionError):
        act(game, **fields)
    assert game.snapshot() == before


def everything(game: Game) -> Counter[int]:
    """Every card in play: hands, melds, discard pile and stock."""
    out: Counter[int] = Counter(game.stock) + Counter(game.discard)
    for h in game.hands:
        out.update(h)
    for m in game.melds:
        out.update(m.cards)
    return out


def phase_of(game: Game) -> Phase:
    """The phase, read through a call so that type checkers do not narrow it between actions."""
    return game.phase


def pass_buys(game: Game) -> None:
    """Every seat asked in the open buy round passes."""
    while game.phase is Phase.BUY:
        act(game, player=game.to_act()[0], type="pass")


def draw_and_all_pass(game: Game, seat: int) -> None:
    """``seat`` draws from the stock and every seat asked in the buy round passes."""
    act(game, player=seat, type="draw")
    pass_buys(game)


def go_down(game: Game, seat: int, *melds: str) -> None:
    act(game, player=seat, type="go_down", melds=[m.split() for m in melds])


# A `house` opening (contract 1, two sets, nine cards; dealer 2, so seat 0 starts):
# seat 0 goes down alone, then seat 1 goes down and lays off at once.
HOUSE_SEAT0 = "7H 7C 7D 5S 5H 5D 8S 4C KS"
HOUSE_SEAT1 = "10S 10H 10D 10C 4S 4H 4D JH QS"
HOUSE_SEAT2 = "KD KC QD QC JD JC 9D JS QS"  # 6 x 10 + 5 + 2 x 10 = 85


def house_two_down(more_stock: str) -> Game:
    """Seats 0 and 1 down. Table: 0 7s (seat 0), 1 5s (seat 0, with 5C laid off by seat 1),
    2 10s (seat 1), 3 4s (seat 1). Hands: seat 0 8S 4C 7S; seat 1 JH; seat 2 HOUSE_SEAT2.
    Seat 2 to draw; the top discard is QS (fresh, from seat 1)."""
    g = stacked_game("house", [HOUSE_SEAT0, HOUSE_SEAT1, HOUSE_SEAT2], upcard="KH",
                     stock="7S 5C " + more_stock, dealer=2, overrides={"hands": [1]},
                     contract_no=1)
    draw_and_all_pass(g, 0)
    go_down(g, 0, "7H 7C 7D", "5S 5H 5D")
    act(g, player=0, type="discard", card="KS")
    draw_and_all_pass(g, 1)
    go_down(g, 1, "10S 10H 10D 10C", "4S 4H 4D")
    act(g, player=1, type="lay_off", card="5C", meld=1)
    act(g, player=1, type="discard", card="QS")
    return g
