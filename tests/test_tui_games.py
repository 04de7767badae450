"""Whole games in the Textual app with the keyboard alone: at each of the person's decisions a
basic player's choice is turned into the keys a person would press (cursor moves, menu digits,
Enter), under several presets, so every kind of decision the rules ask goes through the keys:
buys and deep pickups, calls, gives, cuts, go-downs, lay-offs with their ends, swaps."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from liverpool.actions import Action
from liverpool.bots import BasicBot
from liverpool.engine import SeatView
from liverpool.record import replay
from liverpool.rules import RuleSet
from liverpool.tui.app import PlayApp
from liverpool.tui.session import Session
from liverpool.tui.text import sort_hand
from liverpool.tui.widgets import Menu, Notice


def number_keys(n: int, numbers: Sequence[int]) -> list[str]:
    """The keys that pick choice [n] of a menu numbered ``numbers``: its digits, then Enter
    when they also begin a longer number."""
    keys = list(str(n))
    if any(m != n and str(m).startswith(str(n)) for m in numbers):
        keys.append("enter")
    return keys


def menu_keys(i: int, count: int) -> list[str]:
    """Choice ``i`` (from 0) of a menu numbered 1, 2, 3..."""
    return number_keys(i + 1, range(1, count + 1))


def keys_for(a: Action, view: SeatView, legal: Sequence[Action]) -> list[str]:
    """The keys that make the app apply ``a`` (the cursor starts anywhere)."""
    hand = sort_hand(view.hand, "suit", view.ruleset.deuces_wild)

    def cursor(card: int | None) -> list[str]:
        assert card is not None
        return ["home", *["right"] * hand.index(card)]

    t = a.type
    simple = {"take_discard": ["t"], "draw": ["d"], "no_draw": ["n"], "pass": ["p"],
              "cut": ["c"]}
    if t in simple:
        return simple[t]
    if t == "buy":
        buys = [x for x in legal if x.type == "buy"]
        return ["b"] + (menu_keys(buys.index(a), len(buys)) if len(buys) > 1 else [])
    if t == "call":
        calls = [x for x in legal if x.type == "call"]
        if len(calls) == 1:
            return ["c"]
        if any(x.meld is None for x in calls):
            return ["c", *menu_keys(calls.index(a), len(calls))]
        assert a.meld is not None
        melds = sorted({x.meld for x in calls if x.meld is not None})
        here = [x for x in calls if x.meld == a.meld]
        ends = menu_keys(here.index(a), len(here)) if len(here) > 1 else []
        return ["c", *number_keys(a.meld, melds), *ends]
    if t == "discard":
        return [*cursor(a.card), "d"]
    if t == "give":
        return [*cursor(a.card), "g"]
    if t == "go_down":
        return ["g", "a"]
    if t in ("lay_off", "swap_joker"):
        assert a.meld is not None
        # the meld menu lists every meld on the table by its own number
        keys = [*cursor(a.card), "l" if t == "lay_off" else "j",
                *number_keys(a.meld, range(len(view.melds)))]
        same = [x for x in legal if x.type == t and x.card == a.card and x.meld == a.meld]
        if len(same) > 1:
            keys += menu_keys(same.index(a), len(same))
        return keys
    raise AssertionError(f"no keys for {a}")


# short games (the whole 7-hand game is played in plain mode and was tried in a terminal)
GAMES = [
    ("standard", 4, {"hands": [2]}),
    ("hoyle", 3, {"hands": [2]}),
    ("arena", 3, {"hands": [5]}),
    ("house", 3, {"hands": [3]}),
    ("standard", 3, {"cut_bonus": 50, "hands": [2, 3], "buy_priority": "first_call"}),
]


@pytest.mark.parametrize(("preset", "players", "overrides"), GAMES,
                         ids=[f"{p}-{n}-{len(o)}" for p, n, o in GAMES])
async def test_a_whole_game_with_the_keyboard(tmp_path: Path, preset: str, players: int,
                                              overrides: dict[str, object]) -> None:
    session = Session.new(RuleSet.preset(preset, overrides), players, "basic", "You",
                          seed=31, save=str(tmp_path / "g.json"))
    game = session.game
    app = PlayApp(session, pace=0)
    bot = BasicBot()
    rng = random.Random(2)
    kinds: set[str] = set()
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        for _ in range(3000):
            if isinstance(app.screen, Notice):
                await pilot.press("enter")
                continue
            if game.over:
                break
            assert not isinstance(app.screen, Menu)
            assert session.human_to_act(), "the bots stopped before the person's decision"
            view = session.view()
            legal = session.legal()
            a = bot.choose(view, legal, rng)
            before = len(game.actions)
            await pilot.press(*keys_for(a, view, legal))
            assert app.errors == [], app.errors
            assert len(game.actions) > before
            done = game.actions[before]
            # the cut key lifts a random count (a person cannot count the cards they lift)
            assert done == a or (a.type == done.type == "cut")
            kinds.add(a.type)
        assert game.over
        assert "game over" in str(app.query_one("#title").render())
    if "cut_bonus" in overrides:
        assert "cut" in kinds  # hand 2 is cut by seat 0
    assert {"draw", "discard"} <= kinds
    rec = json.loads((tmp_path / "g.json").read_text())
    assert replay(rec).game.totals == game.totals
