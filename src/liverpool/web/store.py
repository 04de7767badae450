"""Storage for the web server: tables and their event logs, in SQLite or PostgreSQL.

Domain words: *table* (one game room: its configuration and status), *event* (one numbered
change to a table: ``create``, ``join``, ``start``, ``action``; the number is the table's
*version*), *batch* (appends from every table written in one transaction, so that many tables
can each wait for their own write without one commit per action), *review* (a finished game's
review of one seat, kept once made: ``lv_reviews``).

A table is rebuilt from its configuration and its events, so the events are the truth; the
``status`` column only lets a restart find the tables still in play without reading them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from ..paths import data_dir

if TYPE_CHECKING:
    from .playerstore import PlayerStore

log = logging.getLogger("liverpool.web")

metadata = sa.MetaData()
tables_t = sa.Table(
    "lv_tables", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("config", sa.Text, nullable=False),
)
events_t = sa.Table(
    "lv_events", metadata,
    sa.Column("table_id", sa.String(32), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)
notes_t = sa.Table(
    "lv_notes", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(32), nullable=False, index=True),
    sa.Column("data", sa.Text, nullable=False),
)
sa.Index("lv_tables_status", tables_t.c.status)
# finished games' reviews (reviews.py), one per table, seat and worlds per decision: made once,
# read by every later request (and by every server on the same database)
reviews_t = sa.Table(
    "lv_reviews", metadata,
    sa.Column("table_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("worlds", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

BATCH_MAX = 512


class StoreError(RuntimeError):
    """The database refused a write; the change it carried did not happen."""


@dataclass
class StoredEvent:
    version: int
    kind: str
    data: dict[str, Any]


@dataclass
class StoredTable:
    id: str
    created: float
    status: str
    config: dict[str, Any]
    events: list[StoredEvent] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)  # incidents, in order


class Store(ABC):
    """What the server needs from a database: a small interface with two implementations."""

    # told how many writes the database refused, each time it refuses (the server's metrics)
    on_write_error: Callable[[int], None] | None = None
    # the players' side of the store, on the same database (None: a store keeping no
    # players: its games end unrated)
    players: PlayerStore | None = None

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def create_table(self, table: StoredTable) -> None:
        """Write a new table with its first event (version 0)."""

    @abstractmethod
    async def append(self, table_id: str, ev: StoredEvent, status: str | None = None) -> None:
        """Write one event (and the table's new status, if it changed); returns once durable."""

    @abstractmethod
    async def set_status(self, table_id: str, status: str) -> None: ...

    @abstractmethod
    async def add_note(self, table_id: str, note: dict[str, Any]) -> None:
        """Keep a note about a table that is not a game event (a bot's incident)."""

    async def prune_chat(self, table_id: str, keep: int) -> None:
        """Forget a table's chat lines but its last ``keep`` (notes ``{"chat": ...}``,
        tablechat.py); a store that keeps no notes has none to forget."""
        return None

    async def load_review(self, table_id: str, seat: int, worlds: int) -> dict[str, Any] | None:
        """A finished game's review of ``seat`` kept by ``save_review`` (None: none kept; a
        store that keeps no reviews has none)."""
        return None

    async def save_review(self, table_id: str, seat: int, worlds: int,
                          data: dict[str, Any]) -> None:
        """Keep a review (the first kept stays: a review is reproducible)."""
        return None

    @abstractmethod
    async def load(self, table_id: str) -> StoredTable | None: ...

    @abstractmethod
    async def active_ids(self) -> list[str]:
        """Tables still open or playing, oldest first (those a restart resumes)."""


SCHEMA_ATTEMPTS = 5
RETRYABLE_SQLSTATES = ("40P01", "40001")  # deadlock detected, serialization failure


def _retryable(e: BaseException) -> bool:
    return getattr(getattr(e, "orig", None), "sqlstate", None) in RETRYABLE_SQLSTATES


class SqlStore(Store):
    """SQLAlchemy Core (async). Appends from all tables go through one writer task that commits
    them in batches; each caller awaits its own append."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine | None = None
        self._queue: asyncio.Queue[tuple[str, Any, asyncio.Future[None]]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None

    def _make_engine(self) -> AsyncEngine:
        return create_async_engine(self.url)

    @property
    def postgres(self) -> bool:
        return self.url.startswith("postgresql")

    def _where(self) -> str:
        return "PostgreSQL" if self.postgres else sqlite_path(self.url)

    async def open(self) -> None:
        self.engine = self._make_engine()
        for attempt in range(SCHEMA_ATTEMPTS):
            try:
                async with self.engine.begin() as conn:
                    await self._create_schema(conn)
                break
            except Exception as e:  # unreachable, read-only, not a database: one clear line
                if attempt + 1 < SCHEMA_ATTEMPTS and _retryable(e):
                    # servers upgrading the schema while others write: the database chose
                    # this one to give way; its transaction changed nothing
                    await asyncio.sleep(0.1 * (attempt + 1))
                    continue
                await self.engine.dispose()
                self.engine = None
                raise StoreError(f"cannot open the database ({self._where()}): "
                                 f"{_first_line(e)}") from None
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")

    async def _create_schema(self, conn: AsyncConnection) -> None:
        await conn.run_sync(metadata.create_all)

    async def close(self) -> None:
        if self._writer is not None:
            # let the pending writes finish: an owner may be waiting for them
            while not self._queue.empty():
                await asyncio.sleep(0.01)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        if self.engine is not None:
            await self.engine.dispose()
            self.engine = None

    def _submit(self, kind: str, payload: Any) -> asyncio.Future[None]:
        # the writer's loop is the caller's: asked of the task, not looked up (under Python
        # 3.11 each look-up of the running loop is a system call, getpid)
        writer = self._writer
        loop = writer.get_loop() if writer is not None else asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put_nowait((kind, payload, fut))
        return fut

    async def create_table(self, table: StoredTable) -> None:
        await self._submit("create", table)

    async def append(self, table_id: str, ev: StoredEvent, status: str | None = None) -> None:
        await self._submit("append", (table_id, ev, status))

    async def set_status(self, table_id: str, status: str) -> None:
        await self._submit("status", (table_id, status))

    async def add_note(self, table_id: str, note: dict[str, Any]) -> None:
        await self._submit("note", (table_id, note))

    async def prune_chat(self, table_id: str, keep: int) -> None:
        # rare (every hundred lines past the bound) and outside the batches: a chat line's
        # note is the text of ``{"chat": {...}}``, the only note of that beginning
        assert self.engine is not None
        chat = sa.and_(notes_t.c.table_id == table_id, notes_t.c.data.like('{"chat"%'))
        cut = (sa.select(notes_t.c.id).where(chat).order_by(notes_t.c.id.desc())
               .limit(1).offset(max(0, keep - 1)).scalar_subquery())
        async with self.engine.begin() as conn:
            await conn.execute(sa.delete(notes_t).where(chat, notes_t.c.id < cut))

    async def load_review(self, table_id: str, seat: int, worlds: int) -> dict[str, Any] | None:
        assert self.engine is not None
        async with self.engine.connect() as conn:
            data = (await conn.execute(sa.select(reviews_t.c.data).where(
                reviews_t.c.table_id == table_id, reviews_t.c.seat == seat,
                reviews_t.c.worlds == worlds))).scalar()
        if data is None:
            return None
        out: dict[str, Any] = json.loads(data)
        return out

    async def save_review(self, table_id: str, seat: int, worlds: int,
                          data: dict[str, Any]) -> None:
        # outside the batches: a review is made once in minutes, and no table waits for it
        assert self.engine is not None
        insert = (pg_insert if self.postgres else sqlite_insert)(reviews_t).values(
            table_id=table_id, seat=seat, worlds=worlds, created=time.time(),
            data=json.dumps(data, separators=(",", ":")))
        async with self.engine.begin() as conn:
            # another server may have made the same review meanwhile: the same one
            await conn.execute(insert.on_conflict_do_nothing())

    async def _write_loop(self) -> None:
        assert self.engine is not None
        # the writer keeps its own connection: no pool check-out and reset per batch
        conn: AsyncConnection | None = None
        try:
            while True:
                first = await self._queue.get()
                batch = [first]
                while len(batch) < BATCH_MAX and not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                try:
                    if conn is None:
                        conn = await self.engine.connect()
                    await self._write(conn, batch)
                except Exception as e:  # every waiter learns of the failure
                    log.exception("store: a batch of %d writes failed", len(batch))
                    if conn is not None:
                        with contextlib.suppress(Exception):
                            await conn.close()
                        conn = None
                    self._fail(batch, e)
                    if self.on_write_error is not None:
                        self.on_write_error(len(batch))
                    continue
                for _, _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)
        finally:
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()

    @staticmethod
    def _fail(batch: list[tuple[str, Any, asyncio.Future[None]]], e: Exception) -> None:
        for _, _, fut in batch:
            if not fut.done():
                fut.set_exception(StoreError(f"the database refused the write: {e}"))

    async def _write(self, conn: AsyncConnection,
                     batch: list[tuple[str, Any, asyncio.Future[None]]]) -> None:
        new_tables, events, notes, statuses = _batch_rows(batch)
        async with conn.begin():
            if new_tables:
                await conn.execute(tables_t.insert(), new_tables)
            if events:
                await conn.execute(events_t.insert(), events)
            if notes:
                await conn.execute(notes_t.insert(), notes)
            for table_id, status in statuses.items():
                await conn.execute(tables_t.update().where(tables_t.c.id == table_id)
                                   .values(status=status))

    async def load(self, table_id: str) -> StoredTable | None:
        assert self.engine is not None
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(tables_t).where(tables_t.c.id == table_id))
                   ).first()
            if row is None:
                return None
            evs = (await conn.execute(
                sa.select(events_t.c.version, events_t.c.kind, events_t.c.data)
                .where(events_t.c.table_id == table_id).order_by(events_t.c.version))).all()
            notes = (await conn.execute(
                sa.select(notes_t.c.data).where(notes_t.c.table_id == table_id)
                .order_by(notes_t.c.id))).all()
        return StoredTable(row.id, row.created, row.status, json.loads(row.config),
                           [StoredEvent(v, k, json.loads(d)) for v, k, d in evs],
                           [json.loads(d) for (d,) in notes])

    async def load_many(self, table_ids: list[str]) -> dict[str, StoredTable]:
        """``load`` for many tables in three queries (those that exist)."""
        assert self.engine is not None
        if not table_ids:
            return {}
        out: dict[str, StoredTable] = {}
        async with self.engine.connect() as conn:
            for row in (await conn.execute(sa.select(tables_t)
                                           .where(tables_t.c.id.in_(table_ids)))).all():
                out[row.id] = StoredTable(row.id, row.created, row.status,
                                          json.loads(row.config))
            evs = (await conn.execute(
                sa.select(events_t.c.table_id, events_t.c.version, events_t.c.kind,
                          events_t.c.data)
                .where(events_t.c.table_id.in_(list(out)))
                .order_by(events_t.c.table_id, events_t.c.version))).all()
            notes = (await conn.execute(
                sa.select(notes_t.c.table_id, notes_t.c.data)
                .where(notes_t.c.table_id.in_(list(out))).order_by(notes_t.c.id))).all()
        for t, v, k, d in evs:
            out[t].events.append(StoredEvent(v, k, json.loads(d)))
        for t, d in notes:
            out[t].notes.append(json.loads(d))
        return out

    async def active_ids(self) -> list[str]:
        assert self.engine is not None
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(tables_t.c.id).where(tables_t.c.status.in_(("open", "playing")))
                .order_by(tables_t.c.created))).all()
        return [r.id for r in rows]


def _batch_rows(batch: list[tuple[str, Any, asyncio.Future[None]]]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]],
                           dict[str, str]]:
    """A batch's rows: the new tables, the events, the notes and each table's last status."""
    new_tables: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    statuses: dict[str, str] = {}
    notes: list[dict[str, Any]] = []
    for kind, payload, _ in batch:
        if kind == "create":
            t: StoredTable = payload
            new_tables.append({"id": t.id, "created": t.created, "status": t.status,
                               "config": json.dumps(t.config)})
            for ev in t.events:
                events.append(_event_row(t.id, ev))
        elif kind == "status":
            statuses[payload[0]] = payload[1]
        elif kind == "note":
            notes.append({"table_id": payload[0], "data": json.dumps(payload[1])})
        else:
            table_id, ev, status = payload
            events.append(_event_row(table_id, ev))
            if status is not None:
                statuses[table_id] = status
    return new_tables, events, notes, statuses


def _insert_sql(table: sa.Table, columns: tuple[str, ...]) -> str:
    return (f"INSERT INTO {table.name} ({', '.join(columns)}) "
            f"VALUES ({', '.join(':' + c for c in columns)})")


_SQLITE_WRITES = (
    _insert_sql(tables_t, ("id", "created", "status", "config")),
    _insert_sql(events_t, ("table_id", "version", "kind", "data")),
    _insert_sql(notes_t, ("table_id", "data")),
    f"UPDATE {tables_t.name} SET status = :status WHERE id = :id")


def _event_row(table_id: str, ev: StoredEvent) -> dict[str, Any]:
    return {"table_id": table_id, "version": ev.version, "kind": ev.kind,
            "data": json.dumps(ev.data, separators=(",", ":"))}


class FileLock:
    """An exclusive lock on ``PATH.lock`` beside a SQLite database, held while one server uses
    it: two servers on one file would each believe they own its tables. The lock goes with the
    process (the kernel drops it even on SIGKILL), so a crash never leaves it behind."""

    def __init__(self, db_path: str) -> None:
        self.path = Path(db_path + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl
        import os
        if self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot use the database at {self.path.parent}: "
                             f"{e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"another liverpool serve is using the database "
                             f"{self.path.with_suffix('')}; stop it, or give this one another "
                             f"--db") from None
        self._fd = fd

    def release(self) -> None:
        import os
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA busy_timeout=30000",
            "PRAGMA synchronous=NORMAL")


class SqliteStore(SqlStore):
    """SQLite through aiosqlite: WAL mode (readers never wait for the writer), a busy timeout,
    and ``synchronous=NORMAL`` (a commit survives the server process being killed; only a power
    loss can take the last commits). One server per file (``FileLock``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.lock = FileLock(sqlite_path(url))
        # the batches are written by a connection of their own, in a thread of their own, in
        # one call per batch (through SQLAlchemy and aiosqlite, a batch took five or six trips
        # to aiosqlite's thread and back, each one a handover of the GIL: about 9% of the
        # event loop's time at 750 bench tables)
        self._db: sqlite3.Connection | None = None
        self._db_thread: ThreadPoolExecutor | None = None

    async def open(self) -> None:
        self.lock.acquire()
        try:
            await super().open()
        except BaseException:
            self.lock.release()
            raise

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self._db_thread is not None:
                with contextlib.suppress(Exception):
                    await asyncio.get_running_loop().run_in_executor(self._db_thread,
                                                                     self._close_db)
                self._db_thread.shutdown(wait=False)
                self._db_thread = None
            self.lock.release()

    def _close_db(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    async def _write(self, conn: AsyncConnection,
                     batch: list[tuple[str, Any, asyncio.Future[None]]]) -> None:
        rows = _batch_rows(batch)
        if self._db_thread is None:
            self._db_thread = ThreadPoolExecutor(1, thread_name_prefix="liverpool-store")
        writer = self._writer  # (the loop asked of the writer's task, as in _submit)
        loop = writer.get_loop() if writer is not None else asyncio.get_running_loop()
        await loop.run_in_executor(self._db_thread, self._write_rows, rows)

    def _write_rows(self, rows: tuple[list[dict[str, Any]], list[dict[str, Any]],
                                      list[dict[str, Any]], dict[str, str]]) -> None:
        """One batch in one transaction, in the writer's thread (or none of it)."""
        if self._db is None:
            db = sqlite3.connect(sqlite_path(self.url), timeout=30, isolation_level=None,
                                 check_same_thread=False)
            for pragma in _PRAGMAS:
                db.execute(pragma)
            self._db = db
        db = self._db
        new_tables, events, notes, statuses = rows
        insert_table, insert_event, insert_note, set_status = _SQLITE_WRITES
        db.execute("BEGIN IMMEDIATE")
        try:
            if new_tables:
                db.executemany(insert_table, new_tables)
            if events:
                db.executemany(insert_event, events)
            if notes:
                db.executemany(insert_note, notes)
            for table_id, status in statuses.items():
                db.execute(set_status, {"status": status, "id": table_id})
            db.execute("COMMIT")
        except BaseException:
            # a fresh connection for the next batch, as the writer of the other stores does
            self._db = None
            with contextlib.suppress(Exception):
                db.execute("ROLLBACK")
            with contextlib.suppress(Exception):
                db.close()
            raise

    def _make_engine(self) -> AsyncEngine:
        engine = create_async_engine(self.url, connect_args={"timeout": 30})

        @sa_event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            for pragma in _PRAGMAS:
                cur.execute(pragma)
            cur.close()
        return engine


class PostgresStore(SqlStore):
    """PostgreSQL through psycopg 3 (async)."""

    def _make_engine(self) -> AsyncEngine:
        return create_async_engine(self.url, pool_size=5, max_overflow=5, pool_pre_ping=True)


def sqlite_path(url: str) -> str:
    return url.split("///", 1)[-1]


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip().splitlines()
    return text[0] if text else type(e).__name__


def default_sqlite_path() -> Path:
    return data_dir() / "liverpool.db"


def normalize_url(db: str | None) -> str:
    """A SQLAlchemy async URL from what a user may type: nothing (the default SQLite file), a
    file path, ``sqlite:///...``, or ``postgresql://...``."""
    if not db:
        path = default_sqlite_path()
        _make_dir(path.parent)
        return f"sqlite+aiosqlite:///{path}"
    for prefix in ("postgresql+psycopg://", "sqlite+aiosqlite://"):
        if db.startswith(prefix):
            return db
    for prefix in ("postgresql://", "postgres://"):
        if db.startswith(prefix):
            return "postgresql+psycopg://" + db[len(prefix):]
    if db.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + db[len("sqlite://"):]
    if "://" in db:
        raise ValueError(f"unsupported database URL {db!r}: use postgresql://... or a SQLite "
                         f"file path")
    path = Path(db).expanduser().resolve()
    _make_dir(path.parent)
    return f"sqlite+aiosqlite:///{path}"


def _make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot make the data directory {path}: {e.strerror or e}") from None
