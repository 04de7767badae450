"""A table's life in the server's memory and the database refusing writes: a finished table is
let go once nobody is connected and reloaded from the store on demand; a write the database
refuses is an error to the client (``storage``) and changes nothing.

Domain words: eviction (a finished table's owner leaves memory; its events stay stored),
refused write (the database aborts the insert; here an SQLite trigger does it).
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from .conftest import finished_table, human_seats, serve


async def _until(pred: Any, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        assert loop.time() < end, "the condition did not hold in time"
        await asyncio.sleep(0.02)


async def test_a_finished_table_leaves_memory_and_comes_back(sqlite_url: str) -> None:
    async with serve(sqlite_url, evict_after=0.2) as srv:
        owners = srv.app.state.registry.owners
        tid, rec = await finished_table(srv)
        # nobody is connected: the owner goes, the record stays in the store
        await _until(lambda: tid not in owners)
        # loaded again on demand (and let go again once idle: how soon is the machine's affair)
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        assert summary["status"] == "over"
        assert (await srv.http.get(f"/api/tables/{tid}/record")).json() == rec
        await _until(lambda: tid not in owners)
        # a spectator keeps it in memory while connected
        c = await srv.client(tid, None)
        sync = await c.until(lambda m: m["type"] == "sync")
        assert sync["view"]["phase"] == "over" and sync["log"]
        owner = owners[tid]
        await asyncio.sleep(0.5)
        assert owners.get(tid) is owner
        # a finished table takes no joins, whether in memory or not
        r = await srv.join(tid, "Zed")
        assert r.status_code == 409 and r.json()["error"] == "started"
        await c.close()
        await _until(lambda: tid not in owners)
        await _until(lambda: owner.stopped)  # its stop runs as a task of its own
        # a table still playing is never let go
        t = await srv.create(human_seats(3))
        await srv.http.post(f"/api/tables/{t['table']['id']}/start",
                            json={"token": t["token"]})
        await asyncio.sleep(0.5)
        assert t["table"]["id"] in owners


def _refuse(db: str, on: bool) -> None:
    """Make the database itself refuse new events (or accept them again)."""
    with sqlite3.connect(db) as conn:
        if on:
            conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON lv_events "
                         "BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        else:
            conn.execute("DROP TRIGGER refuse")


async def test_a_refused_write_is_an_error_and_changes_nothing(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        t = await srv.create(human_seats(3), nickname="Ann")
        tid = t["table"]["id"]
        tokens = [t["token"]]
        for name in ("Bob", "Cy"):
            tokens.append((await srv.join(tid, name)).json()["token"])
        other = await srv.create(human_seats(3), nickname="Dee")
        a, b = await srv.client(tid, tokens[0]), await srv.client(tid, tokens[1])
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        sync = await b.until(lambda m: m["type"] == "sync" and m["view"])
        await a.until(lambda m: m["type"] == "sync" and m["view"])
        v = sync["version"]
        assert {"player": 1, "type": "draw"} in sync["legal"]

        _refuse(sqlite_url, True)
        await b.send({"type": "action", "version": v, "action": {"type": "draw"}})
        err = await b.until(lambda m: m["type"] == "error")
        assert err["code"] == "storage" and "not played" in err["message"]
        assert "disk says no" not in err["message"]  # the database's words stay in the log
        assert await a.drain(0.3) == []  # nobody was told of a change
        # the HTTP side: a join and a new table are refused the same way
        r = await srv.join(other["table"]["id"], "Eve")
        assert r.status_code == 503 and r.json()["error"] == "storage"
        assert "token" not in r.text and "disk says no" not in r.text
        seats = (await srv.http.get(f"/api/tables/{other['table']['id']}")).json()["seats"]
        assert [s["name"] for s in seats] == ["Dee", None, None]
        r = await srv.http.post("/api/tables", json={"nickname": "Fay",
                                                     "seats": human_seats(3)})
        assert r.status_code == 503 and r.json()["error"] == "storage"
        # the table is as it was: same version, same view
        await b.send({"type": "hello", "token": tokens[1], "version": -1})
        again = await b.until(lambda m: m["type"] == "sync")
        assert again["version"] == v and again["view"] == sync["view"]
        assert again["legal"] == sync["legal"]

        _refuse(sqlite_url, False)
        await b.send({"type": "action", "version": v, "action": {"type": "draw"}})
        up = await a.until(lambda m: m["type"] == "update")
        assert up["version"] == v + 1 and up["action"] == {"player": 1,
                                                                    "type": "draw"}
        await a.close()
        await b.close()


async def test_bots_go_on_once_the_database_takes_writes_again(
        sqlite_url: str, monkeypatch: Any) -> None:
    monkeypatch.setattr("liverpool.web.table.STORE_RETRY", 0.1)
    async with serve(sqlite_url) as srv:
        t = await srv.create(human_seats(1, 2), rules="standard", overrides={"hands": [1]},
                             seed=4, turn_timer=0.01)
        tid = t["table"]["id"]
        c = await srv.client(tid, None)
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        await c.until(lambda m: m["type"] == "update")
        _refuse(sqlite_url, True)
        await asyncio.sleep(0.2)
        await c.drain(0.3)  # the moves in flight when the writes began to fail
        stuck = srv.app.state.registry.owners[tid].version
        await asyncio.sleep(0.4)
        assert srv.app.state.registry.owners[tid].version == stuck  # nothing moves meanwhile
        _refuse(sqlite_url, False)
        end = await c.until(lambda m: m["type"] == "update" and m["view"]["phase"] == "over",
                            timeout=60)
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        assert len(rec["actions"]) == end["version"] - 1  # version 0: create, 1: start
        await c.close()


async def test_the_end_of_a_game_is_stored_before_anyone_is_told(sqlite_url: str) -> None:
    """A client told the game is over may ask any server of a service for the record; one
    that does not hold the table reads the stored status. The status was stored only after the
    last update was sent and the bots closed: a record asked at once from another server was
    refused as "not over" (seen in a run of the cluster tests)."""
    async with serve(sqlite_url) as srv:
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2
        t = await srv.create(seats, overrides={"hands": [1]}, seed=11, turn_timer=0.01)
        tid = t["table"]["id"]
        store = srv.app.state.store
        owner = srv.app.state.registry.owners[tid]
        order: list[str] = []
        real_status, real_update = store.set_status, owner.msg.broadcast_update

        async def set_status(table_id: str, status: str) -> None:
            order.append(f"stored {status}")
            await real_status(table_id, status)

        def broadcast_update(event: dict[str, Any]) -> None:
            if owner.game is not None and owner.game.over:
                order.append("told over")
            real_update(event)

        store.set_status = set_status
        owner.msg.broadcast_update = broadcast_update
        assert (await srv.http.post(f"/api/tables/{tid}/start",
                                    json={"token": t["token"]})).status_code == 200
        loop = asyncio.get_running_loop()
        end = loop.time() + 300  # a guard against a hang only
        while "told over" not in order:
            assert loop.time() < end, "the game did not end"
            await asyncio.sleep(0.05)
        assert order.index("stored over") < order.index("told over"), order
