"""The ASGI application of ``liverpool serve``: pages, the HTTP API and the table websocket.

Domain words: *lobby* (creating, listing and joining tables), *registry* (the owners of the
tables this process serves, loaded from the store at start-up or on first use), *message* (one
JSON object on the websocket, ``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from ..bots import LEVELS
from ..rules import PRESET_NAMES, PRESETS, RuleSet
from ..rulestext import PRESET_LINES, TOPICS, knob_form
from .cluster import BROKER_DOWN, HeldElsewhere
from .creation import check_startable, parse_create
from .guard import Guard, Origins, client_of, network_key
from .leases import LeaseStore, make_store
from .limits import (
    TABLE_ID,
    ApiError,
    Limits,
    RateLimiter,
    clean_nickname,
    json_depth_ok,
    secret_text,
)
from .ops import Ops
from .registry import Registry
from .seats import Conn, Settings
from .store import Store, StoreError
from .table import TableOwner, handle

log = logging.getLogger("liverpool.web")

STATIC = Path(__file__).parent / "static"

_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Liverpool</title>
<p>The Liverpool server is running, but its browser front end is not installed
(<code>liverpool/web/static/index.html</code> is missing). The API is at <code>/api/</code>.</p>
"""


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def _api_error(exc: ApiError) -> JSONResponse:
    headers = {"retry-after": str(exc.retry_after)} if exc.retry_after is not None else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def _package_version() -> str:
    try:
        return metadata.version("liverpool-rummy")
    except metadata.PackageNotFoundError:
        return "0"


async def _body(request: Request, limits: Limits) -> dict[str, Any]:
    """The request's JSON object, read within the limits: a declared size over the limit was
    refused by the guard; an undeclared one is cut off as it comes; a body that trickles in
    is given up after ``body_timeout``."""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(limits.body_timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.max_body:
                    raise ApiError(413, "too_large",
                                   f"a request body has at most {limits.max_body} bytes")
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(408, "slow_body", f"the request body did not arrive within "
                                         f"{limits.body_timeout:g} s") from None
    raw = b"".join(chunks)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError) as e:  # also numbers of over 4,300 digits
        raise ApiError(400, "bad_json", f"the body is not JSON: {str(e)[:200]}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    if not json_depth_ok(body):
        raise ApiError(400, "bad_json", "the body nests lists and objects too deep")
    return body


def create_app(db_url: str | None = None, *, bot_commands: dict[str, str] | None = None,
               grace: float = 15.0, bot_think: float = 0.6, allow_seed: bool = False,
               store: Store | None = None, gc_freeze: bool = True,
               evict_after: float = 60.0, limits: Limits | None = None,
               origins: Origins | None = None, buy_window: float = 5.0,
               hand_pause: float = 30.0, redis_url: str | None = None,
               server_id: str | None = None) -> FastAPI:
    """The server app. ``db_url``: None (SQLite in the user's data directory), a file path,
    ``sqlite:///...`` or ``postgresql://...``. ``bot_commands`` maps extra bot level names to
    commands (``cmd:`` bots). ``grace``: seconds before a dropped player is covered by a bot.
    ``bot_think``: seconds a bot waits before each move. ``buy_window``: seconds a bot waits for
    the people who may still ask for the discard, ``hand_pause``: seconds the end-of-hand screen
    holds the next hand (both for tables that do not choose). ``allow_seed``: accept ``seed`` and
    ``deals`` when a table is created (for tests: it lets the host know the cards).
    ``gc_freeze``: keep the garbage collector's pauses short (see ``_gc_tidy``).
    ``evict_after``: seconds a finished table stays in memory once nobody is connected.
    ``limits``: what a client may cost (default: ``Limits.from_env()``); ``origins``: hosts,
    origins and the share links' address (docs/security.md). ``redis_url``: with a PostgreSQL
    database, the Redis through which the servers sharing it relay each other's clients
    (docs/deploy.md); ``server_id``: this server's name among them (a restarted server with
    the same name takes its tables back at once; default: a random one)."""
    commands = dict(bot_commands or {})
    for name in commands:
        if name in LEVELS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,31}", name):
            raise ValueError(f"bot name {name!r}: use letters, digits, _ . - (not a built-in "
                             f"level)")
    lim = limits or Limits.from_env()
    where = origins or Origins()
    ops = Ops()  # /healthz, /readyz, /metrics (docs/deploy.md)
    settings = Settings(grace=grace, bot_think=bot_think, bot_commands=commands, limits=lim,
                        origins=where, buy_window=buy_window, hand_pause=hand_pause,
                        metrics=ops.metrics)
    the_store = store or make_store(db_url, server_id)
    if redis_url and not isinstance(the_store, LeaseStore):
        raise ValueError("--redis needs a PostgreSQL database (--db postgresql://...): "
                         "servers share their tables through it")
    registry = Registry(the_store, settings, evict_after, redis_url)
    rates = RateLimiter(lim, shared=redis_url)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await the_store.open()
        try:
            await registry.resume_all()
        except BaseException:
            await the_store.close()
            raise
        tasks = [asyncio.create_task(registry.sweep_forever())]
        if gc_freeze:
            tasks.append(asyncio.create_task(_gc_tidy()))
        ops.started()
        try:
            yield
        finally:
            ops.stopping()
            for t in tasks:
                t.cancel()
            await registry.close()
            await the_store.close()
            if settings.bot_pools is not None:
                settings.bot_pools.shutdown()

    app = FastAPI(title="Liverpool", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.registry = registry
    app.state.store = the_store
    app.state.limits = lim
    app.add_middleware(Guard, limits=lim, origins=where, rates=rates)
    ops.install(app, the_store, lambda: [o.status for o in registry.owners.values()],
                lambda: sum(registry.sockets.values()))

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _api_error(exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        return _error(exc.status_code, codes.get(exc.status_code, "bad_request"),
                      str(exc.detail)[:200])

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        where = [".".join(str(x) for x in e.get("loc", ())) for e in exc.errors()]
        return _error(400, "bad_request", f"not a valid request: {', '.join(where)[:200]}")

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
                # words for people: a line per preset, each knob's topic and label
                "preset_lines": dict(PRESET_LINES),
                "knobs": [{key: row[key] for key in ("knob", "topic", "label")}
                          for row in knob_form(RuleSet())],
                "topics": list(TOPICS),
                "levels": [*LEVELS, *commands], "limits": lim.public(),
                "version": _package_version()}

    async def owner_of(table_id: str) -> TableOwner:
        """A finished table's owner (records and replays): loaded on any server."""
        try:
            owner = await registry.get(table_id) if TABLE_ID.fullmatch(table_id) else None
        except HeldElsewhere:  # so it is still in play
            raise ApiError(403, "not_over", "the game is not over yet") from None
        if owner is None:
            raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")
        return owner

    async def _known(table_id: str) -> None:
        """Refuse a request for a table that does not exist before reading its body (the
        table is found again, here or on its server, when the request is carried out)."""
        with contextlib.suppress(HeldElsewhere):
            if not TABLE_ID.fullmatch(table_id) or await registry.get(table_id) is None:
                raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")

    def link_base(request: Request) -> str:
        return where.link_base(request.url.scheme, request.headers.get("host", ""))

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        client = client_of(request.scope)
        body = await _body(request, lim)
        create = parse_create(body, lim, commands, allow_seed=allow_seed)
        # the limits are counted last: a refused request costs the client nothing
        await rates.check("create", client)
        table_id = await registry.new_id()
        async with registry.capacity.admit(client, table_id, registry.expire) as marks:
            # the game must be creatable now, not fail at the start (off the event loop)
            await asyncio.to_thread(check_startable, create)
            owner, token = await TableOwner.create(the_store, settings, table_id, create.config,
                                                   create.host_name, *marks)
            registry.add(owner)
        return {"table": owner.summary(), "seat": 0, "token": token,
                "join_secret": owner.join_secret, "share_url": owner.share_url(
                    link_base(request))}

    @app.get("/api/tables")
    async def list_tables(offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        """Public tables open or playing, newest first, a page at a time."""
        size = lim.lobby_page if limit is None else max(1, min(limit, lim.lobby_page))
        start = max(0, offset)
        if registry.cluster is not None:  # every server's tables, from the database
            return await registry.cluster.lobby(start, size)
        owners = [o for o in registry.owners.values()
                  if o.public and o.status in ("open", "playing")]
        owners.sort(key=lambda o: o.created, reverse=True)
        page: list[dict[str, Any]] = []
        for o in owners[start:start + size]:
            try:  # one table that cannot be shown never breaks the list
                summary = o.summary(full=False)
                json.dumps(summary, ensure_ascii=False).encode("utf-8")
                page.append(summary)
            except Exception:
                log.exception("table %s cannot be listed", o.id)
        return {"tables": page, "total": len(owners), "offset": start, "limit": size}

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await registry.table_op(table_id, "summary", {})
        return result

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        await _known(table_id)
        body = await _body(request, lim)
        nickname = clean_nickname(body.get("nickname"), lim.nickname_max)
        secret = secret_text(body.get("secret"))
        client = client_of(request.scope)
        await rates.check("join", client)
        result: dict[str, Any] = await registry.table_op(
            table_id, "join", {"nickname": nickname, "secret": secret, "client": client})
        return result

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, request: Request) -> dict[str, Any]:
        await _known(table_id)
        token = secret_text((await _body(request, lim)).get("token"))
        if token is None:
            raise ApiError(403, "bad_token", "the host's token is needed to start", "token")
        await rates.check("start", client_of(request.scope))
        result: dict[str, Any] = await registry.table_op(table_id, "start", {"token": token})
        return result

    @app.post("/api/tables/{table_id}/remove")
    async def remove(table_id: str, request: Request) -> dict[str, Any]:
        await _known(table_id)
        body = await _body(request, lim)
        token = secret_text(body.get("token"))
        if token is None:
            raise ApiError(403, "bad_token", "a seat's token is needed", "token")
        seat = body.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 8:
            raise ApiError(400, "bad_request", "seat must be a seat number", "seat")
        await rates.check("start", client_of(request.scope))
        result: dict[str, Any] = await registry.table_op(table_id, "remove",
                                                         {"token": token, "seat": seat})
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
        if owner.id not in registry.replays:  # building one costs; a kept one does not
            await rates.check("replay", client_of(request.scope))
        plain, packed = await registry.replay(owner)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(packed, media_type="application/json",
                            headers={"content-encoding": "gzip", "vary": "accept-encoding"})
        return Response(plain, media_type="application/json", headers={"vary": "accept-encoding"})

    @app.websocket("/ws/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        client = client_of(ws.scope)
        net = network_key(client)
        counts = ((registry.sockets, client), (registry.network_sockets, net))
        if registry.sockets.get(client, 0) >= lim.sockets_per_client:
            await ws.close(code=4429, reason="too many connections from one address")
            return
        if registry.network_sockets.get(net, 0) >= lim.sockets_per_network:
            await ws.close(code=4429, reason="too many connections from one network")
            return
        for count, key in counts:
            count[key] = count.get(key, 0) + 1
        try:
            await _serve_socket(ws, table_id)
        finally:
            for count, key in counts:
                left = count.get(key, 1) - 1
                if left > 0:
                    count[key] = left
                else:
                    count.pop(key, None)

    async def _serve_socket(ws: WebSocket, table_id: str) -> None:
        try:
            owner = await registry.get(table_id) if TABLE_ID.fullmatch(table_id) else None
        except ApiError as e:
            await ws.accept()
            await ws.close(code=4000 + e.status, reason=e.code)
            return
        except HeldElsewhere as e:
            await _relay_socket(ws, table_id, e.server)
            return
        if owner is None:
            await ws.accept()
            await ws.close(code=4404, reason="no such table")
            return
        owner.sockets += 1  # at once (no await since get): the owner is not evicted under us
        try:
            await ws.accept()
            conn = Conn(lim, where.link_base(ws.url.scheme, ws.headers.get("host", "")))
            sender = asyncio.create_task(_send_loop(ws, conn))
            try:
                await _receive_loop(ws, conn, lambda text: handle(conn, owner, text), rates)
            finally:
                conn.close()
                owner.post(owner.on_close, conn)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(sender, 1.0)
                if not sender.done():
                    sender.cancel()
        finally:
            owner.detach_socket()

    async def _relay_socket(ws: WebSocket, table_id: str, server: str) -> None:
        """A client of a table another server owns: its messages go there, the answers come
        back (the owner checks them; this server counts and bounds them, as for its own)."""
        await ws.accept()
        conn = Conn(lim, where.link_base(ws.url.scheme, ws.headers.get("host", "")))
        sender = asyncio.create_task(_send_loop(ws, conn))
        cluster = registry.cluster
        proxy = None if cluster is None else cluster.open_proxy(conn, table_id, server)
        if cluster is None or proxy is None:
            conn.error("broker", "this table is served by another server that this one "
                                 "cannot reach now; reconnecting")
            conn.close(BROKER_DOWN, "link between servers lost")
        else:
            def relay(text: str) -> None:
                if not conn.hello_sent:  # the hello's deadline is kept here
                    conn.hello_sent = _is_hello(text)
                cluster.relay(proxy, text)
            try:
                await _receive_loop(ws, conn, relay, rates)
            finally:
                conn.close()
                cluster.close_proxy(proxy)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(sender, 1.0)
        if not sender.done():
            sender.cancel()

    return app


def _is_hello(text: str) -> bool:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("type") == "hello"


GC_TIDY_EVERY = 0.1
# the automatic collections of young objects wait for this many new objects: between two tidies
# the tidy does their work (and a table's objects that live a moment are not scanned twice)
GC_YOUNG_THRESHOLD = 20_000


async def _gc_tidy() -> None:
    """Every tenth of a second, collect young garbage, then move every survivor out of the
    garbage collector's reach (``gc.freeze``). Games hold many long-lived objects (actions,
    melds, views); a full collection over all tables would stop every table for a few hundred
    milliseconds, while this collects only what was made since the last tidy. Frozen objects
    are still freed by reference counting. (Every 10 s, what survived in between made each
    tidy, and the automatic full collections between two tidies, stop the tables for 100 to
    300 ms at 750 tables. Every second, with the automatic collections of young objects every
    700 new ones, the collector took 14% of the server's time at 750 tables: a tidy of 25-38
    ms a second, and ten collections a second of the connections' waiting coroutines, 2.5 ms
    each. Every tenth of a second, with those collections waiting for 20,000 new objects,
    the tidies take half as long in all, 3 ms each.)"""
    thresholds = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *thresholds[1:])
    try:
        while True:
            gc.collect()
            gc.freeze()
            await asyncio.sleep(GC_TIDY_EVERY)
    finally:
        gc.set_threshold(*thresholds)


async def _send_loop(ws: WebSocket, conn: Conn) -> None:
    loop = asyncio.get_running_loop()
    out = conn.out
    try:
        while True:
            while not out:
                await conn.wait(loop)
            text = out.popleft()
            if text is None:
                break
            await ws.send_text(text)
            conn.sent(text)
    except Exception:  # the socket is gone; the receiver ends too
        conn.closed = True
        return
    if conn.close_code != 1000:  # dropped by the server: too slow, removed, expired...
        with contextlib.suppress(Exception):
            await ws.close(code=conn.close_code, reason=conn.close_reason)


async def _receive_loop(ws: WebSocket, conn: Conn, deliver: Callable[[str], None],
                        rates: RateLimiter) -> None:
    limits = conn.limits
    key = f"{id(conn)}"
    refused = 0
    hello_by = time.monotonic() + limits.hello_timeout
    while not conn.closed:
        try:
            if conn.hello_sent:
                msg = await ws.receive()
            else:  # a socket that never says hello holds a connection for nothing
                msg = await asyncio.wait_for(ws.receive(), max(0.0, hello_by - time.monotonic()))
        except TimeoutError:
            conn.close(1008, "no hello")
            return
        except (WebSocketDisconnect, RuntimeError):
            return
        if msg["type"] == "websocket.disconnect":
            return
        if not rates.hit("message", key):
            refused += 1
            if refused >= limits.message_flood:
                conn.close(1008, "too many messages")
                return
            if refused == 1:
                conn.error("rate_limited", f"too many messages: at most {limits.message_rate}; "
                                           f"this one was ignored")
            continue
        refused = 0
        text = msg.get("text")
        if text is None:
            data = msg.get("bytes") or b""
            if len(data) > limits.max_message:
                conn.error("too_large", f"a message has at most {limits.max_message} bytes")
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                conn.error("bad_json", "a message must be UTF-8 JSON text")
                continue
        if len(text) > limits.max_message // 4 and len(text.encode("utf-8", "replace")) > \
                limits.max_message:
            conn.error("too_large", f"a message has at most {limits.max_message} bytes")
            continue
        deliver(text)
