"""Refused websocket messages: each gets a clear error, to its sender only, and changes
nothing (the table's version, the game state and the stored events are as before)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from .conftest import Client, Served, human_seats, serve


async def _table(srv: Served, n: int = 3) -> tuple[str, list[str]]:
    t = await srv.create(human_seats(n))
    tid = t["table"]["id"]
    tokens = [t["token"]]
    for name in ("Bob", "Cy", "Dee")[: n - 1]:
        r = await srv.join(tid, name)
        assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
    return tid, tokens


async def _state(srv: Served, tid: str) -> tuple[int, Any, int]:
    owner = srv.app.state.registry.owners[tid]
    stored = await srv.app.state.store.load(tid)
    snap = owner.game.snapshot() if owner.game is not None else None
    return owner.version, snap, len(stored.events)


async def _refused(srv: Served, tid: str, c: Client, others: list[Client], msg: Any,
                   code: str) -> dict[str, Any]:
    before = await _state(srv, tid)
    await c.send(msg)
    err = await c.until(lambda m: m["type"] == "error", timeout=5)
    assert err["code"] == code, err
    assert err["message"]
    assert await _state(srv, tid) == before
    for o in others:  # nobody else hears of it, and nothing was broadcast
        assert await o.drain(0.05) == []
    return err


async def test_every_refusal_changes_nothing(db_url: str) -> None:
    async with serve(db_url) as srv:
        tid, tokens = await _table(srv)
        a, b, c = [await srv.client(tid, tok) for tok in tokens]
        spec = await srv.client(tid, None)
        everyone = [a, b, c, spec]
        for x in everyone:
            assert (await x.recv())["type"] == "welcome"
            await x.drain(0.1)
        # before the start
        await _refused(srv, tid, b, [a, c, spec],
                       {"type": "action", "version": 2, "action": {"type": "draw"}},
                       "not_started")
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        assert r.status_code == 200 and r.json()["status"] == "playing"
        syncs = [await x.until(lambda m: m["type"] == "sync") for x in everyone]
        v = syncs[0]["version"]
        assert syncs[1]["legal"] and not syncs[0]["legal"]  # seat 1 plays first (dealer 0)
        for x in everyone:
            await x.drain(0.1)
        quiet = [a, c, spec]
        draw = {"player": 1, "type": "draw"}
        await _refused(srv, tid, b, quiet, "{not json", "bad_json")
        await _refused(srv, tid, b, quiet, "[1, 2]", "bad_message")
        await _refused(srv, tid, b, quiet, {"type": "fly"}, "bad_message")
        await _refused(srv, tid, b, quiet, {"type": "action", "action": draw}, "bad_message")
        await _refused(srv, tid, b, quiet, {"type": "action", "version": v}, "bad_message")
        err = await _refused(srv, tid, b, quiet, {"type": "action", "version": v,
                                                  "action": {"player": 1, "type": "fly"}},
                             "bad_message")
        assert "fly" in err["message"]
        await _refused(srv, tid, b, quiet, {"type": "intent", "kind": "steal", "on": True},
                       "bad_message")
        # a message over 64 KiB closes that connection (1009) before it is read whole
        big = json.dumps({"type": "action", "version": v, "action": draw,
                          "pad": "x" * (70 * 1024)})
        before = await _state(srv, tid)
        extra = await srv.client(tid, tokens[1])
        await extra.until(lambda m: m["type"] == "sync")
        await extra.send(big)
        with pytest.raises(ConnectionClosed) as closed:
            await extra.drain(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert await _state(srv, tid) == before
        for o in quiet:
            assert await o.drain(0.05) == []
        # who may act
        await _refused(srv, tid, spec, [a, b, c], {"type": "action", "version": v,
                                                   "action": draw}, "spectator")
        await _refused(srv, tid, b, quiet, {"type": "action", "version": v,
                                            "action": {"player": 2, "type": "draw"}},
                       "bad_token")
        await _refused(srv, tid, c, [a, b, spec], {"type": "action", "version": v,
                                                   "action": {"player": 2, "type": "draw"}},
                       "not_your_turn")
        await _refused(srv, tid, b, quiet, {"type": "action", "version": v - 1,
                                            "action": draw}, "stale_version")
        err = await _refused(srv, tid, b, quiet,
                             {"type": "action", "version": v,
                              "action": {"player": 1, "type": "discard", "card": "7H"}},
                             "illegal")
        assert "discard" in err["message"]
        await _refused(srv, tid, b, quiet, {"type": "intent", "kind": "buy", "on": True},
                       "illegal")  # the player about to draw does not buy
        # a connection without hello, or with a wrong token, acts for nobody
        raw = await srv.client(tid, None, hello=False)
        await _refused(srv, tid, raw, everyone, {"type": "action", "version": v,
                                                 "action": draw}, "no_hello")
        await _refused(srv, tid, raw, everyone, {"type": "hello", "token": "nope" * 8,
                                                 "version": -1}, "bad_token")
        await _refused(srv, tid, raw, everyone, {"type": "action", "version": v,
                                                 "action": draw}, "no_hello")
        # and the right message from the right seat is taken, once
        before = await _state(srv, tid)
        await b.send({"type": "action", "version": v, "action": draw})
        up = await a.until(lambda m: m["type"] == "update")
        assert up["version"] == v + 1 and up["action"] == draw
        await a.until(lambda m: m["type"] == "update" and m["version"] == v + 3)
        after = await _state(srv, tid)
        # the draw, then the buy round: nobody asked to buy, so each asked seat passed
        stored = await srv.app.state.store.load(tid)
        assert [e.data["action"] for e in stored.events[before[2]:]] == [
            draw, {"player": 2, "type": "pass"}, {"player": 0, "type": "pass"}]
        assert after[0] == before[0] + 3 == stored.events[-1].version
        for x in [*everyone, raw]:
            await x.close()


async def test_ping_and_http_errors(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, tokens = await _table(srv)
        c = await srv.client(tid, None, hello=False)
        await c.send({"type": "ping"})
        assert await c.recv() == {"type": "pong"}
        r = await srv.http.post("/api/tables", content=b"{oops",
                                headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"] == "bad_json"
        r = await srv.join(tid, "Eve")
        assert r.status_code == 409 and r.json()["error"] == "full"
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[1]})
        assert r.status_code == 403 and r.json()["error"] == "bad_token"
        r = await srv.http.get(f"/api/tables/{tid}/record")
        assert r.status_code == 403
        r = await srv.http.get("/api/tables/nosuchtable")
        assert r.status_code == 404 and r.json()["error"] == "not_found"
        stored = await srv.app.state.store.load(tid)
        assert [e.kind for e in stored.events] == ["create", "join", "join"]
        await c.close()
