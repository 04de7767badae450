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


def test_split_room_counts_a_real_margin_but_not_the_luck_of_choosing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    script = load(monkeypatch)
    first, better, lucky = Action("draw", 0), Action("take_discard", 0), Action("no_draw", 0)
    # ``better`` saves 3 points in every playout: all of it is room
    assert script.split_room({first: [5.0] * 4, better: [2.0] * 4}, first) == 3.0
    # ``lucky`` is as good as ``first`` over all four playouts (mean 5), but better on one
    # half: the best mean of the whole would be chosen on that luck; valued on the other half
    # it loses what it won, so the room is not positive
    vals = {first: [5.0] * 4, lucky: [1.0, 1.0, 9.0, 9.0]}
    assert script.split_room(vals, first) == pytest.approx(-2.0)
    with pytest.raises(ValueError, match="two playouts"):
        script.split_room({first: [1.0], better: [0.0]}, first)


def test_room_groups_by_decision_kind_with_each_version_beside_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    script = load(monkeypatch)
    discard = point(1, "discard")
    view = discard["views"][0]
    alt = Action("discard", 0, card=view.hand[1])
    discard.update(legal=[discard["first"], alt],
                   vals={discard["first"]: [4.0, 4.0], alt: [2.0, 2.0]})
    take = point(2, "draw")
    take_alt = Action("take_discard", 0)
    take.update(legal=[take["first"], take_alt],
                vals={take["first"]: [1.0, 1.0], take_alt: [1.0, 1.0]})
    rows = script.room_rows([discard, take, discard],
                            {"a": [2.0, 0.0, None], "b": [0.0, 0.0, 2.0]})
    by_kind = {kind: (n, r, tags) for kind, n, r, tags in rows}
    assert set(by_kind) == {"discard, not down", "take, not down"}
    n, (room, _), tags = by_kind["discard, not down"]
    assert (n, room) == (2, 2.0)
    assert tags["a"][0] == 1.0  # the unjudged point counts as no gain
    assert tags["b"][0] == 1.0
    assert by_kind["take, not down"][1][0] == 0.0
    with pytest.raises(ValueError, match="not the same points"):
        script.room_rows([discard], {"a": [1.0, 2.0]})
