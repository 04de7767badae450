"""The view's JSON, which external bots (and ``liverpool bot``) rebuild the game's public state
from: ``SeatView.from_json`` inverts ``to_json`` at every decision of random games of every
preset (a run that reads two ways with deuces wild included), and the JSON holds nothing hidden.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liverpool.cards import parse_cards
from liverpool.engine import Game, SeatView
from liverpool.melds import RUN, Meld
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet

RULES = {name: RuleSet.preset(name) for name in PRESET_NAMES}
# the keys to_json wrote before the bot could rebuild the whole public state, and those added
OLD_KEYS = {"seat", "players", "rules", "phase", "to_act", "hand_number", "contract", "dealer",
            "turn", "hand", "hand_sizes", "known", "melds", "discard", "fresh", "stock_size",
            "down", "floating", "out", "buys", "progress", "scores", "totals", "penalties",
            "taken", "must_play", "winners", "discarder", "asked"}
NEW_KEYS = {"hand_index", "window_mode", "pending_draw", "reshuffles", "turns_played",
            "final_queue", "bonus_caller", "go_down_swaps", "went_down_this_turn",
            "must_lay_off", "bonus_laid_off"}


# ---- the view's JSON -----------------------------------------------------------------------

def round_trip(view: SeatView, rules: RuleSet) -> SeatView:
    return SeatView.from_json(json.loads(json.dumps(view.to_json())), rules)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_view_json_round_trip(preset: str, data: st.DataObject) -> None:
    """At every decision of a random game, each acting seat's view survives its JSON."""
    rules = RULES[preset]
    players = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed * 7919 + 1)
    while True:
        for seat in game.to_act() or range(players):
            view = game.view_for(seat)
            assert set(view.to_json()) == OLD_KEYS | NEW_KEYS
            assert round_trip(view, rules) == view, f"action {len(game.actions)}, seat {seat}"
        if game.over:
            break
        game.apply(random_action(game, rng))


def test_a_run_that_reads_two_ways_keeps_its_suit() -> None:
    """With deuces wild, 2C 2H JK is A-3 of hearts or 2-4 of clubs: the JSON says which."""
    rules = RULES["house"]
    view = Game(rules, 3, seed=1).view_for(0)
    hearts = Meld(1, RUN, tuple(parse_cards("2C 2H JK")), 1, 1)  # suit 1 = hearts, from the ace
    clubs = Meld(2, RUN, tuple(parse_cards("2C 2H JK")), 3, 2)
    view = dataclasses.replace(view, melds=(hearts, clubs))
    assert [(m["suit"], m["low"]) for m in view.to_json()["melds"]] == [("H", 1), ("C", 2)]
    assert round_trip(view, rules) == view


def test_a_view_from_an_earlier_host_still_reads() -> None:
    """Without the new keys (a host of an earlier version), a view rebuilds with turn-start
    values; a view that is not one is refused with ValueError."""
    rules = RULES["standard"]
    view = Game(rules, 4, seed=3).view_for(1)
    old = {k: v for k, v in view.to_json().items() if k in OLD_KEYS}
    for meld in old["melds"]:
        meld.pop("suit", None)
        meld.pop("low", None)
    # the first decision of a hand: only the count of turns played is not known
    assert SeatView.from_json(old, rules) == dataclasses.replace(view, turns=0)
    for bad in ([], {"seat": 0}, {**view.to_json(), "hand": ["ZZ"]},
                {**view.to_json(), "down": [1, 0, 0, 0]}):
        with pytest.raises(ValueError):
            SeatView.from_json(bad, rules)


def test_the_view_json_shows_nothing_hidden() -> None:
    """The new keys are public: the view's JSON is the same in a world where every card hidden
    from the seat lies elsewhere, and it names no seed and no stock card."""
    rules = RULES["arena"]
    game = Game(rules, 4, seed=11)
    rng = random.Random(5)
    for _ in range(200):
        game.apply(random_action(game, rng))
    for seat in range(4):
        world = game.determinized(seat, random.Random(seat))
        assert world.view_for(seat).to_json() == game.view_for(seat).to_json()
        text = json.dumps(game.view_for(seat).to_json())
        assert "seed" not in text and "stock\"" not in text
