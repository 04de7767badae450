"""scripts/expert_oracle.py's ``where``: a version's gains split by the contract being played
and the kind of decision, each point counted once in its group and once in its contract's
"all"."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest
from conftest import load_script

from liverpool.actions import Action
from liverpool.engine import Game
from liverpool.rules import RuleSet


def load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return load_script("expert_oracle", monkeypatch)


def point(contract_no: int, first: str) -> dict[str, Any]:
    """A decision point of seat 0 in `standard`'s contract ``contract_no`` (1: two sets, 2: a
    set and a run, 3: two runs) whose basic choice is of type ``first``."""
    game = Game(RuleSet.preset("standard", {"hands": [contract_no]}), 4, seed=contract_no)
    view = game.view_for(0)
    card = view.hand[0] if first == "discard" else None
    return {"views": [view], "first": Action(first, 0, card=card)}


def test_where_groups_by_contract_and_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    script = load(monkeypatch)
    points = [point(1, "discard"), point(1, "discard"), point(1, "take_discard"),
              point(3, "draw"), point(2, "buy"), point(2, "discard")]
    gains = [-2.0, -4.0, 1.0, 0.5, None, 3.0]  # None: a point eval could not judge
    rows = {(k, d): (n, m, err) for k, d, n, m, err in script.where_rows(points, gains)}
    assert set(rows) == {("sets only", "discard"), ("sets only", "take, draw or buy"),
                         ("sets only", "all"), ("runs only", "take, draw or buy"),
                         ("runs only", "all"), ("sets and runs", "discard"),
                         ("sets and runs", "all")}
    assert rows["sets only", "discard"][:2] == (2, -3.0)
    assert rows["sets only", "discard"][2] == pytest.approx(1.0)  # sd sqrt(2) over sqrt(2)
    assert rows["sets only", "all"][:2] == (3, pytest.approx(-5.0 / 3))
    assert rows["sets only", "take, draw or buy"][0] == 1
    assert math.isinf(rows["sets only", "take, draw or buy"][2])  # one point: no error bar
    assert rows["sets and runs", "all"][:2] == (1, 3.0)  # the unjudged buy is left out


def test_where_refuses_gains_of_other_points(monkeypatch: pytest.MonkeyPatch) -> None:
    script = load(monkeypatch)
    with pytest.raises(ValueError, match="not the same points"):
        script.where_rows([point(1, "discard")], [1.0, 2.0])
