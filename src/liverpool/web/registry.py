"""The tables this process serves, by table id: loaded from the store at start-up or on first
use, served here or found on another server, and let go when finished and idle.

Domain words: *owner* (a table's ``TableOwner``, the one task that changes it), *registry* (this
process's owners), *broken* table (one that cannot be rebuilt from its stored events: refused,
never tried again), *eviction* (a finished table nobody watches leaves memory; its events stay
in the store and the next request reloads it), *sweep* (the periodic look for tables that were
never started in time, or that nobody is at), *lobby request* (``table_op``: summary, join,
start, remove, for a table here or on its owner server).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import random
import secrets
from collections import OrderedDict
from typing import Any

from .broker import cancel_all
from .capacity import Capacity
from .cluster import MOVED, ORPHANS_PER_SWEEP, Cluster, HeldElsewhere
from .leases import RENEW_EVERY, LeaseStore
from .limits import TABLE_ID, ApiError
from .replay import replay_steps
from .seats import Settings
from .store import Store, StoredTable, StoreError
from .table import TableOwner
from .tablerequests import TableRequests

log = logging.getLogger("liverpool.web")

REPLAYS_KEPT = 32
SWEEP_EVERY = 30.0  # seconds between looks for tables that were never started in time


class Registry:
    """The table owners of this process, by table id."""

    def __init__(self, store: Store, settings: Settings, evict_after: float = 60.0,
                 redis_url: str | None = None) -> None:
        self.store = store
        self.settings = settings
        self.limits = settings.limits
        self.evict_after = evict_after
        self.owners: dict[str, TableOwner] = {}
        self.sockets: dict[str, int] = {}  # open websockets per client address
        self.network_sockets: dict[str, int] = {}  # and per network (guard.network_key)
        self.broken: set[str] = set()  # tables that could not be rebuilt (not tried again)
        self._stopping: set[asyncio.Task[None]] = set()
        self._busy: set[asyncio.Task[None]] = set()  # tables let go to another server
        self._loading: dict[str, asyncio.Future[TableOwner | None]] = {}
        # finished games' replays, encoded (plain, gzip), most recently asked last
        self.replays: OrderedDict[str, asyncio.Future[tuple[bytes, bytes]]] = OrderedDict()
        self._replay_chat: dict[str, int] = {}  # the last chat line each kept replay shows
        self.requests = TableRequests(self.owners, self.limits)
        # several servers on one PostgreSQL database: leases, take-overs, relayed clients. The
        # cluster reads this server's owners and serves calls through ``requests``; what it
        # finds (tables lost, orphaned) the registry asks it for and acts on (``_join``)
        self.cluster: Cluster | None = None
        self._cluster_tasks: list[asyncio.Task[None]] = []
        if isinstance(store, LeaseStore):
            counted = settings.metrics
            self.cluster = Cluster(store, redis_url, self.owners, self.requests,
                                   None if counted is None else counted.broker_error)
        self.capacity = Capacity(self.limits, lambda: list(self.owners.values()), self.cluster)

    def replay_kept(self, owner: TableOwner) -> bool:
        """A replay of the table is kept, with every chat line said at it so far."""
        return owner.id in self.replays and self._replay_chat.get(owner.id) == owner.chat.n

    async def replay(self, owner: TableOwner) -> tuple[bytes, bytes]:
        """A finished table's replay as JSON bytes and gzipped, computed once (in a thread:
        a long game takes a few hundred milliseconds) and kept for the last few tables; again
        once more has been said at the table (people may chat once the game is over)."""
        if not self.replay_kept(owner):
            self.replays.pop(owner.id, None)
        fut = self.replays.get(owner.id)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self.replays[owner.id] = fut
            self._replay_chat[owner.id] = owner.chat.n
            while len(self.replays) > REPLAYS_KEPT:
                self._replay_chat.pop(self.replays.popitem(last=False)[0], None)
            record = owner.record()
            chat = list(owner.chat.lines)
            actions_from = owner.version - len(record.get("actions", ())) + 1
            try:
                fut.set_result(await asyncio.to_thread(
                    _encode_replay, record, self.settings.limits.search_budget, chat,
                    actions_from))
            except Exception as e:
                self.replays.pop(owner.id, None)
                fut.set_exception(e)
                fut.exception()  # seen here: a failure is not logged again as unretrieved
                raise
        self.replays.move_to_end(owner.id)
        return await asyncio.shield(fut)

    async def resume_all(self) -> None:
        """Rebuild every table still open or playing. One that cannot be rebuilt is marked
        ``broken`` and logged; the server serves everything else. (On a shared database the
        cluster takes the tables no live server holds, instead.)"""
        if self.cluster is not None:
            await self._join(self.cluster)
            return
        for table_id in await self.store.active_ids():
            try:
                await self.get(table_id)
            except ApiError:
                with contextlib.suppress(StoreError):
                    await self.store.set_status(table_id, "broken")

    async def get(self, table_id: str) -> TableOwner | None:
        """The owner of a table, loaded here if need be; None if there is no such table.
        On a shared database, raises ``HeldElsewhere`` when another live server owns it."""
        owner = self.owners.get(table_id)
        if owner is not None:
            return owner
        if table_id in self.broken:
            raise ApiError(503, "broken", "this table cannot be rebuilt from what is stored; "
                                          "the server's log says why")
        if table_id in self._loading:  # another request is loading it
            return await asyncio.shield(self._loading[table_id])
        fut: asyncio.Future[TableOwner | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            stored = await self._load_leased(table_id)
            owner = None if stored is None else await self._build(stored)
            fut.set_result(owner)
            return owner
        except Exception as e:
            fut.set_exception(e)
            fut.exception()  # the waiters, if any, get it; nobody else needs to be told
            raise
        finally:
            del self._loading[table_id]

    async def _build(self, stored: StoredTable) -> TableOwner:
        """A table's owner rebuilt from what is stored, serving from now on."""
        table_id = stored.id
        # replaying a long game's events takes a while: never on the event loop
        try:
            owner = await asyncio.to_thread(TableOwner, stored, self.store, self.settings)
        except Exception as e:
            self.broken.add(table_id)
            await self._release(table_id)
            log.warning("table %s cannot be rebuilt from its stored events: %s: %s",
                        table_id, type(e).__name__, str(e)[:300])
            raise ApiError(503, "broken", "this table cannot be rebuilt from what is "
                                          "stored; the server's log says why") from None
        self._watch(owner)
        self.owners[table_id] = owner
        owner.start()
        if owner.finished:
            # a finished game's standings: read, or recorded now if the server that ended it
            # stopped before it could (exactly once: players.py)
            recorded = owner.status == "over" and await owner.core.record_results()
            if stored.status != "over" and owner.status == "over" and (
                    recorded or self.settings.people is None):
                with contextlib.suppress(StoreError):  # the events say it is over
                    await self.store.set_status(table_id, "over")
            self.on_idle(owner)
        return owner

    async def adopt(self, table_ids: list[str]) -> int:
        """Claim and rebuild tables whose server died, in one claim and one read for all (a
        request for one of them meanwhile waits for it); how many this server took."""
        assert isinstance(self.store, LeaseStore)
        loop = asyncio.get_running_loop()
        mine = [t for t in table_ids if t not in self.owners and t not in self._loading
                and t not in self.broken]
        futs: dict[str, asyncio.Future[TableOwner | None]] = {}
        for t in mine:
            futs[t] = self._loading[t] = loop.create_future()
        taken = 0
        try:
            claimed = await self.store.claim_many(mine)
            stored = await self.store.load_many(list(claimed)) if claimed else {}
            others = await self.store.holders([t for t in mine if t not in claimed])
            for t in mine:
                fut = futs[t]
                if t in stored:
                    try:
                        fut.set_result(await self._build(stored[t]))
                        taken += 1
                    except ApiError as e:
                        fut.set_exception(e)
                elif t in others:  # another server was quicker
                    fut.set_exception(HeldElsewhere(others[t]))
                else:
                    fut.set_result(None)
                fut.exception()  # looked at here: the waiters, if any, get it; nobody else
        finally:
            for t, fut in futs.items():
                if not fut.done():
                    fut.set_exception(ApiError(503, "busy", "this table is changing servers; "
                                                            "try again"))
                    fut.exception()
                del self._loading[t]
        return taken

    async def _load_leased(self, table_id: str) -> StoredTable | None:
        """A table's stored form. On a shared database, a table in play is claimed first
        (its lease makes this server its one owner); a finished one is read as it is."""
        if not isinstance(self.store, LeaseStore):
            return await self.store.load(table_id)
        status = await self.store.status_of(table_id)
        if status is None:
            return None
        if status in ("open", "playing") and table_id not in self.store.epochs:
            # a read first: most requests for a table owned elsewhere need no write
            holder = await self.store.holder(table_id)
            if holder is not None and holder != self.store.server_id:
                raise HeldElsewhere(holder)
            if await self.store.claim(table_id) is None:  # another server was quicker
                holder = await self.store.holder(table_id)
                if holder is not None:
                    raise HeldElsewhere(holder)
                raise ApiError(503, "busy", "this table is changing servers; try again")
        return await self.store.load(table_id)

    async def _release(self, table_id: str) -> None:
        if isinstance(self.store, LeaseStore) and table_id in self.store.epochs:
            with contextlib.suppress(Exception):
                await self.store.release(table_id)

    async def drop(self, table_id: str, code: int, reason: str) -> None:
        """Stop serving a table here (another server owns it now): its clients are closed
        with ``code`` and reconnect to wherever it is served."""
        owner = self.owners.pop(table_id, None)
        if owner is None:
            return
        for c in list(owner.conns):
            c.close(code, reason)
        await owner.stop()

    # ------------------------------------------------------------ with other servers
    async def _join(self, cluster: Cluster) -> None:
        """Link up with the other servers and take the tables none of them holds; from then
        on, take those whose server dies and let go of those another server took."""
        await cluster.start()  # its leases are renewed from now: a long take-over keeps them
        try:
            await self.take_orphans(cluster, limit=None)
        except BaseException:
            await cluster.stop()  # the server does not start: nothing of the cluster lingers
            raise
        self._cluster_tasks = [
            asyncio.create_task(self._orphans_forever(cluster), name="lease-orphans"),
            asyncio.create_task(self._watch_relayed_forever(cluster), name="cluster-watch"),
            asyncio.create_task(self._let_go_forever(cluster), name="lease-lost")]

    async def take_orphans(self, cluster: Cluster,
                           limit: int | None = ORPHANS_PER_SWEEP) -> int:
        """Claim and load tables in play whose server died; how many were taken."""
        ids = await cluster.orphans(limit)
        taken = await self.adopt(ids) if ids else 0
        if taken:
            log.info("took over %d tables", taken)
        return taken

    async def _orphans_forever(self, cluster: Cluster) -> None:
        while True:
            # survivors look at slightly different moments, so they share a dead server's tables
            await asyncio.sleep(RENEW_EVERY * (0.5 + random.random()))
            try:
                await self.take_orphans(cluster)
            except Exception as e:
                log.warning("looking for orphaned tables failed: %s", str(e)[:200])

    async def _watch_relayed_forever(self, cluster: Cluster) -> None:
        """Send this server's relayed clients of a table that changed owner server (or whose
        server died) to reconnect: the reconnect finds the new owner, or this server."""
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                seen = await cluster.look_at_relayed()
                if seen.orphaned:  # their server died: take them here first, in bulk, so that
                    # the clients sent away find them ready instead of each claiming one alone
                    with contextlib.suppress(Exception):
                        await self.adopt(seen.orphaned)
                cluster.send_moved(seen)
            except Exception as e:
                log.warning("watching relayed clients failed: %s", str(e)[:200])

    async def _let_go_forever(self, cluster: Cluster) -> None:
        """Stop serving the tables whose lease is lost: another server holds them now."""
        while True:
            table_id = await cluster.lost.get()
            task = asyncio.create_task(self.drop(table_id, MOVED,
                                                 "the table moved to another server"))
            self._busy.add(task)
            task.add_done_callback(self._busy.discard)

    async def table_op(self, table_id: str, op: str, args: dict[str, Any]) -> Any:
        """A lobby request for a table: answered here, or by the server that owns it."""
        for attempt in range(2):
            try:
                owner = await self.get(table_id) if TABLE_ID.fullmatch(table_id) else None
            except HeldElsewhere as e:
                if self.cluster is None or not self.cluster.relaying:
                    raise ApiError(503, "elsewhere", "this table is served by another server "
                                                     "that this one cannot reach now; try "
                                                     "again in a few seconds") from None
                try:
                    return await self.cluster.call(e.server, table_id, op, args)
                except ApiError as refused:
                    if refused.code == "moved" and attempt == 0:
                        continue
                    raise
            if owner is None:
                raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")
            return await self.requests.serve(owner, op, args)
        raise ApiError(503, "busy", "this table is changing servers; try again")

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
            if owner.finished and owner.sockets == 0:
                self.on_idle(owner)  # still busy with its last messages: later
            return
        del self.owners[owner.id]  # from now on a request loads a fresh owner
        task = asyncio.create_task(self._stop_evicted(owner))
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def _stop_evicted(self, owner: TableOwner) -> None:
        await owner.stop()
        await self._release(owner.id)

    async def new_id(self) -> str:
        while True:
            table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
            if table_id not in self.owners and await self.store.load(table_id) is None:
                return table_id

    async def expire(self, owner: TableOwner) -> bool:
        """Close a table waiting to start (it leaves the lobby, then memory)."""
        if not await owner.call(owner.expire):
            return False
        self.on_idle(owner)
        return True

    async def sweep(self) -> None:
        """Close the tables nobody started in time, or that nobody has sat at for
        ``idle_table_ttl`` (they leave the lobby and memory)."""
        for owner in self.capacity.due_to_expire():
            with contextlib.suppress(Exception):
                await self.expire(owner)
        for owner in self.capacity.due_to_sleep():
            with contextlib.suppress(Exception):
                await owner.call(owner.sleep)

    async def sweep_forever(self) -> None:
        while True:
            shortest = min(self.limits.open_table_ttl, self.limits.idle_table_ttl)
            await asyncio.sleep(min(SWEEP_EVERY, max(0.05, shortest / 4)))
            try:
                await self.sweep()
            except Exception:
                log.exception("sweeping expired tables failed")

    async def close(self) -> None:
        await cancel_all(self._cluster_tasks)
        if self.cluster is not None:
            await self.cluster.stop()
        for owner in list(self.owners.values()):
            await owner.stop()
        self.owners.clear()
        for task in list(self._stopping):
            await task


def _encode_replay(record: dict[str, Any], search_budget: int, chat: list[dict[str, Any]],
                   actions_from: int) -> tuple[bytes, bytes]:
    data = json.dumps(replay_steps(record, search_budget, chat, actions_from),
                      separators=(",", ":")).encode("utf-8")
    return data, gzip.compress(data, 6)
