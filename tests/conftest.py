"""Shared helpers for the tests: stacked games and actions written in the record's JSON form."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from liverpool.actions import Action
from liverpool.cards import Card, parse_cards
from liverpool.engine import Game, stacked_deck
from liverpool.rules import RuleSet


def C(text: str) -> list[Card]:
    """Cards from text: C("7H 8H JK")."""
    return parse_cards(text)


def stacked_game(preset: str, hands: Sequence[str], upcard: str, stock: str = "",
                 dealer: int = 0, overrides: dict[str, Any] | None = None,
                 names: Sequence[str] | None = None, contract_no: int | None = None,
                 more_deals: int = 0) -> Game:
    """A game whose first hand deals ``hands[s]`` (text) to seat s, turns ``upcard`` up and puts
    ``stock`` (first card drawn first) on top of the stock. With ``overrides={"hands": [k]}``
    pass ``contract_no=k`` so the deal size matches. ``more_deals``: stack nothing else but
    give that many further seeded hands."""
    rules = RuleSet.preset(preset, overrides or {})
    n = len(hands)
    if contract_no is None:
        contract_no = rules.hand_list()[0] if rules.progression == "all" else 1
    deck = stacked_deck(rules, n, dealer, [C(h) for h in hands], C(upcard)[0], C(stock),
                        contract_no=contract_no)
    return Game(rules, list(names) if names else n, seed=1, deals=[deck], first_dealer=dealer)


def act(game: Game, **fields: Any) -> None:
    """Apply an action given as record JSON fields: act(g, player=1, type="draw")."""
    game.apply(Action.from_json(fields))


def hand_of(game: Game, seat: int) -> list[str]:
    from liverpool.cards import card_str, sorted_cards
    return [card_str(c) for c in sorted_cards(game.hands[seat], game.rules.deuces_wild)]


@pytest.fixture
def stacked() -> Any:
    return stacked_game


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and every command it starts) keeps the terminal's profile, history and saved
    games in a folder of its own, never in the user's data directory."""
    monkeypatch.setenv("LIVERPOOL_DATA_DIR", str(tmp_path_factory.mktemp("data")))


def load_script(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``scripts/NAME.py`` loaded as a module (registered under its name for the test only)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module
