"""The replay of a finished game, built by the server with the engine (``GET
/api/tables/{table}/replay``): refused until the game is over, then every step as the engine has
it, the hand ends as they were scored, the live log's lines, and computed once per table.

Domain words: step (the table after the deal of a hand or one action), hand end (the board a
hand was scored on), record.
"""

from __future__ import annotations

from typing import Any

import pytest

from liverpool.actions import Action
from liverpool.cards import card_str, parse_card
from liverpool.engine import Game
from liverpool.randomplay import random_game
from liverpool.record import game_record, new_game_from_record
from liverpool.rules import RuleSet
from liverpool.web import replay as replay_module
from liverpool.web.replay import replay_steps

from .conftest import finished_table, serve


def _board(game: Any) -> dict[str, Any]:
    v = game.view_for(0)
    return {"melds": [m.to_json() for m in v.melds], "sizes": list(v.hand_sizes),
            "discard": card_str(v.discard[-1]) if v.discard else None,
            "stock": v.stock_size, "down": list(v.down), "buys": list(v.buys),
            "totals": list(v.totals),
            "hands": [[card_str(c) for c in game.view_for(s).hand] for s in range(game.n)]}


async def test_replay_steps_are_the_engines(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, rec = await finished_table(srv)
        r = await srv.http.get(f"/api/tables/{tid}/replay")
        assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
        rp = r.json()
        steps = rp["steps"]
        actions = rec["actions"]
        # one step per action, plus the deal of each of the two hands
        assert len(steps) == len(actions) + 2 and rp["actions"] == len(actions)
        assert [s["kind"] for s in steps].count("deal") == 2
        assert [s["kind"] for s in steps].count("hand_end") == 2
        assert steps[0]["kind"] == "deal" and steps[0]["hand"] == 1
        game = new_game_from_record({**rec, "actions": []})
        rules = RuleSet.preset(rec["rules"]["preset"], rec["rules"]["overrides"])
        k = 0
        for step in steps:
            want = _board(game)
            got = {key: step[key] for key in want}
            if step["kind"] == "deal":
                assert got == want and step["seat"] is None and "dealt" in step["event"]
                continue
            a = Action.from_json(actions[k])
            k += 1
            assert step["seat"] == a.player
            hand = game.hand_number()
            game.apply(a)
            assert step["hand"] == hand
            if step["kind"] == "action":
                assert got == _board(game), (k, actions[k - 1])
                continue
            # a hand end: the hands as they were scored, before the next deal
            assert step["points"] == game.scores[-1] and step["totals"] == list(game.totals)
            for s, cards in enumerate(step["hands"]):
                assert step["points"][s] == sum(rules.points(parse_card(c)) for c in cards)
            assert step["event"].endswith(", ".join(
                f"{rp['players'][s]} {p}" for s, p in enumerate(step["points"]))) or \
                "Game over" in step["event"]
        assert k == len(actions) and game.over
        assert rp["scores"] == [list(r) for r in game.scores]
        assert rp["winners"] == list(game.winners) and rp["totals"] == list(game.totals)
        # the live log's events are the replay's (the replay shows the cards the live table
        # hid from a spectator, so the events are compared by kind and seat)
        c = await srv.client(tid, None)
        await c.until(lambda m: m["type"] == "sync")
        log = [(e["type"], e.get("seat")) for e in c.messages[-1]["log"]]
        events = [(e["type"], e.get("seat")) for s in steps[1:] for e in s["events"]]
        assert log and events[-len(log):] == log
        await c.close()


async def test_replay_is_computed_once_per_table(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, _ = await finished_table(srv, preset="hoyle", seed=5)
        registry = srv.app.state.registry
        assert tid not in registry.replays
        first = await srv.http.get(f"/api/tables/{tid}/replay",
                                   headers={"accept-encoding": "identity"})
        assert first.status_code == 200 and "content-encoding" not in first.headers
        cached = registry.replays[tid]
        again = await srv.http.get(f"/api/tables/{tid}/replay")
        assert registry.replays[tid] is cached
        assert again.json() == first.json()
        r = await srv.http.get("/api/tables/nosuchtable/replay")
        assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_a_replay_searches_within_the_servers_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a replay checks every action again: it searches go-downs within the budget
    the table played with (a replay is asked by any client), with the same answers."""
    rules = RuleSet.preset("standard", {"hands": [1]})
    rec = game_record(random_game(rules, 3, seed=4))
    games: list[Game] = []

    def keep(record: Any, search_budget: int | None = None) -> Game:
        games.append(new_game_from_record(record, search_budget=search_budget))
        return games[-1]

    monkeypatch.setattr(replay_module, "new_game_from_record", keep)
    budgeted = replay_steps(rec, 4321)
    assert [g.search_budget for g in games] == [4321]
    assert replay_steps(rec) == budgeted and games[-1].search_budget is None
