"""The ASGI application of ``liverpool serve``: pages, the HTTP API and the table websocket.

Domain words: *lobby* (creating, listing and joining tables), *registry* (the owners of the
tables this process serves, loaded from the store at start-up or on first use), *message* (one
JSON object on the websocket, ``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import gzip
import json
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from ..bots import LEVELS, BotSpecError, make_bot
from ..rules import PRESET_NAMES, PRESETS, RulesError, RuleSet
from .replay import replay_steps
from .store import Store, StoreError, make_store
from .table import ApiError, Conn, Settings, TableOwner, dumps

log = logging.getLogger("liverpool.web")

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 64 * 1024
MAX_NAME = 40
MAX_TIMER = 3600.0
REPLAYS_KEPT = 32

_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Liverpool</title>
<p>The Liverpool server is running, but its browser front end is not installed
(<code>liverpool/web/static/index.html</code> is missing). The API is at <code>/api/</code>.</p>
"""


class Registry:
    """The table owners of this process, by table id."""

    def __init__(self, store: Store, settings: Settings, evict_after: float = 60.0) -> None:
        self.store = store
        self.settings = settings
        self.evict_after = evict_after
        self.owners: dict[str, TableOwner] = {}
        self._stopping: set[asyncio.Task[None]] = set()
        self._loading: dict[str, asyncio.Future[TableOwner | None]] = {}
        # finished games' replays, encoded (plain, gzip), most recently asked last
        self.replays: OrderedDict[str, asyncio.Future[tuple[bytes, bytes]]] = OrderedDict()

    async def replay(self, owner: TableOwner) -> tuple[bytes, bytes]:
        """A finished table's replay as JSON bytes and gzipped, computed once (in a thread:
        a long game takes a few hundred milliseconds) and kept for the last few tables."""
        fut = self.replays.get(owner.id)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self.replays[owner.id] = fut
            while len(self.replays) > REPLAYS_KEPT:
                self.replays.popitem(last=False)
            try:
                fut.set_result(await asyncio.to_thread(_encode_replay, owner.record()))
            except Exception as e:
                self.replays.pop(owner.id, None)
                fut.set_exception(e)
                fut.exception()  # seen here: a failure is not logged again as unretrieved
                raise
        self.replays.move_to_end(owner.id)
        return await asyncio.shield(fut)

    async def resume_all(self) -> None:
        for table_id in await self.store.active_ids():
            await self.get(table_id)

    async def get(self, table_id: str) -> TableOwner | None:
        owner = self.owners.get(table_id)
        if owner is not None:
            return owner
        if table_id in self._loading:  # another request is loading it
            return await asyncio.shield(self._loading[table_id])
        fut: asyncio.Future[TableOwner | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            stored = await self.store.load(table_id)
            if stored is None:
                owner = None
            else:
                owner = TableOwner(stored, self.store, self.settings)
                self._watch(owner)
                self.owners[table_id] = owner
                owner.start()
                if owner.status == "over":
                    if stored.status != "over":
                        with contextlib.suppress(StoreError):  # the events say it is over
                            await self.store.set_status(table_id, "over")
                    self.on_idle(owner)
            fut.set_result(owner)
            return owner
        except Exception as e:
            fut.set_exception(e)
            raise
        finally:
            del self._loading[table_id]

    def add(self, owner: TableOwner) -> None:
        self._watch(owner)
        self.owners[owner.id] = owner
        owner.start()

    def _watch(self, owner: TableOwner) -> None:
        owner.on_idle = self.on_idle

    def on_idle(self, owner: TableOwner) -> None:
        """A finished table may have nobody left: look again after a while, and if it is
        still idle, let it go (its events stay in the store; the next request reloads it)."""
        asyncio.get_running_loop().call_later(self.evict_after, self._evict, owner)

    def _evict(self, owner: TableOwner) -> None:
        if self.owners.get(owner.id) is not owner:
            return
        if not owner.idle():
            if owner.status == "over" and owner.sockets == 0:
                self.on_idle(owner)  # still busy with its last messages: later
            return
        del self.owners[owner.id]  # from now on a request loads a fresh owner
        task = asyncio.create_task(owner.stop())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def new_id(self) -> str:
        while True:
            table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
            if table_id not in self.owners and await self.store.load(table_id) is None:
                return table_id

    async def close(self) -> None:
        for owner in list(self.owners.values()):
            await owner.stop()
        self.owners.clear()
        for task in list(self._stopping):
            await task


def _encode_replay(record: dict[str, Any]) -> tuple[bytes, bytes]:
    data = json.dumps(replay_steps(record), separators=(",", ":")).encode("utf-8")
    return data, gzip.compress(data, 6)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _package_version() -> str:
    try:
        return metadata.version("liverpool-rummy")
    except metadata.PackageNotFoundError:
        return "0"


def _nickname(body: dict[str, Any]) -> str:
    name = body.get("nickname")
    if not isinstance(name, str) or not name.strip():
        raise ApiError(400, "bad_request", "a nickname is needed")
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise ApiError(400, "bad_request", f"a nickname has at most {MAX_NAME} characters")
    return name


def _timer(body: dict[str, Any], key: str) -> float | None:
    v = body.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= MAX_TIMER:
        raise ApiError(400, "bad_request", f"{key} must be a number of seconds, 0 < s <= "
                                           f"{MAX_TIMER:g}, or null")
    return float(v)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_MESSAGE:
        raise ApiError(413, "too_large", f"a request body has at most {MAX_MESSAGE} bytes")
    try:
        body = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(400, "bad_json", f"the body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    return body


def create_app(db_url: str | None = None, *, bot_commands: dict[str, str] | None = None,
               grace: float = 15.0, bot_think: float = 0.6, allow_seed: bool = False,
               store: Store | None = None, gc_freeze: bool = True,
               evict_after: float = 60.0) -> FastAPI:
    """The server app. ``db_url``: None (SQLite in the user's data directory), a file path,
    ``sqlite:///...`` or ``postgresql://...``. ``bot_commands`` maps extra bot level names to
    commands (``cmd:`` bots). ``grace``: seconds before a dropped player is covered by a bot.
    ``bot_think``: seconds a bot waits before each move. ``allow_seed``: accept ``seed`` and
    ``deals`` when a table is created (for tests: it lets the host know the cards).
    ``gc_freeze``: keep the garbage collector's pauses short (see ``_gc_tidy``).
    ``evict_after``: seconds a finished table stays in memory once nobody is connected."""
    commands = dict(bot_commands or {})
    for name in commands:
        if name in LEVELS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,31}", name):
            raise ValueError(f"bot name {name!r}: use letters, digits, _ . - (not a built-in "
                             f"level)")
    settings = Settings(grace=grace, bot_think=bot_think, bot_commands=commands)
    the_store = store or make_store(db_url)
    registry = Registry(the_store, settings, evict_after)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await the_store.open()
        await registry.resume_all()
        tidy = asyncio.create_task(_gc_tidy()) if gc_freeze else None
        try:
            yield
        finally:
            if tidy is not None:
                tidy.cancel()
            await registry.close()
            await the_store.close()

    app = FastAPI(title="Liverpool", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.registry = registry
    app.state.store = the_store

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(StoreError)
    async def store_error(_request: Request, exc: StoreError) -> JSONResponse:
        log.warning("store: %s", exc)  # not to the client: it may quote other tables' rows
        return _error(503, "storage", "the database did not store the change, so nothing "
                                      "changed; try again")

    def page() -> Response:
        index = STATIC / "index.html"
        if index.is_file():
            return FileResponse(index, media_type="text/html")
        return HTMLResponse(_FALLBACK_PAGE)

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> Response:
        return page()

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        return page()

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> Response:
        return page()

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    @app.get("/api/config")
    async def config() -> dict[str, Any]:
        return {"presets": {name: PRESETS[name].to_json() for name in PRESET_NAMES},
                "levels": [*LEVELS, *commands], "version": _package_version()}

    def check_level(level: Any) -> str:
        if not isinstance(level, str) or not level:
            raise ApiError(400, "bad_request", "a bot seat needs a \"level\"")
        if level in commands:
            return level
        if level.lower().startswith("cmd:"):
            raise ApiError(400, "bad_request", "external bots are configured by the host "
                                               "(--bot-command NAME=COMMAND); use their NAME")
        try:
            make_bot(level)
        except BotSpecError as e:
            raise ApiError(400, "bad_request", str(e)) from None
        return level.strip().lower()

    async def owner_of(table_id: str) -> TableOwner:
        owner = await registry.get(table_id) if len(table_id) <= 32 else None
        if owner is None:
            raise ApiError(404, "not_found", f"there is no table {table_id!r}")
        return owner

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        body = await _body(request)
        nickname = _nickname(body)
        preset = body.get("rules", "standard")
        if preset not in PRESET_NAMES:
            raise ApiError(400, "bad_rules", f"unknown preset {preset!r}; choose one of "
                                             f"{', '.join(PRESET_NAMES)}")
        overrides = body.get("overrides") or {}
        if not isinstance(overrides, dict):
            raise ApiError(400, "bad_rules", "overrides must be an object {knob: value}")
        try:
            rules = RuleSet.preset(preset, overrides)
        except (RulesError, TypeError, ValueError) as e:
            raise ApiError(400, "bad_rules", str(e)) from None
        seats_in = body.get("seats")
        if not isinstance(seats_in, list) or not seats_in:
            raise ApiError(400, "bad_request", "seats must be a list, one entry per seat")
        seats: list[dict[str, Any]] = []
        for i, s in enumerate(seats_in):
            kind = s.get("kind") if isinstance(s, dict) else None
            if kind == "human":
                seats.append({"kind": "human", "level": None})
            elif kind == "bot":
                assert isinstance(s, dict)
                seats.append({"kind": "bot", "level": check_level(s.get("level"))})
            else:
                raise ApiError(400, "bad_request", f"seat {i}: kind must be \"human\" or "
                                                   f"\"bot\"")
        if seats[0]["kind"] != "human":
            raise ApiError(400, "bad_request", "seat 0 is the host's: it must be human")
        try:
            rules.check_players(len(seats))
        except RulesError as e:
            raise ApiError(400, "bad_rules", str(e)) from None
        config: dict[str, Any] = {
            "rules": preset, "overrides": rules.overrides_from(PRESETS[preset]),
            "seats": seats, "turn_timer": _timer(body, "turn_timer"),
            "buy_timer": _timer(body, "buy_timer"), "seed": secrets.randbits(48)}
        if "seed" in body or "deals" in body:
            if not allow_seed:
                raise ApiError(400, "bad_request", "this server does not take a seed or deals "
                                                   "(they would show the host the cards)")
            seed = body.get("seed", config["seed"])
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ApiError(400, "bad_request", "seed must be a whole number")
            config["seed"] = seed
            if body.get("deals") is not None:
                config["deals"] = body["deals"]
        try:  # the game must be creatable now, not fail at the start
            TableOwner.check_config(config)
        except (ValueError, TypeError) as e:
            raise ApiError(400, "bad_request", str(e)) from None
        table_id = await registry.new_id()
        owner, token = await TableOwner.create(the_store, settings, table_id, config, nickname)
        registry.add(owner)
        base = str(request.base_url).rstrip("/")
        return {"table": owner.summary(), "seat": 0, "token": token,
                "share_url": f"{base}/t/{table_id}"}

    @app.get("/api/tables")
    async def list_tables() -> dict[str, Any]:
        owners = [o for o in registry.owners.values() if o.status in ("open", "playing")]
        owners.sort(key=lambda o: o.created, reverse=True)
        return {"tables": [o.summary() for o in owners]}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        return (await owner_of(table_id)).summary()

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        owner = await owner_of(table_id)
        nickname = _nickname(await _body(request))
        if owner.status == "over":  # a finished table may be evicted: don't queue on it
            raise ApiError(409, "started", "the game has already started")
        result: dict[str, Any] = await owner.call(owner.join, nickname)
        return result

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, request: Request) -> dict[str, Any]:
        owner = await owner_of(table_id)
        token = (await _body(request)).get("token")
        if not isinstance(token, str):
            raise ApiError(403, "bad_token", "the host's token is needed to start")
        if owner.status == "over":
            raise ApiError(409, "started", "the game has already started")
        result: dict[str, Any] = await owner.call(owner.start_game, token)
        return result

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str) -> dict[str, Any]:
        owner = await owner_of(table_id)
        if owner.status != "over":
            raise ApiError(403, "not_over", "the record is shown once the game is over")
        return owner.record()

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> Response:
        owner = await owner_of(table_id)
        if owner.status != "over":
            raise ApiError(403, "not_over", "the replay is shown once the game is over")
        plain, packed = await registry.replay(owner)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(packed, media_type="application/json",
                            headers={"content-encoding": "gzip", "vary": "accept-encoding"})
        return Response(plain, media_type="application/json", headers={"vary": "accept-encoding"})

    @app.websocket("/ws/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        owner = await registry.get(table_id) if len(table_id) <= 32 else None
        if owner is None:
            await ws.accept()
            await ws.close(code=4404, reason="no such table")
            return
        owner.sockets += 1  # at once (no await since get): the owner is not evicted under us
        try:
            await ws.accept()
            conn = Conn()
            sender = asyncio.create_task(_send_loop(ws, conn))
            try:
                await _receive_loop(ws, conn, owner)
            finally:
                conn.close()
                owner.post(owner.on_close, conn)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(sender, 1.0)
                if not sender.done():
                    sender.cancel()
        finally:
            owner.detach_socket()

    return app


GC_TIDY_EVERY = 10.0


async def _gc_tidy() -> None:
    """Every few seconds, collect young garbage, then move every survivor out of the garbage
    collector's reach (``gc.freeze``). Games hold many long-lived objects (actions, melds,
    views); a full collection over all tables would stop every table for a few hundred
    milliseconds, while this collects only what was made since the last tidy. Frozen objects
    are still freed by reference counting."""
    while True:
        gc.collect()
        gc.freeze()
        await asyncio.sleep(GC_TIDY_EVERY)


async def _send_loop(ws: WebSocket, conn: Conn) -> None:
    try:
        while True:
            text = await conn.out.get()
            if text is None:
                break
            await ws.send_text(text)
    except Exception:  # the socket is gone; the receiver ends too
        conn.closed = True
        return
    if conn.closed:  # the owner dropped a client that fell too far behind
        with contextlib.suppress(Exception):
            await ws.close(code=1008, reason="too slow")


async def _receive_loop(ws: WebSocket, conn: Conn, owner: TableOwner) -> None:
    while not conn.closed:
        try:
            msg = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if msg["type"] == "websocket.disconnect":
            return
        text = msg.get("text")
        if text is None:
            data = msg.get("bytes") or b""
            if len(data) > MAX_MESSAGE:
                conn.error("too_large", f"a message has at most {MAX_MESSAGE} bytes")
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                conn.error("bad_json", "a message must be UTF-8 JSON text")
                continue
        if len(text) > MAX_MESSAGE // 4 and len(text.encode("utf-8")) > MAX_MESSAGE:
            conn.error("too_large", f"a message has at most {MAX_MESSAGE} bytes")
            continue
        handle(conn, owner, text)


def handle(conn: Conn, owner: TableOwner, text: str) -> None:
    """Check one client message's form; pass it to the table's owner."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        conn.error("bad_json", f"the message is not JSON: {e}")
        return
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        conn.error("bad_message", "a message is a JSON object with a \"type\"")
        return
    kind = obj["type"]
    if kind == "ping":
        conn.send_text(dumps({"type": "pong"}))
    elif kind == "hello":
        token, version = obj.get("token"), obj.get("version", -1)
        if token is not None and not isinstance(token, str):
            conn.error("bad_message", "hello: token must be a string or null")
        elif isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "hello: version must be a whole number (-1: none)")
        else:
            owner.post(owner.on_hello, conn, token, version)
    elif kind == "action":
        version, action = obj.get("version"), obj.get("action")
        if isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "action: version must be the table's current version")
        elif not isinstance(action, dict):
            conn.error("bad_message", "action: \"action\" must be an action object")
        else:
            owner.post(owner.on_action, conn, version, action)
    elif kind == "intent":
        what, on = obj.get("kind"), obj.get("on")
        if what not in ("buy", "call") or not isinstance(on, bool):
            conn.error("bad_message", "intent: kind must be \"buy\" or \"call\" and on a "
                                      "boolean")
        else:
            owner.post(owner.on_intent, conn, what, on)
    elif kind == "hint":
        owner.post(owner.on_hint, conn)
    else:
        conn.error("bad_message", f"unknown message type {kind!r}")
