"""A real ``liverpool serve`` process killed mid-game (SIGKILL) and started again on the same
database: the game goes on from where it was, with no action lost."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from typing import Any

import httpx
from websockets.asyncio.client import connect

from liverpool.record import replay
from liverpool.web.leases import make_store

from .conftest import Client, free_port, play_turns


def _start(db: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "LIVERPOOL_BOT_THINK": "0.01", "LIVERPOOL_GRACE": "60",
           "LIVERPOOL_LIMIT_MESSAGE_RATE": "10000/second",  # the test's client plays fast
           "LIVERPOOL_BUY_WINDOW": "0", "LIVERPOOL_HAND_PAUSE": "0"}  # (no waiting for people)
    return subprocess.Popen([sys.executable, "-m", "liverpool.cli", "serve", "--port",
                             str(port), "--db", db], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


async def _ready(proc: subprocess.Popen[bytes], base: str) -> None:
    for _ in range(300):
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            async with httpx.AsyncClient() as http:
                if (await http.get(f"{base}/api/config")).status_code == 200:
                    return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not start")


async def _client(base: str, tid: str, token: str, version: int) -> Client:
    ws = await connect(f"{base.replace('http', 'ws')}/ws/{tid}", compression=None)
    c = Client(ws)
    await c.send({"type": "hello", "token": token, "version": version})
    return c


async def test_killed_server_resumes_every_table(db_url: str) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(db_url, port)
    try:
        await _ready(proc, base)
        async with httpx.AsyncClient(base_url=base) as http:
            seats = [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 3
            t = (await http.post("/api/tables", json={
                "nickname": "Ann", "seats": seats, "overrides": {"hands": [1, 2]}})).json()
            tid, token = t["table"]["id"], t["token"]
            assert (await http.post(f"/api/tables/{tid}/start",
                                    json={"token": token})).status_code == 200
        ann = await _client(base, tid, token, -1)
        await play_turns(ann, lambda m: m["type"] == "update" and m["version"] >= 60)
        seen = {m["version"]: m["action"] for m in ann.messages
                if m["type"] == "update"}
        last = max(seen)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        await ann.ws.close()
        # every action a client was told of is in the database
        store = make_store(db_url)
        await store.open()
        stored = await store.load(tid)
        await store.close()
        assert stored is not None and stored.status == "playing"
        by_version = {e.version: e.data["action"] for e in stored.events if e.kind == "action"}
        assert all(by_version[v] == a for v, a in seen.items())
        # the same database, a new process: the table is back where it was
        proc = _start(db_url, port)
        await _ready(proc, base)
        current = stored.events[-1].version
        ann = await _client(base, tid, token, last)
        welcome = await ann.recv()
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        assert welcome["table"]["version"] >= current
        sync: dict[str, Any] | None = None
        if last < current:  # the bots moved after Ann's last update: she gets the whole state
            sync = await ann.recv()
            assert sync["type"] == "sync" and sync["version"] >= current and sync["log"]
        else:  # she had seen everything: nothing more to send; ask for the state again
            await ann.send({"type": "hello", "token": token, "version": -1})
        # the sync may put Ann to move: hand it on, or the bots would wait for her forever
        final: dict[str, Any] = await play_turns(ann, lambda m: False, timeout=120, already=sync)
        assert final["view"]["phase"] == "over"
        async with httpx.AsyncClient(base_url=base) as http:
            rec = (await http.get(f"/api/tables/{tid}/record")).json()
        assert rec["actions"][: len(by_version)] == [by_version[v] for v in sorted(by_version)]
        assert replay(rec).error is None and replay(rec).game.over
        await ann.close()
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)
