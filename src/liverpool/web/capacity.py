"""How many tables a server takes, and from whom: every cap on tables counted in one place.

Domain words: *waiting* table (created, not started), *playing* table, *unfinished* (waiting or
playing), *client* (an address, by ``client_key``), *network* (an IPv4 /24, an IPv6 /48: what
one subscriber or one small organisation commonly holds, by ``network_key``), *reservation* (a
create under way counts from before its first await, so creates at the same moment cannot pass
a cap together), *idle* table (waiting, with no seated person connected: it expires after
``idle_table_ttl``, and gives its place to a new table when the server is full).

The caps, all in ``Limits`` (docs/security.md): tables waiting in all (``open_tables``), a
client's waiting tables (``waiting_tables_per_client``) and unfinished ones
(``open_tables_per_client``), a network's unfinished ones (``tables_per_network``). A table keeps
its creator's marks (``client_mark``: a hash, no address is stored), so its place is counted
again after a restart or on another server. Several servers of one service count a client's and
a network's tables together in Redis (``Cluster.tables_created_by``); the waiting tables in all
are each server's own.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from .guard import client_mark, network_key
from .limits import ApiError, Limits

if TYPE_CHECKING:
    from .cluster import Cluster
    from .table import TableOwner

# seconds the service remembers which tables a client created, after its last create
CREATED_KEPT = 86400.0
# an idle table gives its place to a new one (the server being full) only once it has been
# idle this long: a host's page that is reconnecting keeps its table
YIELD_AFTER = 30.0


class Capacity:
    """The caps on tables of one server: counted over its owners and the creates under way."""

    def __init__(self, limits: Limits, owners: Callable[[], Iterable[TableOwner]],
                 cluster: Cluster | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self.owners = owners
        self.cluster = cluster
        self.clock = clock
        self._making: Counter[str] = Counter()  # creates under way, by client and network
        self._making_all = 0
        self._yielding: set[str] = set()  # idle tables giving their place to a create now

    # ---- counts -------------------------------------------------------------------------------
    def waiting(self) -> int:
        """Tables waiting to start here, with the creates under way."""
        return self._making_all + sum(1 for o in self.owners() if o.status == "open")

    def _here(self, key: str, of: Callable[[TableOwner], str | None]) -> dict[str, str]:
        return {o.id: o.status for o in self.owners()
                if o.status in ("open", "playing") and of(o) == key}

    def _local(self, key: str, of: Callable[[TableOwner], str | None]) -> tuple[int, int]:
        """(unfinished, waiting) tables of ``key`` here, with its creates under way."""
        tables = self._here(key, of)
        making = self._making[key]
        return (len(tables) + making,
                sum(1 for s in tables.values() if s == "open") + making)

    async def _counts(self, key: str, of: Callable[[TableOwner], str | None]
                      ) -> tuple[int, int]:
        """(unfinished, waiting) tables of ``key`` (a client's or a network's mark): with
        several servers the whole service's where Redis can tell (every create noted there,
        this server's included), else this server's."""
        if self.cluster is not None:
            everywhere = await self.cluster.tables_created_by(key)
            if everywhere is not None:
                tables = {**self._here(key, of), **everywhere}
                return len(tables), sum(1 for s in tables.values() if s == "open")
        return self._local(key, of)

    def idlest(self) -> TableOwner | None:
        """The waiting table idle longest, if one has been idle ``YIELD_AFTER`` seconds."""
        now = self.clock()
        idle = [(o.unattended_since, o) for o in self.owners()
                if o.status == "open" and o.unattended_since is not None
                and now - o.unattended_since >= YIELD_AFTER and o.id not in self._yielding]
        return min(idle, key=lambda x: x[0])[1] if idle else None

    # ---- admission ----------------------------------------------------------------------------
    def _check(self, client: tuple[int, int], network: tuple[int, int]) -> None:
        """Refuse when a client's (unfinished, waiting) or a network's tables pass a cap."""
        lim = self.limits
        if client[1] > lim.waiting_tables_per_client:
            raise ApiError(429, "too_many_tables", f"at most {lim.waiting_tables_per_client} "
                           f"tables waiting to start from one address; start one, or let one "
                           f"expire")
        if client[0] > lim.open_tables_per_client:
            raise ApiError(429, "too_many_tables", f"at most {lim.open_tables_per_client} "
                           f"tables waiting to start or playing from one address; wait for "
                           f"a game to end")
        if network[0] > lim.tables_per_network:
            raise ApiError(429, "too_many_tables", f"at most {lim.tables_per_network} tables "
                           f"waiting to start or playing from one network; wait for a game "
                           f"to end")

    @contextlib.asynccontextmanager
    async def admit(self, client: str, table_id: str,
                    expire: Callable[[TableOwner], Awaitable[bool]]
                    ) -> AsyncIterator[tuple[str, str]]:
        """Hold a place for ``table_id``, created by ``client`` (an address), while the body
        makes it, or refuse (429 ``too_many_tables``, 503 ``busy``); the body gets the marks
        of the client and of its network, which the table keeps. The place is counted before
        the first await, and with several servers noted in Redis before it is counted there,
        so that creates at the same moment cannot together pass a cap. When every waiting
        place is taken, the table idle longest gives its place (``expire`` is awaited on
        it)."""
        mine, net = client_mark(client), client_mark(network_key(client))
        keys = (mine, net)
        # the place is taken before anything else (and before any await): the creates under
        # way are in every count
        for k in keys:
            self._making[k] += 1
        self._making_all += 1
        victim = None
        noted: list[str] = []
        try:
            self._check(self._local(mine, lambda o: o.creator),
                        self._local(net, lambda o: o.network))
            if self.waiting() > self.limits.open_tables:
                victim = self.idlest()
                if victim is None:
                    raise ApiError(503, "busy", "the server has too many tables waiting to "
                                                "start; try again later")
                self._yielding.add(victim.id)  # not chosen twice by creates at one moment
            if self.cluster is not None:
                for k in keys:
                    if await self.cluster.note_created(k, table_id, CREATED_KEPT):
                        noted.append(k)
                self._check(await self._counts(mine, lambda o: o.creator),
                            await self._counts(net, lambda o: o.network))
            if victim is not None and not await expire(victim):
                raise ApiError(503, "busy", "the server has too many tables waiting to start; "
                                            "try again later")
            yield mine, net
        except BaseException:
            for k in noted:
                assert self.cluster is not None
                await self.cluster.forget_created(k, table_id)
            raise
        finally:
            for k in keys:
                self._making[k] -= 1
                if not self._making[k]:
                    del self._making[k]
            self._making_all -= 1
            if victim is not None:
                self._yielding.discard(victim.id)

    def due_to_sleep(self, now: float | None = None) -> list[TableOwner]:
        """Games in play nobody has been connected to (seated or watching) for
        ``idle_table_ttl``: they sleep, and leave their place among the games in play."""
        now = self.clock() if now is None else now
        return [o for o in self.owners() if o.status == "playing" and not o.asleep
                and o.unwatched_since is not None
                and now - o.unwatched_since > self.limits.idle_table_ttl]

    def due_to_expire(self, now: float | None = None) -> list[TableOwner]:
        """Waiting tables past their time: not started within ``open_table_ttl``, or idle (no
        seated person connected, never or no longer) for ``idle_table_ttl``."""
        now = self.clock() if now is None else now
        lim = self.limits
        return [o for o in self.owners() if o.status == "open" and (
            now - o.created > lim.open_table_ttl
            or (o.unattended_since is not None
                and now - o.unattended_since > lim.idle_table_ttl))]
