"""Small helpers the scenario tests share: refusing an action without changing the state,
drawing with everyone passing the buy round, reading hands and the table as text."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import C, act

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
