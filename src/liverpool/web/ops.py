"""Operations of the web server: liveness (``/healthz``), readiness (``/readyz``) and
Prometheus metrics (``/metrics``), for a load balancer and a monitor (``docs/deploy.md``).

Domain words: *check* (a named async test of something the server needs, such as the store
answering a trivial query; it passes by returning and fails by raising), *probe* (a request of a
load balancer or monitor to ``/healthz`` or ``/readyz``), *scrape* (a request of Prometheus to
``/metrics``), *metrics access* (who may scrape: see ``MetricsAccess``).

Other code counts through ``Metrics`` (``Settings.metrics`` for a table's owner,
``app.state.ops.metrics`` elsewhere) and adds readiness checks with ``Ops.add_check``.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger("liverpool.web")

CHECK_TIMEOUT = 2.0  # seconds a readiness check may take before it counts as failed
READY_CACHE = 1.0  # seconds a readiness answer is reused (probes never pile up on the store)
TABLE_STATUSES = ("open", "playing", "over", "expired")  # always exported, 0 when none
PROBE_TABLE_ID = "-readyz-"  # never a table id (they are letters and digits): no row matches

ReadyCheck = Callable[[], Awaitable[None]]


class NotReady(Exception):
    """Raised by a readiness check with the short reason to report (else the reason is the
    exception's type name: a database's own words stay in the log)."""


# ==================================================================== metrics ==============
ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BOT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The counters and histograms of one app, in a registry of its own (tests and benchmarks
    create many apps in one process; the global registry would mix them).

    Counting is cheap and never raises: ``action()``, ``action_done(received)``,
    ``bot_decision(seconds)``, ``storage_error(n)``, ``broker_error(n)``. Gauges of what is in
    memory (tables by status, open websockets) are read from the app's registry at each scrape
    (``Ops.watch``), so nothing has to keep them up to date."""

    def __init__(self, process: bool = True) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.actions = Counter(
            "liverpool_actions", "Game actions applied (players', bots' and timers'): each was "
            "stored, applied and sent to the table's connections", registry=reg)
        self.action_seconds = Histogram(
            "liverpool_action_seconds", "A player's action message: from the server receiving "
            "it to the move being stored, applied and queued for every connection of its table "
            "(refused actions are not counted)", buckets=ACTION_BUCKETS, registry=reg)
        self.bot_seconds = Histogram(
            "liverpool_bot_decision_seconds", "A bot's decision: from asking the bots' pool to "
            "its answer (waiting for a free worker included)", buckets=BOT_BUCKETS,
            registry=reg)
        self.storage_errors = Counter(
            "liverpool_storage_errors", "Writes the database refused (each refused change "
            "counts once; the change did not happen)", registry=reg)
        self.broker_errors = Counter(
            "liverpool_broker_errors", "Failed operations on the message broker shared by "
            "several servers", registry=reg)
        if process:  # free with the client: CPU, memory, open files; Python's version and GC
            ProcessCollector(registry=reg)
            PlatformCollector(registry=reg)
            GCCollector(registry=reg)

    def action(self) -> None:
        """One game action was applied."""
        self.actions.inc()

    def action_done(self, received: float | None) -> None:
        """A player's action is queued for its table's connections; ``received`` is
        ``time.perf_counter()`` when its message arrived (None: not measured)."""
        if received is not None:
            self.action_seconds.observe(max(0.0, time.perf_counter() - received))

    def bot_decision(self, seconds: float) -> None:
        self.bot_seconds.observe(max(0.0, seconds))

    def storage_error(self, n: int = 1) -> None:
        """``n`` writes were refused by the database."""
        self.storage_errors.inc(n)

    def broker_error(self, n: int = 1) -> None:
        """``n`` operations on the broker failed (publish, subscribe, lease, ...)."""
        self.broker_errors.inc(n)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class _LiveCollector(Collector):
    """Gauges computed at scrape time from what the app holds."""

    def __init__(self, statuses: Callable[[], Iterable[str]],
                 sockets: Callable[[], int]) -> None:
        self.statuses = statuses
        self.sockets = sockets

    def collect(self) -> Iterator[Metric]:
        counts = dict.fromkeys(TABLE_STATUSES, 0)
        for status in self.statuses():
            counts[status] = counts.get(status, 0) + 1
        tables = GaugeMetricFamily("liverpool_tables", "Tables in this server's memory, by "
                                   "status", labels=["status"])
        for status, n in counts.items():
            tables.add_metric([status], n)
        yield tables
        yield GaugeMetricFamily("liverpool_websockets", "Open table websocket connections",
                                value=self.sockets())


# ==================================================================== who may scrape =======
PROXY_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


@dataclass(frozen=True)
class MetricsAccess:
    """Who may read ``/metrics``. ``token`` (``LIVERPOOL_METRICS_TOKEN``): whoever sends
    ``Authorization: Bearer TOKEN``, from any address. Else ``public``
    (``LIVERPOOL_METRICS_PUBLIC=1``): anybody. Else (the default) a client whose address is
    loopback or private, asking directly: a request that came through a proxy (it carries
    ``X-Forwarded-For``, ``Forwarded`` or ``X-Real-IP``) may be from anywhere, and is refused."""

    token: str | None = None
    public: bool = False

    @staticmethod
    def from_env() -> MetricsAccess:
        token = os.environ.get("LIVERPOOL_METRICS_TOKEN", "").strip() or None
        return MetricsAccess(token, os.environ.get("LIVERPOOL_METRICS_PUBLIC") == "1")

    def refusal(self, request: Request) -> JSONResponse | None:
        if self.token is not None:
            given = request.headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() == "bearer" and hmac.compare_digest(
                    value.strip().encode("utf-8", "replace"), self.token.encode("utf-8")):
                return None
            return JSONResponse({"error": "unauthorized", "message": "the metrics need this "
                                 "server's metrics token (Authorization: Bearer ...)"},
                                status_code=401, headers={"www-authenticate": "Bearer"})
        if self.public:
            return None
        client = request.client.host if request.client else ""
        if _private(client) and not any(h in request.headers for h in PROXY_HEADERS):
            return None
        return JSONResponse({"error": "forbidden", "message": "the metrics are served to "
                             "loopback and private addresses only (docs/deploy.md)"},
                            status_code=403)


def _private(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_private or ip.is_link_local


# ==================================================================== the operations =======
class Ops:
    """Liveness, readiness and metrics of one app: made by ``create_app`` and kept on
    ``app.state.ops``.

    - ``add_check(name, check, timeout)``: a readiness check (an async callable that raises
      when not ready: ``NotReady("reason")`` for a reason of its own). ``store`` is added by
      ``watch``; a ``broker`` check is added the same way by the code that uses one.
    - ``started()`` / ``stopping()``: the app's start-up is done / its shutdown has begun
      (not ready: a load balancer stops sending new clients).
    - ``metrics``: the ``Metrics`` to count with."""

    def __init__(self, access: MetricsAccess | None = None, *, process_metrics: bool = True,
                 check_timeout: float = CHECK_TIMEOUT, ready_cache: float = READY_CACHE) -> None:
        self.metrics = Metrics(process=process_metrics)
        self.access = access if access is not None else MetricsAccess.from_env()
        self.check_timeout = check_timeout
        self.ready_cache = ready_cache
        self.checks: dict[str, tuple[ReadyCheck, float]] = {}
        self.phase = "starting"  # starting | ok | stopping
        self._last: tuple[float, bool, dict[str, str]] | None = None
        self._running: asyncio.Future[tuple[bool, dict[str, str]]] | None = None
        self._was_ready: bool | None = None

    def add_check(self, name: str, check: ReadyCheck, timeout: float | None = None) -> None:
        self.checks[name] = (check, self.check_timeout if timeout is None else timeout)
        self._last = None

    def started(self) -> None:
        self.phase = "ok"
        self._last = None

    def stopping(self) -> None:
        self.phase = "stopping"
        self._last = None

    async def readiness(self) -> tuple[bool, dict[str, str]]:
        """Whether the app is ready, and each check's answer (``ok`` or a short reason).
        The checks run together, each within its timeout; an answer is reused for
        ``ready_cache`` seconds and callers meanwhile share the run in progress."""
        now = time.monotonic()
        if self._last is not None and now - self._last[0] < self.ready_cache:
            return self._last[1], dict(self._last[2])
        if self._running is None:
            self._running = asyncio.ensure_future(self._run_checks())
            self._running.add_done_callback(self._ran)
        ready, checks = await asyncio.shield(self._running)
        return ready, dict(checks)

    def _ran(self, fut: asyncio.Future[tuple[bool, dict[str, str]]]) -> None:
        self._running = None
        if not fut.cancelled() and fut.exception() is None:
            ready, checks = fut.result()
            self._last = (time.monotonic(), ready, checks)

    async def _run_checks(self) -> tuple[bool, dict[str, str]]:
        names = list(self.checks)
        answers = await asyncio.gather(*(self._one(name, *self.checks[name]) for name in names))
        checks = {"app": self.phase, **dict(zip(names, answers, strict=True))}
        ready = all(v == "ok" for v in checks.values())
        if ready != self._was_ready and (self._was_ready is not None or not ready):
            if ready:
                log.warning("ready again")
            else:
                log.warning("not ready: %s", ", ".join(f"{k}: {v}" for k, v in checks.items()
                                                       if v != "ok"))
        self._was_ready = ready
        return ready, checks

    async def _one(self, name: str, check: ReadyCheck, timeout: float) -> str:
        try:
            async with asyncio.timeout(timeout):
                await check()
        except TimeoutError:
            return f"timeout ({timeout:g} s)"
        except NotReady as e:
            return str(e)[:200] or "not ready"
        except Exception as e:
            log.warning("readiness check %s failed: %s: %s", name, type(e).__name__,
                        str(e)[:300])
            return f"error: {type(e).__name__}"
        return "ok"

    # ---------------------------------------------------------------- wiring ------------
    def watch(self, store: Store, statuses: Callable[[], list[str]],
              sockets: Callable[[], int]) -> None:
        """Check the store, count its refused writes, and read the tables' statuses and the
        open websockets at each scrape (the routes are ``routes_ops``'s)."""
        self.add_check("store", store_check(store))
        store.on_write_error = self.metrics.storage_error
        self.metrics.registry.register(_LiveCollector(statuses, sockets))

    def health(self) -> Response:
        """The answer to ``/healthz``: the process serves."""
        return JSONResponse({"status": "ok"}, headers=NO_STORE)

    async def ready(self) -> Response:
        """The answer to ``/readyz``: 200 when every check passes, else 503 naming them."""
        ready, checks = await self.readiness()
        return JSONResponse({"status": "ready" if ready else "not_ready", "checks": checks},
                            status_code=200 if ready else 503, headers=NO_STORE)

    def scrape(self, request: Request) -> Response:
        """The answer to ``/metrics``: the metrics, for whom ``access`` lets scrape."""
        refused = self.access.refusal(request)
        if refused is not None:
            return refused
        return Response(self.metrics.exposition(), media_type=CONTENT_TYPE_LATEST,
                        headers=NO_STORE)


NO_STORE = {"cache-control": "no-store"}


def store_check(store: Store) -> ReadyCheck:
    """The store answers a trivial query (it looks up a table that cannot exist)."""

    async def check() -> None:
        if getattr(store, "engine", True) is None:
            raise NotReady("the database is not open")
        if getattr(store, "usurped", False):
            raise NotReady("another process took this server's id (--server-id)")
        await store.load(PROBE_TABLE_ID)

    return check

