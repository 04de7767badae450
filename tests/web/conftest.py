"""Fixtures for the web server tests: a database per test (SQLite file, or PostgreSQL in a
private server this session starts), the app served on a free loopback port in the test's event
loop, and websocket clients that keep every message they receive."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from liverpool.web.app import create_app
from liverpool.web.limits import Limits

# the limits of a test server: the tests create many tables from one address and use short
# timers; the security tests set the defaults or tighter ones themselves
RELAXED = Limits(create_rate="10000/minute", join_rate="10000/minute",
                 start_rate="10000/minute", request_rate="100000/minute",
                 replay_rate="10000/minute", message_rate="100000/second",
                 open_tables_per_client=10000, waiting_tables_per_client=10000,
                 tables_per_network=10000, min_timer=0.0, sockets_per_client=1000,
                 sockets_per_network=10000)


def hand_end_of(m: dict[str, Any]) -> dict[str, Any] | None:
    """The ``hand_ended`` event an update carries, if any."""
    return next((e for e in m.get("events") or () if e["type"] == "hand_ended"), None)


def text_of(m: dict[str, Any]) -> str:
    """The narrated lines of an update's events, as one text."""
    return ". ".join(e["text"] for e in m.get("events") or () if e.get("text"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---- PostgreSQL: one private server per test process (so per xdist worker) ----------------
@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    from liverpool.benchmarks.cluster import postgres_bindir, private_postgres
    if postgres_bindir() is None:
        pytest.skip("PostgreSQL binaries are absent (Debian package postgresql; "
                    "scripts/test.sh installs it as root)")
    with private_postgres(durable=False) as url:
        yield url


# ---- Redis: a private server per test that needs one (it may be stopped and started) --------
class RedisServer:
    """``redis-server`` on a free loopback port, no persistence, in a temporary directory."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is absent (Debian package redis-server; scripts/test.sh "
                        "installs it as root)")
        self.binary = binary
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="liverpool-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir, "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            import time
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A new, empty PostgreSQL database."""
    return _new_pg_database(pg_server)


def _new_pg_database(server: str) -> str:
    import psycopg
    name = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "liverpool.db")
    return _new_pg_database(request.getfixturevalue("pg_server"))


@pytest.fixture
def sqlite_url(tmp_path: Any) -> str:
    return str(tmp_path / "liverpool.db")


# ---- the app in the test's event loop ------------------------------------------------------
class Served:
    def __init__(self, app: Any, base: str) -> None:
        self.app = app
        self.base = base
        self.ws_base = base.replace("http://", "ws://")
        self.http = httpx.AsyncClient(base_url=base, timeout=20)
        self.secrets: dict[str, str] = {}  # table id -> join secret (the share link's)

    async def create(self, seats: list[dict[str, Any]], nickname: str = "Ann",
                     **more: Any) -> dict[str, Any]:
        r = await self.http.post("/api/tables", json={"nickname": nickname, "seats": seats,
                                                      **more})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        self.secrets[out["table"]["id"]] = out["join_secret"]
        return out

    async def join(self, table: str, nickname: str) -> httpx.Response:
        """Join as a friend who was sent the share link (with its secret)."""
        return await self.http.post(f"/api/tables/{table}/join",
                                    json={"nickname": nickname,
                                          "secret": self.secrets.get(table)})

    async def client(self, table: str, token: str | None, version: int = -1,
                     hello: bool = True) -> Client:
        c = Client(await connect(f"{self.ws_base}/ws/{table}", max_size=None,
                                 compression=None))
        if hello:
            await c.send({"type": "hello", "token": token, "version": version})
        return c


@contextlib.asynccontextmanager
async def serve(db: str, **kw: Any) -> AsyncIterator[Served]:
    kw.setdefault("grace", 15.0)
    kw.setdefault("bot_think", 0.0)
    # the bots wait for no person and no hand pauses unless a test asks for it
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
    served = Served(app, f"http://127.0.0.1:{port}")
    try:
        yield served
    finally:
        await served.http.aclose()
        server.should_exit = True
        await task


@pytest.fixture
def served_factory() -> Callable[..., Any]:
    return serve


class Client:
    """A websocket client that keeps every message it received, in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._next = 0

    async def send(self, obj: Any) -> None:
        await self.ws.send(obj if isinstance(obj, str) else json.dumps(obj))

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message not yet returned."""
        while self._next >= len(self.messages):
            text = await asyncio.wait_for(self.ws.recv(), timeout)
            assert isinstance(text, str)
            self.raw.append(text)
            self.messages.append(json.loads(text))
        msg = self.messages[self._next]
        self._next += 1
        return msg

    async def until(self, pred: Callable[[dict[str, Any]], bool],
                    timeout: float = 20.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, end - loop.time()))
            if pred(msg):
                return msg

    async def drain(self, quiet: float = 0.2) -> list[dict[str, Any]]:
        """Every message that arrives until none comes for ``quiet`` seconds."""
        out = []
        with contextlib.suppress(TimeoutError):
            while True:
                out.append(await self.recv(quiet))
        return out

    async def close(self) -> None:
        await self.ws.close()


async def play_turns(c: Client, stop: Callable[[dict[str, Any]], bool],
                     timeout: float = 60.0,
                     already: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play the client's seat with the server's hints until ``stop(message)`` holds (or the
    game ends); return that message. ``already`` is a message the caller has read itself
    (a sync, say): it may be the seat's turn, and the server will not say so again.

    The client acts only on a hint for the version it last saw. The server answers requests in
    order (a hint with a hint or an error, an action with its update or an error), so every
    refusal is matched to its request. A refusal is allowed only when the table moved after
    that request was sent (``stale_version``; ``not_your_turn`` when somebody called first or
    the decision passed on); the protocol says to refresh and act again, and the server sends
    the newer updates before the error, so the newer version must already be known here. Any
    other refusal fails the test."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    cur: dict[str, Any] | None = None
    latest = -1
    # requests not answered yet: (kind, version it was sent at, the action sent)
    asked: deque[tuple[str, int, dict[str, Any] | None]] = deque()
    pending = [already] if already is not None else []
    while True:
        msg = pending.pop() if pending else await c.recv(max(0.01, end - loop.time()))
        if stop(msg):
            return msg
        kind = msg["type"]
        if kind in ("update", "sync", "lobby"):
            latest = max(latest, msg["version"])
        if (kind == "update" and msg["action"] is not None and asked
                and asked[0][0] == "action" and msg["action"] == asked[0][2]):
            asked.popleft()  # our action went through
        if kind in ("update", "sync") and msg.get("view"):
            cur = msg
            if msg["view"]["phase"] == "over":
                return msg
            if msg["legal"]:
                asked.append(("hint", msg["version"], None))
                await c.send({"type": "hint"})
        elif kind == "hint":
            assert asked and asked[0][0] == "hint", f"a hint nobody asked for: {msg}"
            asked.popleft()
            if cur is not None and cur["legal"] and msg["version"] == cur["version"] == latest:
                asked.append(("action", cur["version"], msg["action"]))
                await c.send({"type": "action", "version": cur["version"],
                              "action": msg["action"]})
        elif kind == "error":
            assert asked, f"refused with no request waiting: {msg}"
            _, version, _ = asked.popleft()
            assert msg["code"] in ("stale_version", "not_your_turn"), f"refused: {msg}"
            assert latest > version, f"refused with nothing newer seen: {msg}"


def human_seats(n: int, bots: int = 0, level: str = "basic") -> list[dict[str, Any]]:
    return [{"kind": "human"}] * n + [{"kind": "bot", "level": level}] * bots


async def finished_table(srv: Served, preset: str = "standard", seed: int = 11,
                          players: int = 3) -> tuple[str, dict[str, Any]]:
    """A short game (two hands) of bots; the host's seat is played by its turn timer."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * (players - 1)
    t = await srv.create(seats, rules=preset, overrides={"hands": [1, 2]}, seed=seed,
                         turn_timer=0.01)
    tid = t["table"]["id"]
    r = await srv.http.get(f"/api/tables/{tid}/replay")
    assert r.status_code == 403 and r.json()["error"] == "not_over"
    assert (await srv.http.post(f"/api/tables/{tid}/start",
                                json={"token": t["token"]})).status_code == 200
    loop = asyncio.get_running_loop()
    end = loop.time() + 300  # only a guard against a hang: a busy machine may be slow
    # (no replay is asked for while it plays: the game may end between two requests, and a
    # replay given then would be cached before the caller looks)
    while (await srv.http.get(f"/api/tables/{tid}")).json()["status"] != "over":
        assert loop.time() < end, "the game did not end"
        await asyncio.sleep(0.05)
    rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
    return tid, rec


# ---- what a refused request must leave as it was (the security and fuzz tests) -------------
def raw_json(obj: Any) -> bytes:
    """JSON text as any client may write it: lone surrogates escaped (``"\\ud800"``), numbers
    of any size (httpx's own encoder refuses to send a lone surrogate)."""
    return json.dumps(obj).encode("ascii")


async def post_json(srv: Served, path: str, obj: Any, **headers: str) -> httpx.Response:
    return await srv.http.post(path, content=raw_json(obj),
                               headers={"content-type": "application/json", **headers})


async def lobby_state(srv: Served) -> dict[str, Any]:
    """The lobby as every client sees it (all its pages), the tables in memory and the tables
    the store would resume."""
    registry = srv.app.state.registry
    listed: list[Any] = []
    offset = 0
    while True:
        r = await srv.http.get("/api/tables", params={"offset": offset})
        assert r.status_code == 200, r.text
        page = r.json()
        listed.extend(page["tables"])
        offset += len(page["tables"])
        if "total" not in page or not page["tables"] or offset >= page["total"]:
            break
    return {"lobby": listed, "owners": sorted(registry.owners),
            "active": sorted(await srv.app.state.store.active_ids())}


async def table_state(srv: Served, tid: str) -> dict[str, Any]:
    """One table as stored and as its owner holds it (events, version, status, summary, the
    game's snapshot)."""
    stored = await srv.app.state.store.load(tid)
    owner = srv.app.state.registry.owners.get(tid)
    out: dict[str, Any] = {
        "stored": None if stored is None else (stored.status, [
            (e.version, e.kind, e.data) for e in stored.events])}
    if owner is not None:
        out.update(version=owner.version, status=owner.status, summary=owner.summary(),
                   game=None if owner.game is None else owner.game.snapshot())
    return out
