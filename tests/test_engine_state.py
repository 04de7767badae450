"""The game state is declared once (engine.state): every declared field is set by every way a
game comes to be, the views show exactly the public fields, and a clone shares nothing that can
change."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from liverpool import compiled
from liverpool.engine import Game
from liverpool.engine.state import (
    COUNTERS,
    HIDDEN,
    LIST,
    LISTS,
    OPTIONAL_LIST,
    PUBLIC_FIELDS,
    RNG,
    STATE_FIELDS,
    GameState,
    public_fields,
)
from liverpool.engine.view import FIELDS as VIEW_FIELDS
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet

DERIVED_IN_VIEW = {"seat", "rules", "phase", "to_act", "hand_number", "contract", "hand",
                   "hand_sizes", "known", "stock_size", "ruleset"}


def _played(preset: str, actions: int, seed: int = 3) -> Game:
    game = Game(RuleSet.preset(preset), 4, seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if game.over:
            break
        game.apply(random_action(game, rng))
    return game


def test_the_view_shows_the_public_fields_under_their_names_and_nothing_hidden() -> None:
    view_fields = set(VIEW_FIELDS)
    assert set(PUBLIC_FIELDS) <= view_fields
    assert view_fields - set(PUBLIC_FIELDS) == DERIVED_IN_VIEW
    hidden = {name for name, _, view, _ in STATE_FIELDS if view == HIDDEN}
    assert hidden and not hidden & view_fields, "a hidden field leaked into the view"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_view_freezes_each_public_field_as_public_fields_does(preset: str) -> None:
    # view_for writes the public fields out for speed; public_fields derives them from the
    # declarations: the two must agree at every point of a game, for a seat and a spectator
    game = Game(RuleSet.preset(preset), 4, seed=8)
    rng = random.Random(8)
    checked = 0
    while not game.over and checked < 400:
        expected = public_fields(game)
        for seat in (0, None):
            view = game.view_for(seat)
            assert {name: getattr(view, name) for name in PUBLIC_FIELDS} == expected
        game.apply(random_action(game, rng))
        checked += 1
    assert checked > 100


def test_a_view_is_immutable_equal_by_value_and_rebuilt_from_its_fields() -> None:
    import copy
    import pickle

    view = _played("standard", 120).view_for(2)
    # FIELDS is the constructor's argument list: a copy through it is the same view
    assert view.replace() == view and hash(view.replace()) == hash(view)
    assert view.replace(turns=view.turns + 1) != view
    assert pickle.loads(pickle.dumps(view)) == view and copy.deepcopy(view) == view
    assert view.values() == tuple(getattr(view, name) for name in VIEW_FIELDS)
    with pytest.raises(TypeError, match="no field"):
        view.replace(colour="red")
    if compiled.core == "compiled":  # pure Python leaves Final to the type checker
        with pytest.raises(AttributeError):
            view.turns = 3  # type: ignore[misc]
    assert repr(view).startswith("SeatView(seat=2, players=")


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_declared_field_is_set_by_a_new_game_a_clone_and_a_world(preset: str) -> None:
    game = _played(preset, 150)
    names = [f.name for f in fields(GameState)]
    world = Game.from_view(game.view_for(1), random.Random(5))
    for g in (game, game.clone(), world):
        missing = [n for n in names if not hasattr(g, n)]
        assert not missing
    assert world.view_for(1) == game.view_for(1)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_clone_shares_nothing_that_can_change(preset: str) -> None:
    game = _played(preset, 200)
    copy = game.clone()
    assert copy.snapshot() == game.snapshot()
    for name, kind, _, _ in STATE_FIELDS:
        mine, theirs = getattr(game, name), getattr(copy, name)
        if kind in (LIST, LISTS, COUNTERS, RNG) or (kind == OPTIONAL_LIST and mine is not None):
            assert mine is not theirs, name
        if kind in (LISTS, COUNTERS):
            assert all(a is not b for a, b in zip(mine, theirs, strict=True)), name
    # the copy plays on without touching the original
    before = game.snapshot()
    rng = random.Random(9)
    for _ in range(100):
        if copy.over:
            break
        copy.apply(random_action(copy, rng))
    assert game.snapshot() == before
