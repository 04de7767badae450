"""The ASGI application of ``liverpool serve``: the shared objects of one server, assembled
with the routes of its pages, lobby, tables and operations.

Domain words: *context* (``ServerContext``: what every route of one server shares, kept on
``app.state.context``), *lifespan* (the server's start, when tables are rebuilt or taken over,
and its stop, when they are let go), *gc tidy* (the garbage collector's short, frequent
collections that keep the tables' pauses short).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots import LEVELS
from . import (
    routes_lobby,
    routes_ops,
    routes_pages,
    routes_players,
    routes_reviews,
    routes_tables,
)
from .context import ServerContext
from .guard import Guard, Origins
from .leases import LeaseStore, make_store
from .limits import ApiError, Limits, RateLimiter
from .ops import Ops
from .playerdb import SqlPlayers
from .players import People
from .registry import Registry
from .reviews import Reviews
from .seats import Settings
from .store import Store, StoreError

log = logging.getLogger("liverpool.web")


def create_app(db_url: str | None = None, *, bot_commands: dict[str, str] | None = None,
               grace: float = 15.0, bot_think: float = 0.6, allow_seed: bool = False,
               store: Store | None = None, gc_freeze: bool = True,
               evict_after: float = 60.0, limits: Limits | None = None,
               origins: Origins | None = None, buy_window: float = 5.0,
               hand_pause: float = 30.0, redis_url: str | None = None,
               server_id: str | None = None, record_pause: float = 0.0) -> FastAPI:
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
    the same name takes its tables back at once; default: a random one). ``record_pause``:
    seconds the recording of a finished game waits inside its transaction (tests only: a
    server killed there must leave the game to be recorded once by another)."""
    commands = dict(bot_commands or {})
    for name in commands:
        if name in LEVELS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,31}", name):
            raise ValueError(f"bot name {name!r}: use letters, digits, _ . - (not a built-in "
                             f"level)")
    lim = limits or Limits.from_env()
    ops = Ops()  # /healthz, /readyz, /metrics (docs/deploy.md)
    settings = Settings(grace=grace, bot_think=bot_think, bot_commands=commands, limits=lim,
                        origins=origins or Origins(), buy_window=buy_window,
                        hand_pause=hand_pause, metrics=ops.metrics)
    the_store = store or make_store(db_url, server_id)
    if record_pause and isinstance(the_store.players, SqlPlayers):
        the_store.players.pause = record_pause
    if redis_url and not isinstance(the_store, LeaseStore):
        raise ValueError("--redis needs a PostgreSQL database (--db postgresql://...): "
                         "servers share their tables through it")
    registry = Registry(the_store, settings, evict_after, redis_url)
    context = ServerContext(settings=settings, store=the_store, registry=registry,
                            rates=RateLimiter(lim, shared=redis_url), ops=ops,
                            allow_seed=allow_seed, reviews=Reviews(the_store, lim))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await the_store.open()
        if the_store.players is not None:
            settings.people = People(the_store.players, lim, context.rates)
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
            await context.reviews.close()
            await registry.close()
            await the_store.close()
            if settings.bot_pools is not None:
                settings.bot_pools.shutdown()

    app = FastAPI(title="Liverpool", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.context = context
    # (also by name, for the command and the tests)
    app.state.registry = registry
    app.state.store = the_store
    app.state.limits = lim
    app.state.ops = ops
    app.state.reviews = context.reviews
    app.add_middleware(Guard, limits=lim, origins=settings.origins, rates=context.rates)
    ops.watch(the_store, lambda: [o.status for o in registry.owners.values()],
              lambda: sum(registry.sockets.values()))
    app.exception_handler(ApiError)(_api_error)
    app.exception_handler(StarletteHTTPException)(_http_error)
    app.exception_handler(RequestValidationError)(_validation_error)
    app.exception_handler(StoreError)(_store_error)
    app.include_router(routes_ops.router)
    app.include_router(routes_pages.router)
    routes_pages.mount_static(app)
    app.include_router(routes_lobby.router)
    app.include_router(routes_tables.router)
    app.include_router(routes_players.router)
    app.include_router(routes_reviews.router)
    return app


# ---- errors: every refusal is {"error": code, "message": text} (docs/web-protocol.md) ---------
def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
    headers = {"retry-after": str(exc.retry_after)} if exc.retry_after is not None else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
    codes = {404: "not_found", 405: "method_not_allowed"}
    return _error(exc.status_code, codes.get(exc.status_code, "bad_request"),
                  str(exc.detail)[:200])


async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
    where = [".".join(str(x) for x in e.get("loc", ())) for e in exc.errors()]
    return _error(400, "bad_request", f"not a valid request: {', '.join(where)[:200]}")


async def _store_error(_request: Request, exc: StoreError) -> JSONResponse:
    log.warning("store: %s", exc)  # not to the client: it may quote other tables' rows
    return _error(503, "storage", "the database did not store the change, so nothing "
                                  "changed; try again")


# ---- the garbage collector ------------------------------------------------------------------
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
