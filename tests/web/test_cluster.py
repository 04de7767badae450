"""Several ``liverpool serve`` processes as one service, on a real PostgreSQL and a real Redis:
a client may reach any server; a table has one owner; a killed server's tables move to another
and go on; an owner that lost its lease cannot write; Redis stopped and started loses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from liverpool.web.leases import FencedError, LeaseStore, ServerIdInUse
from liverpool.web.limits import SHARED_RETRY, ApiError, Limits, RateLimiter
from liverpool.web.store import StoredEvent, StoredTable, StoreError

from .conftest import Client, RedisServer, free_port, play_turns
from .test_server_bench import gone, interrupt_when_serving
from .test_server_game import check_messages
from .test_server_restart import _ready

HANDS = {"hands": [1, 2]}


class Server:
    def __init__(self, db: str, redis: str, name: str,
                 env_more: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = self.base.replace("http", "ws")
        env = {**os.environ, "LIVERPOOL_BOT_THINK": "0.01", "LIVERPOOL_GRACE": "60",
               "LIVERPOOL_LIMIT_MESSAGE_RATE": "10000/second",
               "LIVERPOOL_BUY_WINDOW": "0", "LIVERPOOL_HAND_PAUSE": "0",
               "LIVERPOOL_ALLOW_SEED": "1",
               "LIVERPOOL_LIMIT_WAITING_TABLES_PER_CLIENT": "1000",
               "LIVERPOOL_LIMIT_TABLES_PER_NETWORK": "1000", **(env_more or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "liverpool.cli", "serve", "--port", str(self.port),
             "--db", db, "--redis", redis, "--server-id", name],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextlib.asynccontextmanager
async def servers(db: str, redis: str, n: int, env_more: dict[str, str] | None = None
                  ) -> AsyncIterator[list[Server]]:
    started = [Server(db, redis, f"s{i}", env_more) for i in range(n)]
    try:
        for s in started:
            await _ready(s.proc, s.base)
        yield started
    finally:
        for s in started:
            s.stop()


async def _table(srv: Server, humans: int, bots: int, **more: Any) -> tuple[str, str, str]:
    seats = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "basic"}] * bots
    async with httpx.AsyncClient(base_url=srv.base, timeout=20) as http:
        r = await http.post("/api/tables", json={"nickname": "Ann", "seats": seats,
                                                 "overrides": HANDS, "seed": 5, **more})
        assert r.status_code == 201, r.text
        t = r.json()
    return t["table"]["id"], t["token"], t["join_secret"]


async def _client(srv: Server, tid: str, token: str | None, version: int = -1) -> Client:
    c = Client(await connect(f"{srv.ws}/ws/{tid}", compression=None, max_size=None))
    await c.send({"type": "hello", "token": token, "version": version})
    return c


async def _stored(db: str, tid: str) -> StoredTable:
    store = LeaseStore(db.replace("postgresql://", "postgresql+psycopg://"), "reader")
    await store.open()
    try:
        stored = await store.load(tid)
    finally:
        await store.close()
    assert stored is not None
    return stored


class Seat:
    """A person at a seat who plays the server's hints and, when the server sends them away
    (a table moved, a server died), comes back at the version they had seen, through the next
    server in their list. Every message they were sent is kept."""

    def __init__(self, tid: str, token: str, via: list[Server]) -> None:
        self.tid, self.token, self.via = tid, token, via
        self.messages: list[dict[str, Any]] = []
        self.closes: list[int | None] = []
        self.version = -1
        self.current: Client | None = None
        self.known: dict[str, Any] | None = None  # the last state it was sent

    def received(self) -> int:
        return len(self.messages) + (len(self.current.messages) if self.current else 0)

    async def play(self, timeout: float = 240.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        k = 0
        while loop.time() < end:
            srv = self.via[k % len(self.via)]
            if srv.proc.poll() is not None:  # that one is dead: the next one
                k += 1
                continue
            try:
                c = await _client(srv, self.tid, self.token, self.version)
            except OSError:
                k += 1
                await asyncio.sleep(0.2)
                continue
            self.current = c
            try:
                # as a page does, it keeps what it knew: if the table has not moved since,
                # the server sends nothing new, and a seat that was to move moves on it
                return await play_turns(c, lambda m: False, timeout=end - loop.time(),
                                        already=self.known)
            except ConnectionClosed as e:
                self.closes.append(e.rcvd.code if e.rcvd else None)
                await asyncio.sleep(0.2)
            finally:
                self.current = None
                self.messages.extend(c.messages)
                states = [m for m in c.messages if m["type"] in ("update", "sync")
                          and m.get("view") is not None]
                if states:
                    self.known, self.version = states[-1], states[-1]["version"]
                with contextlib.suppress(Exception):
                    await c.close()
        raise AssertionError("the game did not end")


async def test_any_server_takes_any_client_of_a_table(pg_url: str,
                                                      redis_server: RedisServer) -> None:
    async with servers(pg_url, redis_server.url, 2) as (a, b):
        tid, token, secret = await _table(a, humans=2, bots=2)
        listed, _, _ = await _table(a, humans=2, bots=2, public=True)
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            # the lobby through the server that does not own the table: every server's public
            # tables (the private one is not listed)
            lobby = (await http.get("/api/tables")).json()
            assert [t["id"] for t in lobby["tables"]] == [listed] and lobby["total"] == 1
            assert lobby["tables"][0]["seats"][0]["name"] == "Ann"
            summary = (await http.get(f"/api/tables/{tid}")).json()
            assert summary["id"] == tid and summary["status"] == "open"
            r = await http.post(f"/api/tables/{tid}/join", json={"nickname": "Bob",
                                                                  "secret": secret})
            assert r.status_code == 200, r.text
            bob_token = r.json()["token"]
            wrong = await http.post(f"/api/tables/{tid}/join", json={"nickname": "Eve",
                                                                      "secret": "nope"})
            assert wrong.status_code == 403 and wrong.json()["error"] == "bad_secret"
            r = await http.post(f"/api/tables/{tid}/start", json={"token": token})
            assert r.status_code == 200 and r.json()["status"] == "playing", r.text
        ann = Seat(tid, token, [b])  # Ann's messages all come through b, relayed from a
        bob = Seat(tid, bob_token, [a])
        finals = await asyncio.gather(ann.play(), bob.play())
        assert all(f["view"]["phase"] == "over" for f in finals)
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            rec = (await http.get(f"/api/tables/{tid}/record")).json()
        checked = check_messages(rec, 3, {0: ann.messages, 1: bob.messages})
        assert checked > 100
        assert ann.closes == [] and bob.closes == []
        # a bad message through the relay gets the owner's answer, as a direct one would
        c = await _client(b, tid, token)
        await c.send("not json")
        err = await c.until(lambda m: m["type"] == "error")
        assert err["code"] == "bad_json"
        await c.close()


async def test_a_killed_server_s_table_moves_and_every_message_is_right(
        pg_url: str, redis_server: RedisServer) -> None:
    async with servers(pg_url, redis_server.url, 3) as (a, b, c):
        tid, token, secret = await _table(a, humans=2, bots=2)
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as http:
            bob_token = (await http.post(f"/api/tables/{tid}/join", json={
                "nickname": "Bob", "secret": secret})).json()["token"]
            assert (await http.post(f"/api/tables/{tid}/start",
                                    json={"token": token})).status_code == 200
        ann = Seat(tid, token, [b, c])
        bob = Seat(tid, bob_token, [c, b])
        games = asyncio.gather(ann.play(), bob.play())

        async def kill_when_played() -> float:
            while ann.received() + bob.received() < 40 and not games.done():
                await asyncio.sleep(0.05)
            a.kill()
            return time.monotonic()
        killed_at = await kill_when_played()
        assert not games.done()
        stored_at_kill = await _stored(pg_url, tid)
        finals = await games
        assert all(f["view"]["phase"] == "over" for f in finals)
        assert time.monotonic() - killed_at < 200
        # the clients were sent away by the survivors and came back (no other refusal)
        assert 4012 in ann.closes + bob.closes  # "the table moved": both were relayed to a
        assert set(ann.closes + bob.closes) <= {4012, 1013, 1012, 1006}, (ann.closes,
                                                                          bob.closes)
        async with httpx.AsyncClient(base_url=c.base, timeout=20) as http:
            rec = (await http.get(f"/api/tables/{tid}/record")).json()
        # nothing stored before the kill was lost, and every message any client got across the
        # move is that seat's view at its version, as the engine gives it
        before = [e.data["action"] for e in stored_at_kill.events if e.kind == "action"]
        assert rec["actions"][:len(before)] == before
        checked = check_messages(rec, 3, {0: ann.messages, 1: bob.messages})
        assert checked > 100
        assert (await _stored(pg_url, tid)).status == "over"


async def test_an_owner_that_lost_its_lease_cannot_write(pg_url: str) -> None:
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    old = LeaseStore(url, "old", ttl=0.5)
    new = LeaseStore(url, "new", ttl=0.5)
    await old.open()
    await new.open()
    lost: list[str] = []
    old.on_lost = lost.append
    try:
        cfg = {"rules": "standard", "overrides": {}, "seats": [{"kind": "human"}], "seed": 1}
        await old.create_table(StoredTable("t1", time.time(), "open", cfg, [
            StoredEvent(0, "create", {"seat": 0, "name": "Ann", "token_hash": "x"})]))
        await old.append("t1", StoredEvent(1, "join", {"seat": 1, "name": "Bob",
                                                        "token_hash": "y"}))
        assert await new.claim("t1") is None  # the old owner's lease is live
        assert await new.holder("t1") == "old"
        await asyncio.sleep(0.8)  # the old owner stalls past its lease
        assert await new.claim("t1") == 2
        assert await new.holder("t1") == "new"
        with pytest.raises(FencedError):
            await old.append("t1", StoredEvent(2, "leave", {"seat": 1}))
        assert lost == ["t1"] and "t1" not in old.epochs
        await new.append("t1", StoredEvent(2, "leave", {"seat": 1}))
        assert await old.renew() == []  # (it had already let the table go)
        # the database itself refuses an event under the old epoch, whoever sends it
        import psycopg
        with psycopg.connect(pg_url) as conn, pytest.raises(psycopg.errors.RaiseException,
                                                           match="fenced"):
            conn.execute("INSERT INTO lv_events (table_id, version, kind, data, epoch) "
                         "VALUES ('t1', 3, 'leave', '{}', 1)")
        stored = await new.load("t1")
        assert stored is not None
        assert [(e.version, e.kind) for e in stored.events] == [(0, "create"), (1, "join"),
                                                                (2, "leave")]
        # a renewal tells an owner which leases it lost
        old.epochs["t1"] = 1  # as if the old owner still believed it held the table
        assert await old.renew() == ["t1"]
    finally:
        await old.close()
        await new.close()


async def test_redis_stopped_and_started_loses_nothing(pg_url: str,
                                                       redis_server: RedisServer) -> None:
    async with servers(pg_url, redis_server.url, 2) as (a, b):
        tid, token, _ = await _table(a, humans=1, bots=3)
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as http:
            assert (await http.post(f"/api/tables/{tid}/start",
                                    json={"token": token})).status_code == 200
        ann = await _client(b, tid, token)  # relayed: b -> Redis -> a
        await play_turns(ann, lambda m: m["type"] == "update" and m["version"] >= 20)
        redis_server.stop()
        # the relayed client is told, in words, and sent away
        err = await ann.until(lambda m: m["type"] == "error", timeout=15)
        assert err["code"] == "broker"
        with pytest.raises(ConnectionClosed) as closed:
            await ann.recv(timeout=15)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        # while Redis is away: b cannot reach the table's server, and says so
        again = Client(await connect(f"{b.ws}/ws/{tid}", compression=None))
        assert (await again.recv())["code"] == "broker"
        with pytest.raises(ConnectionClosed):
            await again.recv()
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            r = await http.get(f"/api/tables/{tid}")
            assert r.status_code == 503 and r.json()["error"] in ("elsewhere", "broker")
        # the owner goes on serving its own clients
        direct = await _client(a, tid, token)
        await play_turns(direct, lambda m: m["type"] == "update" and m["version"] >= 30)
        await direct.close()
        seen = [m for c in (ann, direct) for m in c.messages if m["type"] == "update"]
        redis_server.start()
        # Redis is back: b relays again (its link comes back within a few seconds)
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while True:
            first: dict[str, Any] = {}
            with contextlib.suppress(ConnectionClosed):
                back = await _client(b, tid, token, max(m["version"] for m in seen))
                first = await back.recv()
                if first["type"] == "welcome":
                    break
                await back.close()
            assert loop.time() < end, first
            await asyncio.sleep(0.3)
        await back.close()
        # on to the end through b; a busy machine can see the table change owner after the
        # outage (a lease renewed late): the seat is then sent away (4012) and comes back, as a
        # page does, and nothing may be lost either way
        seat = Seat(tid, token, [b])
        final = await seat.play(timeout=240)
        assert set(seat.closes) <= {4012, 1013, 1012, 1006}, seat.closes
        assert final["view"]["phase"] == "over"
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            rec = (await http.get(f"/api/tables/{tid}/record")).json()
        for m in seen:  # every action a client was told of is in the record
            assert rec["actions"][m["version"] - 2] == m["action"]


def test_the_bench_of_several_servers_kills_one_and_counts_what_was_lost(
        pg_url: str, redis_server: RedisServer) -> None:
    from liverpool.benchmarks.cluster import run
    out = run(2, 6, 0.3, 10.0, kill_one=True, pg=pg_url, redis_url=redis_server.url,
              warmup=1.0)
    for key in ("servers", "tables", "actions_per_s", "latency_p50_ms", "latency_p99_ms",
                "errors", "lost_actions", "failover_s", "server_cpu_pct"):
        assert key in out, key
    assert out["servers"] == 2 and out["tables"] == 6 and out["killed"]
    assert out["errors"] == 0, out["error_codes"]
    assert out["tables_playing"] == 6
    assert out["lost_actions"] == 0 and out["acked_actions"] > 0
    assert out["reconnects"] > 0  # the killed server's clients came back through the other
    assert out["failover_s"] is not None and len(out["server_cpu_pct"]) == 2


def test_the_bench_of_several_servers_counts_refused_starts_and_tables_that_never_played(
        pg_url: str, redis_server: RedisServer) -> None:
    """Each server lets one game play: of 3 tables, the second of the first server is refused
    its start (an error, not retried: no server was killed) and never plays."""
    from liverpool.benchmarks.cluster import run, shortfall
    out = run(2, 3, 0.1, 1.0, pg=pg_url, redis_url=redis_server.url, warmup=0.5,
              keep={"playing_tables": "1"})
    assert out["tables"] == 3 and out["tables_playing"] == 2
    assert out["errors"] == 1 and out["error_codes"] == {"start:503:busy": 1}
    assert out["failover_retries"] == {}
    short = shortfall(out)
    assert short is not None and "1 of 3 tables did not play" in short, short


async def test_after_a_kill_the_bench_retries_unanswered_and_busy_lobby_requests() -> None:
    """Once a server was killed, a lobby request not answered or answered 503 goes again
    through the next live server, counted apart from errors; before, or for any other
    refusal, it is an error."""
    from liverpool.benchmarks.cluster import _lobby
    from liverpool.benchmarks.server import Refused, Stats
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.host)
        if request.url.host == "b" and calls.count("b") == 1:
            return httpx.Response(503, json={"error": "busy", "message": "moving"})
        if request.url.path.endswith("/join"):
            return httpx.Response(409, json={"error": "full", "message": "..."})
        return httpx.Response(200, json={"ok": True})

    transport = httpx.MockTransport(answer)
    https = [httpx.AsyncClient(base_url=f"http://{h}", transport=transport) for h in "abc"]
    stats, stop = Stats(), asyncio.Event()
    with pytest.raises(Refused) as e:  # nobody killed: a 503 is an error
        await _lobby(https, [True] * 3, 1, "start", "/api/tables/t/start", {}, stats, stop)
    assert e.value.code == "start:503:busy" and stats.failover_retries == {}
    calls.clear()
    alive = [False, True, True]  # the first was killed: its requests go to the next
    assert await _lobby(https, alive, 0, "start", "/api/tables/t/start", {}, stats,
                        stop) == {"ok": True}
    assert calls == ["b", "c"] and stats.failover_retries == {"start:503:busy": 1}
    with pytest.raises(Refused) as e:  # a refusal that is not the move's
        await _lobby(https, alive, 1, "join", "/api/tables/t/join", {}, stats, stop)
    assert e.value.code == "join:409:full"
    for http in https:
        await http.aclose()


def test_ctrl_c_stops_the_bench_of_servers_with_its_postgres_and_redis_at_once() -> None:
    from liverpool.benchmarks.cluster import postgres_bindir
    if postgres_bindir() is None or shutil.which("redis-server") is None:
        pytest.skip("the private PostgreSQL and Redis need Debian's postgresql, redis-server")
    bench, kids, sent = interrupt_when_serving(
        ["--servers", "2", "--tables", "2", "--duration", "30"], 2)
    try:
        _, err = bench.communicate(timeout=15)
    finally:
        bench.kill()
    assert bench.returncode == 130, err
    assert time.monotonic() - sent < 4
    assert len(kids) == 3 and all(gone(pid) for pid, _ in kids), kids  # 2 servers, Redis
    # the private PostgreSQL (detached by pg_ctl) and Redis no longer listen
    db = next(cmd for _, cmd in kids if " serve " in cmd).split("--db ")[1].split()[0]
    redis = next(cmd for _, cmd in kids if "redis-server" in cmd).split()[1]
    for address in (db.split("@")[1].split("/")[0], redis):
        host, port = address.rsplit(":", 1)
        with pytest.raises(OSError):
            socket.create_connection((host, int(port)), timeout=1).close()


async def test_items_between_servers_arrive_in_the_order_sent(redis_server: RedisServer) -> None:
    """A client's messages must reach its table's owner in order (a hello before the action
    it enables): what one server sends another, in however many turns of its loop, arrives as
    sent."""
    from liverpool.web.broker import Broker
    got: list[int] = []
    sender = Broker(redis_server.url, "a", lambda items: None)
    receiver = Broker(redis_server.url, "b", lambda items: got.extend(i["n"] for i in items))
    await sender.start()
    await receiver.start()
    try:
        assert sender.up and receiver.up
        for n in range(3000):
            assert sender.send("b", {"n": n, "pad": "x" * (n % 7) * 200})
            if n % 3 == 0:
                await asyncio.sleep(0)  # a new turn of the loop: a new flush
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while len(got) < 3000 and loop.time() < end:
            await asyncio.sleep(0.05)
        assert got == list(range(3000))
    finally:
        await sender.stop()
        await receiver.stop()


async def test_a_client_relayed_while_the_owners_are_looked_up_is_not_sent_away() -> None:
    """The watch over relayed clients looks up their tables' owners in the database; a client
    that arrives during that look-up was not part of it and must not be taken for moved."""
    from liverpool.web.cluster import Cluster, Proxy
    from liverpool.web.seats import Conn
    from liverpool.web.tablerequests import TableRequests

    class Store:
        server_id = "gw"
        on_lost = None

        def __init__(self) -> None:
            self.cluster: Cluster | None = None

        async def holders(self, ids: list[str]) -> dict[str, str]:
            assert self.cluster is not None
            late = Proxy(Conn(), "t2", "owner")  # a client relayed meanwhile
            self.cluster.proxies[late.cid] = late
            await asyncio.sleep(0)
            return {t: "owner" for t in ids}

    store = Store()
    cluster = Cluster(store, None, {}, TableRequests({}, Limits()))  # type: ignore[arg-type]
    store.cluster = cluster
    first = Proxy(Conn(), "t1", "owner")
    cluster.proxies[first.cid] = first
    cluster.send_moved(await cluster.look_at_relayed())
    assert not any(p.conn.closed for p in cluster.proxies.values())
    assert len(cluster.proxies) == 2


def _one_table(table_id: str) -> StoredTable:
    cfg = {"rules": "standard", "overrides": {}, "seats": [{"kind": "human"}], "seed": 1}
    return StoredTable(table_id, time.time(), "open", cfg, [
        StoredEvent(0, "create", {"seat": 0, "name": "Ann", "token_hash": "x"})])


async def test_a_second_process_under_a_running_server_s_id_is_refused(pg_url: str) -> None:
    """Two processes under one id would both believe they own its tables: the second is
    refused while the first renews, and going away it lets go of nothing of the first's."""
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    first = LeaseStore(url, "web-1")
    await first.open()
    await first.create_table(_one_table("t1"))

    async def renewing() -> None:
        while True:
            assert await first.renew() == []
            await asyncio.sleep(0.2)
    keeper = asyncio.create_task(renewing())
    second = LeaseStore(url, "web-1")
    try:
        with pytest.raises(ServerIdInUse, match="give each server its own --server-id"):
            await asyncio.wait_for(second.open(), 20)
        await second.close()
        assert not keeper.done()
        assert await first.holder("t1") == "web-1" and first.epochs == {"t1": 1}
        await first.append("t1", StoredEvent(1, "join", {"seat": 1, "name": "Bob",
                                                          "token_hash": "y"}))
        assert not first.usurped
    finally:
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
        await first.close()
    # a clean stop let the id go: the next process under it starts at once
    third = LeaseStore(url, "web-1")
    began = time.monotonic()
    await third.open()
    assert time.monotonic() - began < 3
    await third.close()


async def test_a_dead_server_s_id_is_taken_after_its_lease_and_the_old_process_yields(
        pg_url: str) -> None:
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    old = LeaseStore(url, "web-1", ttl=0.5)
    await old.open()
    await old.create_table(_one_table("t1"))
    lost: list[str] = []
    old.on_lost = lost.append
    # the old process stops renewing (stalled, or dead as far as the others can tell)
    new = LeaseStore(url, "web-1", ttl=0.5)
    try:
        await asyncio.wait_for(new.open(), 10)
        assert await new.orphans(10) == ["t1"]  # its own id's table, taken back at once
        assert await new.claim("t1") == 2
        # the old process wakes up: its id is another's now, it holds and claims nothing
        assert await old.renew() == ["t1"]
        assert old.usurped and old.epochs == {}
        assert await old.claim("t1") is None and await old.orphans(10) == []
        with pytest.raises(FencedError):
            await old.append("t1", StoredEvent(1, "join", {"seat": 1, "name": "Eve",
                                                            "token_hash": "z"}))
        with pytest.raises(ServerIdInUse):
            await old.create_table(_one_table("t2"))
        await old.close()  # lets go of nothing: the leases are the new process's
        assert await new.holder("t1") == "web-1" and await new.renew() == []
        await new.append("t1", StoredEvent(1, "join", {"seat": 1, "name": "Bob",
                                                        "token_hash": "y"}))
        stored = await new.load("t1")
        assert stored is not None and [e.version for e in stored.events] == [0, 1]
    finally:
        await new.close()


async def test_a_server_starting_beside_running_ones_does_not_lock_their_tables(
        pg_url: str) -> None:
    """A server that finds the schema made takes no lock the running servers' writes hold:
    altering ``lv_events`` under a write in flight used to wait for it, lock every other writer
    out meanwhile, and could deadlock with them (seen as a start that failed)."""
    import psycopg
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    first = LeaseStore(url, "s0")
    await first.open()
    await first.create_table(_one_table("t1"))
    try:
        # another server's write, in flight (its transaction holds lv_events and lv_servers)
        with psycopg.connect(pg_url) as busy:
            busy.execute("INSERT INTO lv_events (table_id, version, kind, data, epoch) "
                         "VALUES ('t1', 1, 'leave', '{}', 1)")
            busy.execute("UPDATE lv_servers SET seen = seen WHERE id = 's0'")
            for name in ("s1", "s2", "s3"):
                store = LeaseStore(url, name)
                await asyncio.wait_for(store.open(), 10)
                await store.close()
            busy.rollback()
    finally:
        await first.close()


async def test_a_start_the_database_chose_to_give_way_in_a_deadlock_tries_again(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg
    from sqlalchemy.exc import OperationalError
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    real = LeaseStore._create_schema
    calls: list[int] = []

    async def once_deadlocked(self: LeaseStore, conn: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("ALTER TABLE", {}, psycopg.errors.DeadlockDetected(
                "deadlock detected"))
        await real(self, conn)
    monkeypatch.setattr(LeaseStore, "_create_schema", once_deadlocked)
    store = LeaseStore(url, "s0")
    await store.open()
    await store.close()
    assert len(calls) == 2
    # anything else is not tried again: one clear line
    calls.clear()

    async def broken(self: LeaseStore, conn: Any) -> None:
        calls.append(1)
        raise OperationalError("SELECT", {}, psycopg.errors.InsufficientPrivilege(
            "permission denied for schema public"))
    monkeypatch.setattr(LeaseStore, "_create_schema", broken)
    with pytest.raises(StoreError, match=r"cannot open the database .*permission denied"):
        await LeaseStore(url, "s1").open()
    assert len(calls) == 1


async def test_serve_under_a_running_server_s_id_stops_with_one_line(
        pg_url: str, redis_server: RedisServer) -> None:
    async with servers(pg_url, redis_server.url, 1) as (running,):
        tid, token, _ = await _table(running, humans=1, bots=2)
        twin = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "liverpool.cli", "serve", "--port", str(free_port()),
            "--db", pg_url, "--redis", redis_server.url, "--server-id", "s0",
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = await asyncio.wait_for(twin.communicate(), 60)
        finally:
            if twin.returncode is None:  # it served: stop it, the test fails below
                twin.kill()
                await twin.wait()
        assert twin.returncode == 1
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and "server id 's0' is in use by a running server" in lines[0]
        # the running server kept its table
        async with httpx.AsyncClient(base_url=running.base, timeout=20) as http:
            r = await http.post(f"/api/tables/{tid}/start", json={"token": token})
            assert r.status_code == 200 and r.json()["status"] == "playing", r.text


async def test_a_server_whose_id_another_process_took_stops(pg_url: str,
                                                            redis_server: RedisServer) -> None:
    import psycopg
    async with servers(pg_url, redis_server.url, 1) as (running,):
        await _table(running, humans=1, bots=2)
        # as if a second process under the same id had started at the very same moment
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE lv_servers SET session = 'another' WHERE id = 's0'")
        code = await asyncio.to_thread(running.proc.wait, 30)
        assert running.proc.stderr is not None
        err = running.proc.stderr.read().decode()
        assert code == 1
        assert "stopped: another process took this server's id" in err
        with psycopg.connect(pg_url, autocommit=True) as conn:  # it let go of nothing
            assert conn.execute("SELECT session FROM lv_servers WHERE id = 's0'"
                                ).fetchall() == [("another",)]
            assert conn.execute("SELECT count(*) FROM lv_leases WHERE owner = 's0'"
                                ).fetchall() == [(1,)]


def test_a_redis_url_needs_postgresql_and_a_redis_scheme(tmp_path: Any) -> None:
    from liverpool.web.app import create_app
    with pytest.raises(ValueError, match="--redis needs a PostgreSQL database"):
        create_app(str(tmp_path / "x.db"), redis_url="redis://127.0.0.1:6379/0")
    with pytest.raises(ValueError, match="redis://"):
        create_app("postgresql://nobody@127.0.0.1:1/x", redis_url="localhost:6379")


async def test_a_request_during_a_take_over_waits_for_it_and_gets_the_one_owner(
        pg_url: str) -> None:
    """A dead server's table is taken over in bulk while a client asks for it: both get the
    same owner, built once, under the new lease."""
    from liverpool.web.registry import Registry
    from liverpool.web.seats import Settings
    url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    dead = LeaseStore(url, "dead", ttl=0.3)
    alive = LeaseStore(url, "alive")
    await dead.open()
    await alive.open()
    try:
        cfg = {"rules": "standard", "overrides": {}, "seed": 3, "public": False,
               "seats": [{"kind": "human", "level": None}, {"kind": "bot", "level": "basic"}]}
        await dead.create_table(StoredTable("t1", time.time(), "open", cfg, [
            StoredEvent(0, "create", {"seat": 0, "name": "Ann", "token_hash": "x"})]))
        dead.epochs.clear()  # it dies: no renewal, no release
        await asyncio.sleep(0.5)
        registry = Registry(alive, Settings())
        assert await alive.orphans(10) == ["t1"]
        took, asked = await asyncio.gather(registry.adopt(["t1"]), registry.get("t1"))
        assert took == 1 and asked is registry.owners["t1"]
        assert alive.epochs == {"t1": 2} and await alive.holder("t1") == "alive"
        assert await registry.adopt(["t1"]) == 0  # (already here)
        await registry.close()
    finally:
        await dead.close()
        await alive.close()


async def test_a_relaying_server_refuses_what_the_owner_would(pg_url: str,
                                                              redis_server: RedisServer) -> None:
    """A stranger reaching the server that does not own the table meets the same limits: a
    foreign Origin is refused before anything is relayed, and an oversized message never
    leaves the relaying server."""
    async with servers(pg_url, redis_server.url, 2) as (a, b):
        tid, token, _ = await _table(a, humans=1, bots=2)
        with pytest.raises(Exception):  # noqa: B017 (the handshake is refused: 403)
            await connect(f"{b.ws}/ws/{tid}", origin="https://evil.example")  # type: ignore[arg-type]
        c = await _client(b, tid, token)
        assert (await c.recv())["type"] == "welcome"
        with contextlib.suppress(ConnectionClosed):
            await c.send("x" * 70_000)
        with pytest.raises(ConnectionClosed) as closed:
            await c.until(lambda m: False, timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        again = await _client(b, tid, token)  # the table itself is unharmed
        assert (await again.recv())["type"] == "welcome"
        await again.close()


async def test_a_client_gets_the_rates_of_one_server_from_all_of_them(
        pg_url: str, redis_server: RedisServer) -> None:
    """Per-address rates are counted in Redis by the servers of one service: a client that
    spread its creates over two servers got twice the rate before."""
    async with servers(pg_url, redis_server.url, 2,
                       {"LIVERPOOL_LIMIT_CREATE_RATE": "3/minute"}) as (a, b):
        for srv in (a, b, a):
            await _table(srv, 3, 0)
        for srv in (b, a):
            async with httpx.AsyncClient(base_url=srv.base, timeout=20) as http:
                r = await http.post("/api/tables", json={
                    "nickname": "Ann", "seats": [{"kind": "human"}] * 3})
            assert r.status_code == 429, r.text
            assert r.json()["error"] == "rate_limited" and "create" in r.json()["message"]
            assert 1 <= int(r.headers["retry-after"]) <= 60


async def test_shared_rates_fall_back_to_each_server_while_redis_is_away(
        redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """Two servers' limiters on one Redis count together; with Redis stopped each counts alone
    (as a server without Redis does: the service keeps answering, with per-server limits), and
    once Redis is back (after ``SHARED_RETRY``) they count together again."""
    clock = [1000.0]
    lim = Limits(join_rate="2/minute")
    a, b = (RateLimiter(lim, shared=redis_server.url, clock=lambda: clock[0])
            for _ in range(2))
    await a.check("join", "10.0.0.1")
    await b.check("join", "10.0.0.1")
    for limiter in (a, b):
        with pytest.raises(ApiError) as refused:
            await limiter.check("join", "10.0.0.1")
        assert refused.value.status == 429 and refused.value.retry_after is not None
    assert await a.allow("join", "10.0.0.2")  # another address has its own count
    redis_server.stop()
    with caplog.at_level(logging.WARNING, "liverpool.web"):
        # alone, each server has its own two (counted in its memory)
        assert [await a.allow("join", "10.0.0.3") for _ in range(3)] == [True, True, False]
        assert [await b.allow("join", "10.0.0.3") for _ in range(3)] == [True, True, False]
    assert sum("Redis cannot be reached" in r.getMessage() for r in caplog.records) == 2
    redis_server.start()
    clock[0] += SHARED_RETRY
    assert await a.allow("join", "10.0.0.4") and await b.allow("join", "10.0.0.4")
    assert not await a.allow("join", "10.0.0.4")


async def test_a_client_holds_the_open_tables_of_one_server_across_all_of_them(
        pg_url: str, redis_server: RedisServer) -> None:
    """The open tables per address are counted over the service: a client that spread its
    creates over two servers could hold twice ``open_tables_per_client``. A table that ends
    frees its place on every server."""
    import psycopg
    async with servers(pg_url, redis_server.url, 2,
                       {"LIVERPOOL_LIMIT_OPEN_TABLES_PER_CLIENT": "2"}) as (a, b):
        first, _, _ = await _table(a, 3, 0)
        await _table(b, 3, 0)
        body = {"nickname": "Ann", "seats": [{"kind": "human"}] * 3}
        for srv in (a, b):
            async with httpx.AsyncClient(base_url=srv.base, timeout=20) as http:
                r = await http.post("/api/tables", json=body)
            assert r.status_code == 429 and r.json()["error"] == "too_many_tables", r.text
        with psycopg.connect(pg_url) as conn:  # as if its game had ended
            conn.execute("UPDATE lv_tables SET status = 'over' WHERE id = %s", (first,))
        await _table(b, 3, 0)
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as http:
            r = await http.post("/api/tables", json=body)
        assert r.status_code == 429, r.text


async def test_creates_at_once_on_two_servers_cannot_pass_a_cap_together(
        pg_url: str, redis_server: RedisServer) -> None:
    """A create is noted in Redis before it is counted there: ten creates at the same moment
    from one address, spread over two servers, make at most the address's cap of tables (in
    a tie every one may be refused); the refused ones' places are free again at once."""
    async with servers(pg_url, redis_server.url, 2,
                       {"LIVERPOOL_LIMIT_OPEN_TABLES_PER_CLIENT": "2",
                        "LIVERPOOL_LIMIT_CREATE_RATE": "1000/minute"}) as (a, b):
        body = {"nickname": "Ann", "seats": [{"kind": "human"}] * 3}
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as ha, \
                httpx.AsyncClient(base_url=b.base, timeout=20) as hb:
            answers = await asyncio.gather(*(h.post("/api/tables", json=body)
                                             for h in (ha, hb) * 5))
        codes = sorted(r.status_code for r in answers)
        assert codes.count(201) <= 2 and set(codes) <= {201, 429}, codes
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as ha:
            for _ in range(2 - codes.count(201)):  # one at a time, the cap is reached
                assert (await ha.post("/api/tables", json=body)).status_code == 201
            r = await ha.post("/api/tables", json=body)
        assert r.status_code == 429 and r.json()["error"] == "too_many_tables", r.text


async def _in_transaction(db: str) -> int:
    """Connections of the database that sit inside an open transaction, doing nothing."""
    import psycopg
    async with await psycopg.AsyncConnection.connect(db, autocommit=True) as conn:
        cur = await conn.execute("SELECT count(*) FROM pg_stat_activity "
                                 "WHERE state = 'idle in transaction' AND datname = "
                                 "current_database()")
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def test_a_game_is_rated_once_when_its_server_dies_while_recording_it(
        pg_url: str, redis_server: RedisServer) -> None:
    """Players and ratings are the service's, not a server's: a player made on one server plays
    on another; the server whose game ends dies inside the transaction that records it, and
    the server that takes the table over records it, once."""
    quick = {"LIVERPOOL_LIMIT_MIN_TIMER": "0"}
    a = Server(pg_url, redis_server.url, "s0", {"LIVERPOOL_TEST_RECORD_PAUSE": "600", **quick})
    b = Server(pg_url, redis_server.url, "s1", quick)
    try:
        for s in (a, b):
            await _ready(s.proc, s.base)
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            made = (await http.post("/api/players", json={"name": "Ann"})).json()
        key = {"Authorization": f"Bearer {made['key']}"}
        async with httpx.AsyncClient(base_url=a.base, timeout=20) as http:
            r = await http.post("/api/tables", headers=key, json={
                "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2,
                "overrides": {"hands": [1]}, "seed": 6, "turn_timer": 0.01})
            assert r.status_code == 201, r.text  # the key made on b works on a
            t = r.json()
            tid = t["table"]["id"]
            assert (await http.post(f"/api/tables/{tid}/start",
                                    json={"token": t["token"]})).status_code == 200
        end = time.monotonic() + 240
        while await _in_transaction(pg_url) == 0:  # a's recording waits in its transaction
            assert time.monotonic() < end, "the game did not end"
            await asyncio.sleep(0.1)
        a.kill()
        async with httpx.AsyncClient(base_url=b.base, timeout=20) as http:
            while True:  # b takes the table over (its lease expires), finds it over, records
                summary = (await http.get(f"/api/tables/{tid}")).json()
                if summary.get("standings"):
                    break
                assert time.monotonic() < end, "the game was never recorded"
                await asyncio.sleep(0.2)
            me = (await http.get("/api/players/me", headers=key)).json()
            games = (await http.get(f"/api/players/{made['id']}/games", headers=key)).json()
        assert summary["status"] == "over"
        assert me["games"] == 1 and games["total"] == 1
        row = summary["standings"][0]
        assert row["player"] == made["id"]
        assert me["rating"]["mu"] == pytest.approx(row["rating"]["after"]["mu"], abs=1e-3)
        assert row["rating"]["before"]["mu"] == pytest.approx(1500.0)
        import psycopg
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            counts = []
            for table in ("lv_games", "lv_results"):
                cur = await conn.execute(f"SELECT count(*) FROM {table} WHERE "
                                         f"{'id' if table == 'lv_games' else 'game_id'} = %s",
                                         (tid,))
                counts.append((await cur.fetchone() or (0,))[0])
        assert counts == [1, 1]
        assert (await _stored(pg_url, tid)).status == "over"
    finally:
        for s in (a, b):
            s.stop()
