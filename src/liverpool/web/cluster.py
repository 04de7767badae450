"""Many servers, one game world: routing clients to the server that owns their table.

Domain words: *owner server* (the one holding a table's lease: its ``TableOwner`` runs there
and nowhere else), *gateway* (the server a client's websocket happens to reach; when another
server owns the table it relays the client's messages there and the answers back, through the
broker), *remote connection* (``RemoteConn``: at the owner server, a client connected to a
gateway; the table sees it as any other connection), *proxy* (at the gateway, the same client's
end), *move* (a table changes owner server: its clients are closed with code 4012 and reconnect;
the reconnect is routed to the new owner, which catches them up from their version), *orphan*
(a table still in play whose lease no live server holds: its server died), *call* (a lobby
request for a table owned elsewhere, answered by its owner server).

Every rule and every change of a table stays with its one owner; this module only moves text.
It never calls the registry: it reads this server's owners (a mapping it is given), answers
calls through ``TableRequests``, and leaves what it finds (a lease lost: ``lost``; tables
orphaned: ``orphans``, ``look_at_relayed``) to the registry to act on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .broker import Broker, cancel_all
from .leases import RENEW_EVERY, LeaseStore
from .limits import ApiError
from .seats import Conn
from .table import TableOwner, handle
from .tablerequests import TableRequests

log = logging.getLogger("liverpool.web")

MOVED = 4012  # close code: the table is served by another server now; reconnect
BROKER_DOWN = 1013  # close code: try again later (the link between servers is down)
CALL_TIMEOUT = 10.0
ORPHANS_PER_SWEEP = 256
# seconds a table noted as being created counts before it is stored (a create takes well under
# a second; one noted by a server that died then is forgotten after this)
BEING_MADE = 60.0


class HeldElsewhere(Exception):
    """Another live server owns this table."""

    def __init__(self, server: str) -> None:
        super().__init__(server)
        self.server = server


class RemoteConn(Conn):
    """At the owner server: a client whose websocket is held by another server."""

    def __init__(self, cluster: Cluster, key: tuple[str, str, str], owner: TableOwner,
                 link_base: str) -> None:
        super().__init__(owner.settings.limits, link_base)
        self.cluster = cluster
        self.key = key  # (gateway, its session, connection id)
        self.owner = owner
        self.hello_sent = True  # the gateway checks the hello timeout

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        gateway, _, cid = self.key
        if not self.cluster.broker_send(gateway, {"k": "out", "c": cid, "x": text}):
            self.cluster.forget(self)

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code, self.close_reason = code, reason
        gateway, _, cid = self.key
        self.cluster.broker_send(gateway, {"k": "close", "c": cid, "code": code,
                                           "reason": reason})
        self.cluster.forget(self)


class Proxy:
    """At the gateway: a client's websocket whose table another server owns."""

    def __init__(self, conn: Conn, table_id: str, server: str) -> None:
        self.conn = conn
        self.table_id = table_id
        self.server = server
        self.cid = secrets.token_hex(8)


@dataclass(frozen=True)
class RelayedTables:
    """The clients relayed at one look, and the live server holding each of their tables."""

    proxies: list[Proxy]
    holders: dict[str, str]

    @property
    def orphaned(self) -> list[str]:
        """Their tables no live server holds (their server died)."""
        return sorted({p.table_id for p in self.proxies} - set(self.holders))


class Cluster:
    """This server's part in a service of several: leases kept, orphans and lost leases found
    (for the registry to take or let go), clients relayed to their table's owner server and
    lobby calls answered for the tables it owns."""

    def __init__(self, store: LeaseStore, redis_url: str | None,
                 owners: Mapping[str, TableOwner], requests: TableRequests,
                 on_broker_error: Callable[[], None] | None = None) -> None:
        self.store = store
        self.server_id = store.server_id
        self.owners = owners  # this server's tables: read here, changed only by their registry
        self.requests = requests
        # tables whose lease this server lost, for the registry to let go (their clients
        # reconnect to the new owner server)
        self.lost: asyncio.Queue[str] = asyncio.Queue()
        self.broker: Broker | None = None
        if redis_url:
            self.broker = Broker(redis_url, self.server_id, self._on_items, self._on_broker,
                                 on_broker_error)
        self.remote: dict[tuple[str, str, str], RemoteConn] = {}
        self.proxies: dict[str, Proxy] = {}
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._busy: set[asyncio.Task[Any]] = set()
        # told once when another process took this server's id (the command stops the server:
        # two processes on one id would share its Redis channel and its leases' name)
        self.on_usurped: Callable[[], None] | None = None

    # ------------------------------------------------------------------ life
    async def start(self) -> None:
        self.store.on_lost = self._lost
        if self.broker is not None:
            await self.broker.start()
            if not self.broker.up:
                log.warning("Redis is not reachable yet: this server serves its own tables "
                            "and relays none until it is")
        self._tasks = [asyncio.create_task(self._renew_forever(), name="lease-renew"),
                       asyncio.create_task(self._gateways_forever(), name="cluster-gateways")]

    async def stop(self) -> None:
        await cancel_all(self._tasks)
        for p in list(self.proxies.values()):
            p.conn.close(MOVED, "server stopping")
        if self.broker is not None:
            await self.broker.stop()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._busy.add(task)
        task.add_done_callback(self._busy.discard)

    # ------------------------------------------------------------------ leases
    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                lost = await self.store.renew()
            except Exception:
                log.exception("lease renewal failed")
                continue
            for table_id in lost:
                self._lost(table_id)
            if self.store.usurped:
                if self.on_usurped is not None:
                    self.on_usurped()
                return

    def _lost(self, table_id: str) -> None:
        """Another server holds this table now: it is queued for this one to let go (its
        clients are sent there: they reconnect)."""
        if table_id in self.owners:
            log.warning("table %s: its lease is lost; its clients reconnect to its new server",
                        table_id)
            self.lost.put_nowait(table_id)

    async def orphans(self, limit: int | None = ORPHANS_PER_SWEEP) -> list[str]:
        """Tables in play whose server died, not served here (None: every one of them)."""
        return [t for t in await self.store.orphans(limit or 1_000_000)
                if t not in self.owners]

    # ------------------------------------------------------------------ the broker
    def broker_send(self, server: str, item: dict[str, Any]) -> bool:
        return self.broker is not None and self.broker.send(server, item)

    @property
    def relaying(self) -> bool:
        return self.broker is not None and self.broker.up

    def _on_broker(self, up: bool) -> None:
        if up:
            return
        # whatever was in flight between servers is lost: every relayed client reconnects
        # (its messages are in no table), every remote client of this server's tables is gone
        for p in list(self.proxies.values()):
            p.conn.error("broker", "this server lost its link to the table's server; "
                                   "reconnecting")
            p.conn.close(BROKER_DOWN, "link between servers lost")
        for rc in list(self.remote.values()):
            self.forget(rc)

    def _on_items(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            try:
                self._on_item(item)
            except Exception:
                log.exception("a message between servers failed: %s", str(item)[:200])

    def _on_item(self, item: dict[str, Any]) -> None:
        kind = item.get("k")
        if kind == "out":
            p = self.proxies.get(item["c"])
            if p is not None:  # (else the client left; its "shut" is on its way)
                p.conn.send_text(item["x"])
        elif kind == "close":
            p = self.proxies.get(item["c"])
            if p is not None:
                p.conn.close(int(item["code"]), str(item["reason"]))
        elif kind == "gone":
            p = self.proxies.get(item["c"])
            if p is not None:
                p.conn.close(MOVED, "the table moved to another server")
        elif kind == "reply":
            fut = self._calls.pop(item["rid"], None)
            if fut is not None and not fut.done():
                fut.set_result(item)
        elif kind in ("open", "in", "shut"):
            self._owner_item(kind, item)
        elif kind == "call":
            self._spawn(self._answer(item))

    # ------------------------------------------------------------------ owner server side
    def _owner_item(self, kind: str, item: dict[str, Any]) -> None:
        key = (str(item["g"]), str(item["s"]), str(item["c"]))
        if kind == "open":
            owner = self.owners.get(str(item["t"]))
            if owner is None or owner.id not in self.store.epochs or owner.stopped:
                self.broker_send(key[0], {"k": "gone", "c": key[2]})
                return
            rc = RemoteConn(self, key, owner, str(item.get("lb") or ""))
            self.remote[key] = rc
            owner.sockets += 1
            return
        found = self.remote.get(key)
        if found is None:
            if kind == "in":
                self.broker_send(key[0], {"k": "gone", "c": key[2]})
            return
        if kind == "shut":
            self.forget(found)
            return
        handle(found, found.owner, str(item["x"]))

    def forget(self, rc: RemoteConn) -> None:
        """A remote client is gone (its gateway said so, or cannot be reached)."""
        if self.remote.pop(rc.key, None) is None:
            return
        rc.closed = True
        owner = rc.owner
        owner.post(owner.on_close, rc)
        owner.detach_socket()

    async def _check_gateways(self) -> None:
        """Forget the remote clients of gateways that died or lost their link to Redis."""
        if not self.remote or self.broker is None or not self.broker.up:
            return
        watched = list(self.remote.values())  # (those that open meanwhile are not judged)
        sessions = await self.broker.sessions(sorted({rc.key[0] for rc in watched}))
        for rc in watched:
            if sessions.get(rc.key[0]) != rc.key[1]:
                self.forget(rc)

    def _summaries(self, ids: list[str]) -> dict[str, Any]:
        """The lobby lines of those of these tables this server owns."""
        out: dict[str, Any] = {}
        for table_id in ids:
            owner = self.owners.get(table_id)
            if owner is not None and table_id in self.store.epochs and not owner.stopped:
                try:  # one table that cannot be shown never breaks the list
                    out[table_id] = owner.summary(full=False)
                except Exception:
                    log.exception("table %s cannot be listed", table_id)
        return out

    async def tables_created_by(self, client: str) -> dict[str, str] | None:
        """The tables ``client`` (an address, or a network) created on any server of the
        service that are not finished, with their status ("open" for one being made now), or
        None when Redis cannot tell (each server then counts its own). Finished ones are
        forgotten as they are found, and so is a noted one never stored (its create failed
        on a server that died)."""
        if self.broker is None or not self.broker.up:
            return None
        try:
            noted = await self.broker.created_by(client)
            status = await self.store.statuses(list(noted))
            now = time.time()
            done = [i for i, at in noted.items()
                    if status.get(i, "open" if now - at < BEING_MADE else "gone")
                    not in ("open", "playing")]
            await self.broker.forget_created(client, done)
        except Exception as e:  # Redis went away meanwhile: this server counts alone
            log.warning("tables per client: Redis cannot be reached (%s)", type(e).__name__)
            return None
        return {i: status.get(i, "open") for i in noted if i not in done}

    async def note_created(self, client: str, table_id: str, keep: float) -> bool:
        """Note a table ``client`` is creating; False when Redis cannot be reached."""
        if self.broker is None or not self.broker.up:
            return False
        try:
            await self.broker.note_created(client, table_id, keep)
        except Exception as e:
            log.warning("tables per client: Redis cannot be reached (%s)", type(e).__name__)
            return False
        return True

    async def forget_created(self, client: str, table_id: str) -> None:
        """A create noted and then refused: its place is free again."""
        if self.broker is None:
            return
        with contextlib.suppress(Exception):
            await self.broker.forget_created(client, [table_id])

    async def lobby(self, offset: int, size: int) -> dict[str, Any]:
        """A page of the public tables of every server (a table whose server cannot answer
        now is left out of the page)."""
        page, total = await self.store.public_tables(offset, size)
        lines = self._summaries([t for t, holder in page if holder == self.server_id])
        elsewhere: dict[str, list[str]] = {}
        for table_id, holder in page:
            if holder is not None and holder != self.server_id:
                elsewhere.setdefault(holder, []).append(table_id)
        if elsewhere and self.relaying:
            answers = await asyncio.gather(
                *(self.call(server, "", "summaries", {"ids": ids})
                  for server, ids in elsewhere.items()), return_exceptions=True)
            for answer in answers:
                if isinstance(answer, dict):
                    lines.update(answer)
        tables = [lines[t] for t, _ in page if t in lines]
        return {"tables": tables, "total": total, "offset": offset, "limit": size}

    async def _answer(self, item: dict[str, Any]) -> None:
        gateway, rid = str(item["g"]), str(item["rid"])
        if item.get("op") == "summaries":
            ids = [str(t) for t in item["a"].get("ids", [])][:1000]
            self.broker_send(gateway, {"k": "reply", "rid": rid, "ok": True,
                                       "r": self._summaries(ids)})
            return
        try:
            owner = self.owners.get(str(item["t"]))
            if owner is None or owner.id not in self.store.epochs or owner.stopped:
                raise ApiError(503, "moved", "the table moved to another server; try again")
            result = await self.requests.serve(owner, str(item["op"]), dict(item["a"]))
            reply: dict[str, Any] = {"k": "reply", "rid": rid, "ok": True, "r": result}
        except ApiError as e:
            reply = {"k": "reply", "rid": rid, "ok": False,
                     "e": [e.status, e.code, e.message, e.field]}
        except Exception:
            log.exception("a call for table %s failed", item.get("t"))
            reply = {"k": "reply", "rid": rid, "ok": False,
                     "e": [500, "internal", "the table's server failed to answer", None]}
        self.broker_send(gateway, reply)

    # ------------------------------------------------------------------ gateway side
    def open_proxy(self, conn: Conn, table_id: str, server: str) -> Proxy | None:
        """Relay a client to the table's owner server; None (the client told why) when the
        link between servers is down."""
        p = Proxy(conn, table_id, server)
        assert self.broker is not None
        if not self.broker_send(server, {"k": "open", "t": table_id, "g": self.server_id,
                                         "s": self.broker.session, "c": p.cid,
                                         "lb": conn.link_base}):
            return None
        self.proxies[p.cid] = p
        return p

    def relay(self, p: Proxy, text: str) -> None:
        assert self.broker is not None
        if not self.broker_send(p.server, {"k": "in", "g": self.server_id,
                                           "s": self.broker.session, "c": p.cid, "x": text}):
            p.conn.error("broker", "this server lost its link to the table's server; "
                                   "reconnecting")
            p.conn.close(BROKER_DOWN, "link between servers lost")

    def close_proxy(self, p: Proxy) -> None:
        if self.proxies.pop(p.cid, None) is None:
            return
        if self.broker is not None:
            self.broker_send(p.server, {"k": "shut", "g": self.server_id,
                                        "s": self.broker.session, "c": p.cid})

    async def call(self, server: str, table_id: str, op: str, args: dict[str, Any]) -> Any:
        """A lobby request answered by the table's owner server."""
        if not self.relaying:
            raise ApiError(503, "broker", "this server cannot reach the table's server now; "
                                          "try again in a few seconds")
        rid = secrets.token_hex(8)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[rid] = fut
        self.broker_send(server, {"k": "call", "g": self.server_id, "rid": rid, "op": op,
                                  "t": table_id, "a": args})
        try:
            reply = await asyncio.wait_for(fut, CALL_TIMEOUT)
        except TimeoutError:
            raise ApiError(503, "unreachable", "the table's server did not answer; try again "
                                               "in a few seconds") from None
        finally:
            self._calls.pop(rid, None)
        if reply.get("ok"):
            return reply.get("r")
        status, code, message, field = reply["e"]
        raise ApiError(int(status), str(code), str(message), field)

    async def look_at_relayed(self) -> RelayedTables:
        """The clients relayed now, and who holds their tables (a client relayed while this
        looks is not part of it: it is not judged on holders looked up before it came)."""
        watched = list(self.proxies.values())
        if not watched:
            return RelayedTables([], {})
        return RelayedTables(watched, await self.store.holders(
            sorted({p.table_id for p in watched})))

    def send_moved(self, seen: RelayedTables) -> None:
        """Send the relayed clients of a table that changed owner server (or whose server
        died) to reconnect: the reconnect finds the new owner, or makes this server the
        owner."""
        for p in seen.proxies:
            if seen.holders.get(p.table_id) != p.server and not p.conn.closed:
                p.conn.close(MOVED, "the table moved to another server")

    async def _gateways_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                await self._check_gateways()
            except Exception as e:
                log.warning("checking the gateways of remote clients failed: %s", str(e)[:200])
