"""Make ``db-head-1dc2c73.sqlite`` and its manifest ``db-head-1dc2c73.json``: a small SQLite
database written by the web server of commit 1dc2c73, kept as test data so that a later server
can be checked to open it and keep every game.

Run it from a checkout of that commit (it uses that commit's server, in-process, served by
uvicorn on a loopback port, with the test servers' relaxed limits)::

    PYTHONPATH=src python tests/data/make_head_db.py [OUT_DIR]

The database holds:

* three finished games (status ``over``) of three presets (standard, 3 seats; arena, 2 seats;
  house, 4 seats); each has a host who created the table and played over a websocket, and the
  house game a friend who joined by the share link and played too; the people play the moves
  the server hints (``{"type": "hint"}``), the other seats are ``random`` and ``basic`` bots;
* a table still ``open``: created, a friend joined, a bot seat, one seat free, never started;
* a table ``playing``: started, the host played a few moves and is to act when the server
  stopped (no turn timer, a long grace: nothing moved after that);
* a table ``expired``: created, never started, closed by the server's own expiry
  (``Registry.expire``, what its sweep calls for a table nobody started in time).

The manifest lists every table: its id, status, preset, overrides, seats, events stored, and
for a finished game its players, the number of actions, the scores of each hand and the final
totals (from the game-over update the host received, checked against the record replayed by
this commit's engine). A later test can open the database (a copy: a server opening it
writes to it), see every table is there, and replay each finished game from its events to the
same totals.

At the end the WAL is checkpointed, the file vacuumed and set to the rollback journal
(``journal_mode=DELETE``: the one file is the whole database, and opens read-only); the server
sets WAL again when it opens it. The ``-wal``, ``-shm`` and ``.lock`` files are removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import connect

from liverpool.record import replay, summary
from liverpool.web.app import create_app
from liverpool.web.limits import Limits

COMMIT = "1dc2c73"
NAME = f"db-head-{COMMIT}"

# as tests/web/conftest.py: one address creates every table, timers may be short
RELAXED = Limits(create_rate="10000/minute", join_rate="10000/minute",
                 start_rate="10000/minute", request_rate="100000/minute",
                 replay_rate="10000/minute", message_rate="100000/second",
                 open_tables_per_client=10000, waiting_tables_per_client=10000,
                 tables_per_network=10000, min_timer=0.0, sockets_per_client=1000,
                 sockets_per_network=10000)

# (preset, overrides, people's names, bot levels, seed): the finished games
GAMES: list[tuple[str, dict[str, Any], list[str], list[str], int]] = [
    ("standard", {}, ["Ann"], ["basic", "random"], 101),
    ("arena", {"hands": [1, 4, 7]}, ["Bea"], ["basic"], 202),
    ("house", {"hands": [1, 2]}, ["Cal", "Dot"], ["random", "basic"], 303),
]
GAME_TIMEOUT = 900.0  # seconds: a guard against a hang only


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Person:
    """A person's websocket: keeps the last view; plays the server's hints when asked to."""

    def __init__(self, ws: Any, seat: int | None) -> None:
        self.ws = ws
        self.seat = seat
        self.last: dict[str, Any] | None = None  # the last update or sync with a view
        self.latest = -1
        self.moves = 0  # actions sent

    async def send(self, obj: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(obj))

    async def recv(self, timeout: float) -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if msg["type"] in ("update", "sync", "lobby") and "version" in msg:
            self.latest = max(self.latest, msg["version"])
        if msg["type"] in ("update", "sync") and msg.get("view"):
            self.last = msg
        return msg

    async def until(self, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if pred(msg):
                return msg

    async def play(self, max_moves: int | None = None, timeout: float = GAME_TIMEOUT
                   ) -> dict[str, Any]:
        """Play the seat with the server's hints until the game is over (its last update is
        returned) or ``max_moves`` actions were sent and taken. A hint is acted on only when
        it is for the newest version seen; a refusal (someone moved first) is let go: the
        next update asks again."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        if self.last is not None and self.last.get("legal"):
            await self.send({"type": "hint"})
        while True:
            if max_moves is not None and self.moves >= max_moves:
                return self.last or {}
            msg = await self.recv(max(0.01, end - loop.time()))
            kind = msg["type"]
            if kind in ("update", "sync") and msg.get("view"):
                if msg["view"]["phase"] == "over":
                    return msg
                if msg["legal"]:
                    await self.send({"type": "hint"})
            elif kind == "hint":
                cur = self.last
                if (cur is not None and cur["legal"]
                        and msg["version"] == cur["version"] == self.latest):
                    self.moves += 1
                    await self.send({"type": "action", "version": cur["version"],
                                     "action": msg["action"]})
            elif kind == "error" and msg.get("code") not in ("stale_version", "not_your_turn"):
                raise RuntimeError(f"seat {self.seat}: refused: {msg}")

    async def close(self) -> None:
        await self.ws.close()


class Server:
    def __init__(self, base: str) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://")
        self.http = httpx.AsyncClient(base_url=base, timeout=60)

    async def create(self, preset: str, overrides: dict[str, Any], host: str,
                     seats: list[dict[str, Any]], seed: int, **more: Any) -> dict[str, Any]:
        r = await self.http.post("/api/tables", json={
            "nickname": host, "seats": seats, "rules": preset, "overrides": overrides,
            "seed": seed, **more})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        return out

    async def join(self, tid: str, secret: str, name: str) -> str:
        r = await self.http.post(f"/api/tables/{tid}/join",
                                 json={"nickname": name, "secret": secret})
        assert r.status_code == 200, r.text
        token: str = r.json()["token"]
        return token

    async def start(self, tid: str, token: str) -> None:
        r = await self.http.post(f"/api/tables/{tid}/start", json={"token": token})
        assert r.status_code == 200, r.text

    async def person(self, tid: str, token: str, seat: int) -> Person:
        ws = await connect(f"{self.ws_base}/ws/{tid}", max_size=None, compression=None)
        p = Person(ws, seat)
        await p.send({"type": "hello", "token": token, "version": -1})
        await p.until(lambda m: m["type"] in ("sync", "lobby"))
        return p

    async def status(self, tid: str) -> str:
        r = await self.http.get(f"/api/tables/{tid}")
        assert r.status_code == 200, r.text
        status: str = r.json()["status"]
        return status


@contextlib.asynccontextmanager
async def serve(db: str, **kw: Any) -> Any:
    # the test servers' settings, but a long grace: a person's seat is never covered by a bot
    kw.setdefault("grace", 3600.0)
    kw.setdefault("bot_think", 0.0)
    kw.setdefault("buy_window", 0.0)
    kw.setdefault("hand_pause", 0.0)
    kw.setdefault("allow_seed", True)
    kw.setdefault("limits", RELAXED)
    app = create_app(db, **kw)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            ws_per_message_deflate=False, lifespan="on",
                            ws_max_size=kw["limits"].max_message)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    srv = Server(f"http://127.0.0.1:{port}")
    try:
        yield app, srv
    finally:
        await srv.http.aclose()
        server.should_exit = True
        await task


def seat_list(people: int, bots: list[str], free: int = 0) -> list[dict[str, Any]]:
    return ([{"kind": "human"}] * (people + free)
            + [{"kind": "bot", "level": b} for b in bots])


async def finished_game(srv: Server, preset: str, overrides: dict[str, Any],
                        people: list[str], bots: list[str], seed: int) -> dict[str, Any]:
    t = await srv.create(preset, overrides, people[0], seat_list(len(people), bots), seed)
    tid = t["table"]["id"]
    tokens = [t["token"]] + [await srv.join(tid, t["join_secret"], n) for n in people[1:]]
    persons = [await srv.person(tid, tok, seat) for seat, tok in enumerate(tokens)]
    await srv.start(tid, tokens[0])
    finals = await asyncio.gather(*(p.play() for p in persons))
    for p in persons:
        await p.close()
    assert all(f["view"]["phase"] == "over" for f in finals)
    final = finals[0]["view"]
    r = await srv.http.get(f"/api/tables/{tid}/record")
    assert r.status_code == 200, r.text
    rec = r.json()
    replayed = summary(replay(rec))  # the record replayed by this commit's engine
    assert replayed["ok"] and replayed["phase"] == "over", replayed["error"]
    assert replayed["totals"] == list(final["totals"]), (replayed["totals"], final["totals"])
    assert replayed["scores"] == [list(s) for s in final["scores"]]
    assert await srv.status(tid) == "over"
    return {"id": tid, "status": "over", "preset": preset, "overrides": overrides,
            "seats": len(people) + len(bots), "people": people, "bots": bots, "seed": seed,
            "players": rec["players"], "actions": len(rec["actions"]),
            "hands_played": len(final["scores"]), "scores": final["scores"],
            "totals": final["totals"], "winners": replayed["winners"],
            "person_moves": [p.moves for p in persons]}


async def build(db: Path) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = []
    async with serve(str(db)) as (app, srv):
        for preset, overrides, people, bots, seed in GAMES:
            entry = await finished_game(srv, preset, overrides, people, bots, seed)
            print(f"over: {entry['id']} {preset} totals {entry['totals']} "
                  f"({entry['actions']} actions)", flush=True)
            tables.append(entry)

        # open: the host made it and left, a friend joined (and is connected), never started
        t = await srv.create("standard", {}, "Eve", seat_list(2, ["basic"], free=1), 404)
        tid = t["table"]["id"]
        await srv.join(tid, t["join_secret"], "Fox")
        assert await srv.status(tid) == "open"
        tables.append({"id": tid, "status": "open", "preset": "standard", "overrides": {},
                       "seats": 4, "people": ["Eve", "Fox"], "bots": ["basic"], "seed": 404})

        # playing: started; the host played a few moves and is to act again
        t = await srv.create("arena", {}, "Gus", seat_list(1, ["random", "basic"]), 505)
        tid = t["table"]["id"]
        gus = await srv.person(tid, t["token"], 0)
        await srv.start(tid, t["token"])
        await gus.play(max_moves=5, timeout=120)
        await asyncio.sleep(0.5)
        await gus.close()
        assert await srv.status(tid) == "playing"
        tables.append({"id": tid, "status": "playing", "preset": "arena", "overrides": {},
                       "seats": 3, "people": ["Gus"], "bots": ["random", "basic"], "seed": 505,
                       "person_moves": [gus.moves]})

        # expired: never started; closed by the server's expiry, as its sweep does
        t = await srv.create("house", {}, "Hal", seat_list(1, ["basic"]), 606)
        tid = t["table"]["id"]
        registry = app.state.registry
        assert await registry.expire(registry.owners[tid])
        assert await srv.status(tid) == "expired"
        tables.append({"id": tid, "status": "expired", "preset": "house", "overrides": {},
                       "seats": 2, "people": ["Hal"], "bots": ["basic"], "seed": 606})
        await asyncio.sleep(0.5)  # the last writes
    return tables


def finish_file(db: Path) -> None:
    """One complete file: the WAL folded in, the file compacted, the side files gone."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.execute("PRAGMA journal_mode=DELETE")  # the file opens without its -wal beside it
    conn.close()
    for suffix in ("-wal", "-shm", ".lock", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    db = out / f"{NAME}.sqlite"
    for suffix in ("", "-wal", "-shm", ".lock", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    tables = asyncio.run(build(db))
    finish_file(db)
    conn = sqlite3.connect(db)
    stored = dict(conn.execute("SELECT id, status FROM lv_tables").fetchall())
    events = dict(conn.execute(
        "SELECT table_id, count(*) FROM lv_events GROUP BY table_id").fetchall())
    notes = dict(conn.execute(
        "SELECT table_id, count(*) FROM lv_notes GROUP BY table_id").fetchall())
    conn.close()
    assert sorted(stored) == sorted(t["id"] for t in tables), (stored, tables)
    for t in tables:
        assert stored[t["id"]] == t["status"], (t, stored[t["id"]])
        t["events"] = events.get(t["id"], 0)
        t["notes"] = notes.get(t["id"], 0)
    manifest = {"commit": COMMIT, "database": db.name,
                "made_by": "tests/data/make_head_db.py",
                "schema": ["lv_tables", "lv_events", "lv_notes"],
                "tables": tables}
    (out / f"{NAME}.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{db} ({db.stat().st_size} bytes), {len(tables)} tables")


if __name__ == "__main__":
    main()
