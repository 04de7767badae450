"""Operations: liveness and readiness for a load balancer, Prometheus metrics for a monitor
(``liverpool.web.ops``, docs/deploy.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from starlette.requests import Request

from liverpool.web.app import create_app
from liverpool.web.guard import Origins
from liverpool.web.limits import Limits
from liverpool.web.ops import MetricsAccess, NotReady
from liverpool.web.store import SqliteStore, normalize_url

from .conftest import RELAXED, play_turns, serve


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and sorted labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text)[(name, tuple(sorted(labels.items())))]


class FailingStore(SqliteStore):
    """A SQLite store that can be told to fail its reads or its writes."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.reads_fail = False
        self.writes_fail = False

    async def load(self, table_id: str) -> Any:
        if self.reads_fail:
            raise RuntimeError("connection refused (a test)")
        return await super().load(table_id)

    async def _write(self, conn: Any, batch: Any) -> None:
        if self.writes_fail:
            raise RuntimeError("disk full (a test)")
        await super()._write(conn, batch)


async def test_healthz_and_readyz_answer(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        r = await srv.http.get("/healthz")
        assert r.status_code == 200 and r.json() == {"status": "ok"}
        assert (await srv.http.head("/healthz")).status_code == 200
        r = await srv.http.get("/readyz")
        assert r.status_code == 200
        assert r.json() == {"status": "ready", "checks": {"app": "ok", "store": "ok"}}
        assert r.headers["cache-control"] == "no-store"
        assert "content-security-policy" in r.headers  # through the guard like the rest


async def test_not_ready_when_the_store_fails_or_a_check_does(sqlite_url: str) -> None:
    store = FailingStore(normalize_url(sqlite_url))
    async with serve(sqlite_url, store=store) as srv:
        ops = srv.app.state.ops
        ops.ready_cache = 0.0
        assert (await srv.http.get("/readyz")).status_code == 200
        store.reads_fail = True
        r = await srv.http.get("/readyz")
        assert r.status_code == 503
        body = r.json()
        assert body["status"] == "not_ready"
        assert body["checks"]["app"] == "ok"
        assert body["checks"]["store"] == "error: RuntimeError"  # not the database's words
        assert "refused" not in r.text
        assert (await srv.http.get("/healthz")).status_code == 200  # alive all the same
        store.reads_fail = False
        assert (await srv.http.get("/readyz")).status_code == 200

        async def no_broker() -> None:
            raise NotReady("no broker")
        ops.add_check("broker", no_broker)
        r = await srv.http.get("/readyz")
        assert r.status_code == 503 and r.json()["checks"] == {
            "app": "ok", "store": "ok", "broker": "no broker"}

        never = asyncio.Event()

        async def hangs() -> None:
            await never.wait()
        ops.checks.pop("broker")
        ops.add_check("slow", hangs, timeout=0.05)
        r = await srv.http.get("/readyz")
        assert r.status_code == 503 and r.json()["checks"]["slow"] == "timeout (0.05 s)"


async def test_not_ready_before_start_up(sqlite_url: str) -> None:
    app = create_app(sqlite_url)  # its lifespan has not run: the store is not open
    ready, checks = await app.state.ops.readiness()
    assert not ready
    assert checks == {"app": "starting", "store": "the database is not open"}


async def test_probes_are_not_rate_limited_and_answer_an_address(sqlite_url: str) -> None:
    tight = Limits(request_rate="2/minute")
    loopback_only = Origins.build(None, [], [], "127.0.0.1")  # the Host is checked
    async with serve(sqlite_url, limits=tight, origins=loopback_only) as srv:
        for _ in range(5):
            assert (await srv.http.get("/readyz")).status_code == 200
            assert (await srv.http.get("/healthz")).status_code == 200
        codes = [(await srv.http.get("/api/config")).status_code for _ in range(3)]
        assert codes[-1] == 429
        # a load balancer asking by address; not a name that could be rebound elsewhere
        for host in ("192.0.2.7", "192.0.2.7:8000", "[2001:db8::7]:8000"):
            r = await srv.http.get("/healthz", headers={"host": host})
            assert r.status_code == 200, host
        r = await srv.http.get("/healthz", headers={"host": "evil.example"})
        assert r.status_code == 400 and r.json()["error"] == "bad_host"
        r = await srv.http.get("/", headers={"host": "192.0.2.7"})
        assert r.status_code == 400  # only the probes take an address


async def test_metrics_count_a_played_action(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        text = (await srv.http.get("/metrics")).text
        assert value(text, "liverpool_actions_total") == 0
        assert value(text, "liverpool_tables", status="playing") == 0
        assert value(text, "liverpool_broker_errors_total") == 0
        assert value(text, "liverpool_storage_errors_total") == 0
        t = await srv.create([{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2,
                             seed=5)
        tid = t["table"]["id"]
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        assert r.status_code == 200
        c = await srv.client(tid, t["token"])
        await play_turns(c, lambda m: m["type"] == "update" and m.get("action") is not None
                         and m["action"]["player"] == 0)
        r = await srv.http.get("/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        text = r.text
        assert value(text, "liverpool_actions_total") >= 1
        assert value(text, "liverpool_action_seconds_count") >= 1
        assert value(text, "liverpool_action_seconds_bucket", le="+Inf") >= 1
        assert value(text, "liverpool_tables", status="playing") == 1
        assert value(text, "liverpool_tables", status="open") == 0
        assert value(text, "liverpool_websockets") == 1
        assert ("liverpool_bot_decision_seconds_count", ()) in samples(text)
        names = {name for name, _ in samples(text)}
        assert {"python_info", "python_gc_objects_collected_total"} <= names  # free ones
        await c.close()


async def test_storage_errors_are_counted(sqlite_url: str) -> None:
    store = FailingStore(normalize_url(sqlite_url))
    async with serve(sqlite_url, store=store) as srv:
        store.writes_fail = True
        r = await srv.http.post("/api/tables", json={"nickname": "Ann",
                                                     "seats": [{"kind": "human"}] * 3})
        assert r.status_code == 503 and r.json()["error"] == "storage"
        text = (await srv.http.get("/metrics")).text
        assert value(text, "liverpool_storage_errors_total") == 1
        srv.app.state.ops.metrics.broker_error()
        text = (await srv.http.get("/metrics")).text
        assert value(text, "liverpool_broker_errors_total") == 1


async def test_metrics_are_refused_to_the_world(sqlite_url: str) -> None:
    async with serve(sqlite_url, limits=RELAXED) as srv:
        assert (await srv.http.get("/metrics")).status_code == 200  # loopback
        # through a proxy (uvicorn trusts one on 127.0.0.1): the client may be anybody
        r = await srv.http.get("/metrics", headers={"x-forwarded-for": "203.0.113.9"})
        assert r.status_code == 403 and r.json()["error"] == "forbidden"
        r = await srv.http.get("/metrics", headers={"x-forwarded-for": "10.0.0.9"})
        assert r.status_code == 403
        srv.app.state.ops.access = MetricsAccess(token="s3cret-token")
        assert (await srv.http.get("/metrics")).status_code == 401
        r = await srv.http.get("/metrics", headers={"authorization": "Bearer wrong"})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        r = await srv.http.get("/metrics", headers={"authorization": "Bearer s3cret-token",
                                                    "x-forwarded-for": "203.0.113.9"})
        assert r.status_code == 200
        srv.app.state.ops.access = MetricsAccess(public=True)
        r = await srv.http.get("/metrics", headers={"x-forwarded-for": "203.0.113.9"})
        assert r.status_code == 200


def _request(client: str, **headers: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/metrics", "client": (client, 1),
                    "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})


def test_metrics_access_by_address() -> None:
    default = MetricsAccess()
    for client in ("127.0.0.1", "::1", "10.1.2.3", "192.168.1.5", "172.16.0.9", "fd00::5",
                   "::ffff:10.0.0.1"):
        assert default.refusal(_request(client)) is None, client
    for client in ("8.8.8.8", "2a00:1450::1", "unknown", ""):
        refused = default.refusal(_request(client))
        assert refused is not None and refused.status_code == 403, client
    refused = default.refusal(_request("10.1.2.3", forwarded="for=8.8.8.8"))
    assert refused is not None and refused.status_code == 403
    token = MetricsAccess(token="abc")
    assert token.refusal(_request("8.8.8.8", authorization="bearer abc")) is None
    refused = token.refusal(_request("127.0.0.1"))
    assert refused is not None and refused.status_code == 401
