"""Table leases in PostgreSQL: which server owns which table, and writes fenced by it.

Domain words: *server* (one ``liverpool serve`` process, with an id, its row in
``lv_servers`` seen again at every renewal; the row's *session* tells the process holding the
id from another one started under the same id by mistake), *lease* (a table's row in
``lv_leases``: its owner, its *epoch* and when it expires, by the database's clock), *claim*
(taking a table whose lease is free or expired: the epoch goes up by one), *renewal* (one
statement a second that extends every lease a server holds, and tells it which it has lost),
*fence* (every event carries the epoch its writer holds; the database refuses an event whose
epoch is not the table's current one, so an owner that lost its lease can never write again).

Several servers on one PostgreSQL database each own the tables they hold a lease on; a server
that dies stops renewing, its leases expire, and another claims its tables and replays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .playerdb import SqlPlayers
from .store import (
    PostgresStore,
    SqliteStore,
    SqlStore,
    Store,
    StoredTable,
    StoreError,
    _event_row,
    normalize_url,
    notes_t,
    tables_t,
)

log = logging.getLogger("liverpool.web")

LEASE_TTL = 5.0  # seconds a lease lasts without renewal: the longest a dead server holds tables
RENEW_EVERY = 1.0

NOW = "extract(epoch from clock_timestamp())"

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS lv_leases (
        table_id varchar(32) PRIMARY KEY,
        owner varchar(40),
        epoch bigint NOT NULL DEFAULT 0,
        expires double precision NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS lv_leases_owner ON lv_leases (owner)",
    """CREATE TABLE IF NOT EXISTS lv_servers (
        id varchar(40) PRIMARY KEY,
        started double precision NOT NULL,
        seen double precision NOT NULL,
        address text NOT NULL DEFAULT '')""",
    "ALTER TABLE lv_servers ADD COLUMN IF NOT EXISTS session varchar(32) NOT NULL DEFAULT ''",
    "ALTER TABLE lv_events ADD COLUMN IF NOT EXISTS epoch bigint",
    # the fence itself: an event for a leased table must carry the lease's epoch. The lease row
    # is share-locked until the write commits, so a claim waits for it, and a write after a
    # claim sees the new epoch and is refused
    """CREATE OR REPLACE FUNCTION lv_fence() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE held bigint;
    BEGIN
        SELECT epoch INTO held FROM lv_leases WHERE table_id = NEW.table_id FOR SHARE;
        IF FOUND AND NEW.epoch IS DISTINCT FROM held THEN
            RAISE EXCEPTION 'fenced: table % is held under lease epoch %, not %',
                NEW.table_id, held, NEW.epoch;
        END IF;
        RETURN NEW;
    END $$""",
    "DROP TRIGGER IF EXISTS lv_events_fence ON lv_events",
    """CREATE TRIGGER lv_events_fence BEFORE INSERT ON lv_events
        FOR EACH ROW EXECUTE FUNCTION lv_fence()""",
]
SCHEMA_VERSION = 2  # of SCHEMA: one more at each change to it
SCHEMA_LOCK = 0x6C76  # an advisory lock: servers starting together set the schema one by one


class ServerIdInUse(StoreError):
    """Another running process holds this server id (two processes under one id would both
    believe they own its tables)."""


class FencedError(StoreError):
    """This server no longer holds the table's lease: the write was refused, and the table
    belongs to another server now."""


class LeaseStore(PostgresStore):
    """PostgreSQL storage whose writes are fenced by table leases (any server on PostgreSQL
    uses it, so two servers on one database never both own a table)."""

    def __init__(self, url: str, server_id: str | None = None, ttl: float = LEASE_TTL,
                 address: str = "") -> None:
        super().__init__(url)
        self.server_id = server_id or secrets.token_hex(8)
        self.ttl = ttl
        self.address = address
        self.epochs: dict[str, int] = {}  # the tables this server holds, with their epochs
        # told when a table's lease is lost (a renewal missed it, or a write was fenced)
        self.on_lost: Callable[[str], None] | None = None
        self._renewed_at = time.monotonic()
        self._creating: set[str] = set()  # tables whose first write is not committed yet
        self.session = secrets.token_hex(8)  # this process's hold on ``server_id``
        # set when another process took this server id: this one then holds and claims nothing
        self.usurped = False

    async def open(self) -> None:
        await super().open()
        await self._take_server_id()

    async def _take_server_id(self) -> None:
        """Hold ``server_id`` in ``lv_servers`` for this process. A row still renewed by
        another process means a second server was given a running one's id: refused. A row
        left by a process that died (it stopped renewing) is taken once its leases could have
        expired, so a quick restart under the same id waits at most the lease's life."""
        assert self.engine is not None
        first_seen: float | None = None
        while True:
            async with self.engine.begin() as conn:
                row = (await conn.execute(sa.text(
                    f"SELECT seen, {NOW} FROM lv_servers WHERE id = :id FOR UPDATE"),
                    {"id": self.server_id})).first()
                if row is not None and first_seen is not None and float(row[0]) != first_seen:
                    raise ServerIdInUse(
                        f"server id {self.server_id!r} is in use by a running server (it "
                        f"renewed its leases {max(0.0, float(row[1]) - float(row[0])):.1f} s "
                        f"ago): give each server its own --server-id")
                if row is None or float(row[0]) + self.ttl < float(row[1]):
                    await conn.execute(sa.text(
                        f"INSERT INTO lv_servers (id, started, seen, address, session) "
                        f"VALUES (:id, {NOW}, {NOW}, :address, :s) ON CONFLICT (id) DO UPDATE "
                        f"SET started = {NOW}, seen = {NOW}, address = :address, session = :s"),
                        {"id": self.server_id, "address": self.address, "s": self.session})
                    return
                if first_seen is None:
                    first_seen = float(row[0])
            await asyncio.sleep(0.25)

    async def _create_schema(self, conn: AsyncConnection) -> None:
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": SCHEMA_LOCK})
        await super()._create_schema(conn)
        await conn.execute(sa.text(
            "CREATE TABLE IF NOT EXISTS lv_schema (id int PRIMARY KEY, version int NOT NULL)"))
        made = (await conn.execute(sa.text("SELECT version FROM lv_schema WHERE id = 1"))
                ).scalar()
        if made is not None and int(made) >= SCHEMA_VERSION:
            # made already: altering tables other servers are writing would wait for their
            # transactions and lock them out meanwhile (or deadlock with them)
            return
        for statement in SCHEMA:
            await conn.execute(sa.text(statement))
        await conn.execute(sa.text(
            "INSERT INTO lv_schema (id, version) VALUES (1, :v) "
            "ON CONFLICT (id) DO UPDATE SET version = :v"), {"v": SCHEMA_VERSION})

    async def close(self) -> None:
        if self.engine is not None:
            with contextlib.suppress(Exception):
                await self.release_all()
        await super().close()

    # ------------------------------------------------------------------ leases
    async def claim(self, table_id: str) -> int | None:
        """Take the table's lease if it is free or expired; its new epoch, or None when a
        live server holds it."""
        assert self.engine is not None
        if self.usurped:
            return None
        async with self.engine.begin() as conn:
            await conn.execute(sa.text(
                "INSERT INTO lv_leases (table_id, owner, epoch, expires) "
                "VALUES (:t, NULL, 0, 0) ON CONFLICT DO NOTHING"), {"t": table_id})
            row = (await conn.execute(sa.text(
                # a lease this server's id holds from before a restart is taken again at once
                # (under a new epoch: nothing the old process had in flight can land)
                f"UPDATE lv_leases SET owner = :me, expires = {NOW} + :ttl, epoch = epoch + 1 "
                f"WHERE table_id = :t AND (owner IS NULL OR owner = :me OR expires < {NOW}) "
                f"RETURNING epoch"), {"t": table_id, "me": self.server_id, "ttl": self.ttl})
                   ).first()
        if row is None:
            return None
        self.epochs[table_id] = int(row[0])
        return int(row[0])

    async def claim_many(self, table_ids: list[str]) -> dict[str, int]:
        """``claim`` for many tables in one statement: those taken, with their new epochs."""
        assert self.engine is not None
        if not table_ids or self.usurped:
            return {}
        async with self.engine.begin() as conn:
            await conn.execute(sa.text(
                "INSERT INTO lv_leases (table_id, owner, epoch, expires) "
                "SELECT t, NULL, 0, 0 FROM unnest(CAST(:ids AS varchar[])) AS t "
                "ON CONFLICT DO NOTHING"), {"ids": table_ids})
            rows = (await conn.execute(sa.text(
                f"UPDATE lv_leases SET owner = :me, expires = {NOW} + :ttl, epoch = epoch + 1 "
                f"WHERE table_id = ANY(:ids) "
                f"AND (owner IS NULL OR owner = :me OR expires < {NOW}) "
                f"RETURNING table_id, epoch"),
                {"ids": table_ids, "me": self.server_id, "ttl": self.ttl})).all()
        claimed = {r[0]: int(r[1]) for r in rows}
        self.epochs.update(claimed)
        return claimed

    async def status_of(self, table_id: str) -> str | None:
        """The table's stored status, None if there is no such table."""
        return (await self.statuses([table_id])).get(table_id)

    async def statuses(self, table_ids: list[str]) -> dict[str, str]:
        """The stored status of each of these tables that exists."""
        if not table_ids:
            return {}
        assert self.engine is not None
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(tables_t.c.id, tables_t.c.status)
                                       .where(tables_t.c.id.in_(table_ids)))).all()
        return {str(r[0]): str(r[1]) for r in rows}

    async def holder(self, table_id: str) -> str | None:
        """The live server holding the table's lease (None: nobody)."""
        return (await self.holders([table_id])).get(table_id)

    async def holders(self, table_ids: list[str]) -> dict[str, str]:
        assert self.engine is not None
        if not table_ids:
            return {}
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.text(
                f"SELECT table_id, owner FROM lv_leases WHERE table_id = ANY(:ids) "
                f"AND owner IS NOT NULL AND expires >= {NOW}"), {"ids": table_ids})).all()
        return {r[0]: r[1] for r in rows}

    async def release(self, table_id: str) -> None:
        """Let a table go (a finished one leaves memory): any server may load it again."""
        self.epochs.pop(table_id, None)
        assert self.engine is not None
        async with self.engine.begin() as conn:
            await conn.execute(sa.text(
                "UPDATE lv_leases SET owner = NULL, expires = 0 "
                "WHERE table_id = :t AND owner = :me"), {"t": table_id, "me": self.server_id})

    async def release_all(self) -> None:
        """A server that stops lets its tables go at once (no wait for the leases to expire)."""
        held = list(self.epochs)
        self.epochs.clear()
        assert self.engine is not None
        async with self.engine.begin() as conn:
            mine = (await conn.execute(sa.text(
                "DELETE FROM lv_servers WHERE id = :me AND session = :s RETURNING id"),
                {"me": self.server_id, "s": self.session})).first()
            if mine is None:  # the id is another process's now (or was never this one's)
                return
            await conn.execute(sa.text(
                "UPDATE lv_leases SET owner = NULL, expires = 0 WHERE owner = :me"),
                {"me": self.server_id})
        log.info("released %d table leases", len(held))

    async def renew(self) -> list[str]:
        """Extend every lease this server holds; the tables whose lease it has lost."""
        assert self.engine is not None
        # only leases held before the renewal can be missing from it (a claim or a creation
        # that commits meanwhile is not lost)
        if self.usurped:
            return []
        before = {t: e for t, e in self.epochs.items() if t not in self._creating}
        try:
            async with self.engine.begin() as conn:
                # the id first: if another process holds it, its leases are not this one's
                mine = (await conn.execute(sa.text(
                    f"INSERT INTO lv_servers (id, started, seen, address, session) "
                    f"VALUES (:me, {NOW}, {NOW}, :a, :s) "
                    f"ON CONFLICT (id) DO UPDATE SET seen = {NOW} "
                    f"WHERE lv_servers.session = :s RETURNING id"),
                    {"me": self.server_id, "a": self.address, "s": self.session})).first()
                if mine is None:
                    self.usurped = True
                else:
                    rows = (await conn.execute(sa.text(
                        f"UPDATE lv_leases SET expires = {NOW} + :ttl WHERE owner = :me "
                        f"RETURNING table_id, epoch"), {"me": self.server_id, "ttl": self.ttl})
                            ).all()
            if self.usurped:
                log.error("another process took this server's id %r: this one lets every "
                          "table go and claims none (give each server its own --server-id)",
                          self.server_id)
                lost = list(self.epochs)
                self.epochs.clear()
                return lost
        except Exception as e:
            if time.monotonic() - self._renewed_at < self.ttl:
                log.warning("lease renewal failed: %s", str(e).splitlines()[0][:200])
                return []
            # past the lease's life another server may hold any of them: hold none
            lost = list(self.epochs)
            self.epochs.clear()
            return lost
        self._renewed_at = time.monotonic()
        held = {r[0]: int(r[1]) for r in rows}
        lost = [t for t, e in before.items() if held.get(t) != e and self.epochs.get(t) == e]
        for t in lost:
            del self.epochs[t]
        return lost

    async def orphans(self, limit: int) -> list[str]:
        """Tables still open or playing that no live server holds (their owner died)."""
        assert self.engine is not None
        if self.usurped:
            return []
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.text(
                f"SELECT t.id FROM lv_tables t LEFT JOIN lv_leases l ON l.table_id = t.id "
                f"WHERE t.status IN ('open', 'playing') "
                f"AND (l.table_id IS NULL OR l.owner IS NULL OR l.owner = :me "
                f"OR l.expires < {NOW}) "
                f"ORDER BY random() LIMIT :n"), {"n": limit, "me": self.server_id})).all()
        return [r[0] for r in rows]

    async def public_tables(self, offset: int, limit: int) -> tuple[list[tuple[str, str | None]],
                                                                     int]:
        """A page of the public tables open or playing, newest first, each with the live
        server holding it (None: nobody now), and how many there are."""
        assert self.engine is not None
        where = ("t.status IN ('open', 'playing') "
                 "AND (t.config::jsonb ->> 'public') = 'true'")
        async with self.engine.connect() as conn:
            total = (await conn.execute(sa.text(
                f"SELECT count(*) FROM lv_tables t WHERE {where}"))).scalar_one()
            rows = (await conn.execute(sa.text(
                f"SELECT t.id, CASE WHEN l.expires >= {NOW} THEN l.owner END "
                f"FROM lv_tables t LEFT JOIN lv_leases l ON l.table_id = t.id WHERE {where} "
                f"ORDER BY t.created DESC OFFSET :o LIMIT :n"), {"o": offset, "n": limit})
                    ).all()
        return [(r[0], r[1]) for r in rows], int(total)

    def _lost(self, table_id: str) -> None:
        self.epochs.pop(table_id, None)
        if self.on_lost is not None:
            self.on_lost(table_id)

    # ------------------------------------------------------------------ fenced writes
    async def create_table(self, table: StoredTable) -> None:
        """A new table is born leased to this server (epoch 1)."""
        if self.usurped:
            raise ServerIdInUse(f"server id {self.server_id!r} is held by another process: "
                                f"this one takes no new table")
        self.epochs[table.id] = 1
        self._creating.add(table.id)
        try:
            await super().create_table(table)
        except BaseException:
            self.epochs.pop(table.id, None)
            raise
        finally:
            self._creating.discard(table.id)

    async def _write(self, conn: AsyncConnection,
                     batch: list[tuple[str, Any, asyncio.Future[None]]]) -> None:
        new_tables: list[dict[str, Any]] = []
        leases: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        statuses: dict[str, str] = {}
        notes: list[dict[str, Any]] = []
        touched: set[str] = set()
        for kind, payload, _ in batch:
            if kind in ("append", "status", "note"):
                touched.add(payload[0])
        async with conn.begin():
            # the leases this batch writes under, share-locked until the commit: a claim by
            # another server waits for this write, or this write sees the claim and is refused
            held: dict[str, int] = {}
            if touched:
                rows = (await conn.execute(sa.text(
                    "SELECT table_id, epoch FROM lv_leases WHERE table_id = ANY(:ids) "
                    "AND owner = :me FOR SHARE"),
                    {"ids": list(touched), "me": self.server_id})).all()
                held = {r[0]: int(r[1]) for r in rows}
            fenced: set[str] = set()
            for kind, payload, fut in batch:
                if kind == "create":
                    t: StoredTable = payload
                    new_tables.append({"id": t.id, "created": t.created, "status": t.status,
                                       "config": _dumps(t.config)})
                    leases.append({"t": t.id, "me": self.server_id, "ttl": self.ttl})
                    for ev in t.events:
                        events.append({**_event_row(t.id, ev), "epoch": 1})
                    continue
                table_id = payload[0]
                epoch = self.epochs.get(table_id)
                if epoch is None or held.get(table_id) != epoch:
                    if table_id not in fenced:
                        fenced.add(table_id)
                        log.warning("table %s: a write was fenced: another server holds it",
                                    table_id)
                        self._lost(table_id)  # (before the writer hears of it)
                    fut.set_exception(FencedError(
                        f"table {table_id} is served by another server now; this server's "
                        f"write was refused"))
                    continue
                if kind == "status":
                    statuses[table_id] = payload[1]
                elif kind == "note":
                    notes.append({"table_id": table_id, "data": _dumps(payload[1])})
                else:
                    _, ev, status = payload
                    events.append({**_event_row(table_id, ev), "epoch": epoch})
                    if status is not None:
                        statuses[table_id] = status
            if new_tables:
                await conn.execute(tables_t.insert(), new_tables)
                await conn.execute(sa.text(
                    f"INSERT INTO lv_leases (table_id, owner, epoch, expires) "
                    f"VALUES (:t, :me, 1, {NOW} + :ttl)"), leases)
            if events:
                await conn.execute(sa.text(
                    "INSERT INTO lv_events (table_id, version, kind, data, epoch) "
                    "VALUES (:table_id, :version, :kind, :data, :epoch)"), events)
            if notes:
                await conn.execute(notes_t.insert(), notes)
            for table_id, status in statuses.items():
                await conn.execute(tables_t.update().where(tables_t.c.id == table_id)
                                   .values(status=status))


def make_store(db: str | None, server_id: str | None = None) -> Store:
    """The store for a database: on PostgreSQL, tables are leased (several servers may share
    it; ``server_id`` names this one, by default a random id); a SQLite file belongs to one
    server."""
    url = normalize_url(db)
    store: SqlStore = LeaseStore(url, server_id) if url.startswith("postgresql") \
        else SqliteStore(url)
    store.players = SqlPlayers(store)  # the players' tables, on the same database
    return store


def _dumps(obj: Any) -> str:
    import json
    return json.dumps(obj, separators=(",", ":"))


__all__ = ["LEASE_TTL", "RENEW_EVERY", "FencedError", "LeaseStore", "make_store"]
