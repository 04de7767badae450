"""A finished game's review over HTTP (``POST``/``GET /api/tables/{table}/review``): queued then
done with the review's JSON, kept in the store (a second ask, and a restarted server, make no
new review), limited per address and per player, refused when the queue is full, for a game not
over, and for a seat the game has not; and a table plays on while a review runs.

Domain words: *review* (what the expert's search thinks of every decision of one seat), *job*
(the making of one review, in the server's review processes), *gate* (what holds a test's
review running until the test lets it go: a file the review processes wait for).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx

from liverpool.review import Decision, Task
from liverpool.web import reviewwork

from .conftest import RELAXED, Served, finished_table, human_seats, play_turns, serve
from .test_server_old_db import OLD, PATIENT, manifest
from .test_server_players import auth, new_player

WORLDS = 2  # worlds per decision in these tests: enough for the JSON, quick to weigh
LIMITS = dataclasses.replace(RELAXED, review_worlds=WORLDS, review_rate="1000/hour",
                             review_player_rate="1000/hour")
KINDS = {"draw", "buy", "call", "go_down", "lay_off", "discard"}


def gated(gate: str, task: Task) -> Decision:
    """A decision weighed once the gate file exists (run in a review process)."""
    while not os.path.exists(gate):
        time.sleep(0.02)
    return reviewwork.decide(task)


def hold(srv: Served, gate: Path) -> None:
    srv.app.state.reviews.decide = functools.partial(gated, str(gate))


async def ask(srv: Served, tid: str, seat: Any, **kw: Any) -> httpx.Response:
    return await srv.http.post(f"/api/tables/{tid}/review", json={"seat": seat}, **kw)


async def until_status(srv: Served, tid: str, seat: int, want: set[str],
                       total: bool = False) -> dict[str, Any]:
    """The review's state once it is one of ``want`` (``total``: and its decisions counted)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 300  # only a guard against a hang
    while True:
        r = await srv.http.get(f"/api/tables/{tid}/review", params={"seat": seat})
        assert r.status_code in (200, 202), r.text
        out: dict[str, Any] = r.json()
        if out["status"] in want and (not total or out["progress"][1] > 0):
            return out
        assert out["status"] != "failed", out
        assert loop.time() < end, f"the review stayed {out}"
        await asyncio.sleep(0.05)


async def test_a_review_is_made_once_then_kept(db_url: str) -> None:
    async with serve(db_url, limits=LIMITS) as srv:
        tid, rec = await finished_table(srv)
        r = await ask(srv, tid, 1)
        assert r.status_code == 202 and r.json()["status"] in ("queued", "running"), r.text
        done = await until_status(srv, tid, 1, {"done"})
        review = done["review"]
        assert done["progress"][0] == done["progress"][1] > 0
        assert review["worlds"] == WORLDS and set(review["thresholds"]) == {
            "inaccuracy", "mistake", "blunder"}
        [seat] = review["seats"]
        assert seat["seat"] == 1 and seat["name"] == rec["players"][1]
        assert 0 <= seat["accuracy"] <= 100 and seat["mean_loss"] >= 0
        assert set(seat["labels"]) == {"inaccuracy", "mistake", "blunder"}
        assert set(seat["by_kind"]) <= KINDS
        decisions = seat["decisions"]
        assert len(decisions) == done["progress"][1]
        assert [d["index"] for d in decisions] == sorted(d["index"] for d in decisions)
        for d in decisions:
            # each one is an action the seat played, as the record has it
            assert rec["actions"][d["index"]]["player"] == 1
            assert d["action"]["type"] == rec["actions"][d["index"]]["type"]
            assert d["kind"] in KINDS and d["loss"] >= 0 and d["se"] >= 0
            assert d["label"] in (None, "inaccuracy", "mistake", "blunder")
            cands = d["candidates"]
            assert len(cands) >= 2 and cands[0]["action"] == d["best"]
            assert cands[0]["loss"] == 0 and d["action"] in [c["action"] for c in cands]
            assert [c["loss"] for c in cands] == sorted(c["loss"] for c in cands)
        assert set(seat["worst"]) <= {d["index"] for d in decisions if d["label"]}
        # asked again: the same review, made by no new job
        reviews = srv.app.state.reviews
        assert reviews.started == 1
        again = await ask(srv, tid, 1)
        assert again.status_code == 200 and again.json() == done
        assert reviews.started == 1
    # a restarted server finds it in the store
    async with serve(db_url, limits=LIMITS) as srv:
        got = await srv.http.get(f"/api/tables/{tid}/review", params={"seat": 1})
        assert got.status_code == 200 and got.json() == done
        assert (await ask(srv, tid, 1)).json() == done
        assert srv.app.state.reviews.started == 0
        # another seat was never asked for
        none = await srv.http.get(f"/api/tables/{tid}/review", params={"seat": 0})
        assert none.status_code == 404 and none.json()["error"] == "no_review"


async def test_new_reviews_are_limited_per_address_and_per_player(sqlite_url: str,
                                                                  tmp_path: Path) -> None:
    limits = dataclasses.replace(LIMITS, review_rate="2/hour", review_player_rate="1/hour")
    async with serve(sqlite_url, limits=limits) as srv:
        hold(srv, tmp_path / "go")
        tid, _ = await finished_table(srv)
        me = await new_player(srv, "Ann")
        assert (await ask(srv, tid, 0, headers=auth(me["key"]))).status_code == 202
        # the player has had their new review; asking for one being made costs nothing
        refused = await ask(srv, tid, 1, headers=auth(me["key"]))
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert (await ask(srv, tid, 0, headers=auth(me["key"]))).status_code == 202
        # as a guest from the same address: the address has one more
        assert (await ask(srv, tid, 1)).status_code == 202
        refused = await ask(srv, tid, 2)
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert "retry-after" in refused.headers
        assert srv.app.state.reviews.started == 2
        (tmp_path / "go").touch()
        await until_status(srv, tid, 1, {"done"})
        # a review made is free, for anybody
        assert (await ask(srv, tid, 0)).status_code == 200


async def test_a_full_queue_refuses_new_reviews(sqlite_url: str, tmp_path: Path) -> None:
    limits = dataclasses.replace(LIMITS, review_queue=1)
    async with serve(sqlite_url, limits=limits) as srv:
        hold(srv, tmp_path / "go")
        tid, _ = await finished_table(srv)
        assert (await ask(srv, tid, 0)).status_code == 202  # runs (held at the gate)
        second = await ask(srv, tid, 1)
        assert second.status_code == 202 and second.json()["status"] == "queued"
        busy = await ask(srv, tid, 2)
        assert busy.status_code == 503 and busy.json()["error"] == "busy"
        assert "review" in busy.json()["message"]
        assert srv.app.state.reviews.started == 2
        (tmp_path / "go").touch()
        await until_status(srv, tid, 1, {"done"})
        assert (await ask(srv, tid, 2)).status_code == 202  # room again


async def test_refusals_a_game_not_over_a_bad_seat_no_table(sqlite_url: str) -> None:
    async with serve(sqlite_url, limits=LIMITS) as srv:
        waiting = await srv.create(human_seats(1, 2))
        r = await ask(srv, waiting["table"]["id"], 0)
        assert r.status_code == 403 and r.json()["error"] == "not_over"
        r = await srv.http.get(f"/api/tables/{waiting['table']['id']}/review?seat=0")
        assert r.status_code == 403 and r.json()["error"] == "not_over"
        tid, _ = await finished_table(srv)
        for seat in (3, -1, "0", None, True, 1.5):
            r = await ask(srv, tid, seat)
            assert r.status_code == 400 and r.json()["field"] == "seat", (seat, r.text)
        for query in ("seat=3", "seat=x", "seat=-1", ""):
            r = await srv.http.get(f"/api/tables/{tid}/review?{query}")
            assert r.status_code == 400 and r.json()["field"] == "seat", (query, r.text)
        r = await ask(srv, "nosuchtable", 0)
        assert r.status_code == 404 and r.json()["error"] == "not_found"
        assert srv.app.state.reviews.started == 0


async def test_a_table_plays_on_while_a_review_runs(sqlite_url: str, tmp_path: Path) -> None:
    async with serve(sqlite_url, limits=LIMITS) as srv:
        hold(srv, tmp_path / "go")
        done, _ = await finished_table(srv)
        assert (await ask(srv, done, 0)).status_code == 202
        await until_status(srv, done, 0, {"running"}, total=True)
        # a new game: its person plays a whole hand's moves while the review is held running
        t = await srv.create(human_seats(1, 2), overrides={"hands": [1]})
        tid = t["table"]["id"]
        assert (await srv.http.post(f"/api/tables/{tid}/start",
                                    json={"token": t["token"]})).status_code == 200
        c = await srv.client(tid, t["token"])
        played = 0

        def counted(m: dict[str, Any]) -> bool:
            nonlocal played
            if m["type"] == "update" and (m.get("action") or {}).get("player") == 0:
                played += 1
            return played >= 6
        await play_turns(c, counted, timeout=120)
        await c.close()
        assert played >= 6
        state = (await srv.http.get(f"/api/tables/{done}/review?seat=0")).json()
        assert state["status"] == "running" and state["progress"][0] < state["progress"][1]
        (tmp_path / "go").touch()
        await until_status(srv, done, 0, {"done"})


async def test_a_database_of_an_older_version_keeps_reviews_too(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copyfile(OLD, db)
    with sqlite3.connect(db) as conn:  # made before reviews: it has no table for them
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'lv_reviews'"
                                ).fetchall()
    over = next(t for t in manifest()["tables"] if t["status"] == "over")
    limits = dataclasses.replace(PATIENT, review_worlds=WORLDS)
    async with serve(str(db), limits=limits, grace=600) as srv:
        assert (await ask(srv, over["id"], 0)).status_code == 202
        done = await until_status(srv, over["id"], 0, {"done"})
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT table_id, seat, worlds FROM lv_reviews").fetchall()
    assert rows == [(over["id"], 0, WORLDS)]
    assert done["review"]["seats"][0]["name"] == over["players"][0]
