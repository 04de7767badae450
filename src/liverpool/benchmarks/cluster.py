"""``liverpool bench server``: one server (``benchmarks.server.run``), or with ``--servers N``
several servers on one PostgreSQL and one Redis.

Domain words: *service* (N ``liverpool serve`` processes sharing a database and a broker),
*spread* (table i is created through server i mod N and its seat s connects through server
(i + s) mod N, so most clients are relayed to their table's owner), *kill* (``--kill-one``:
SIGKILL of one server in the middle of the measured time), *reconnect* (a client sent away, or
whose server died, comes back through the next live server at the version it had seen: not an
error), *acknowledged action* (an action some client received an update for), *lost action*
(acknowledged but missing from the database at the end), *failover* (the longest time a table
made no progress across the kill), *failover retry* (after the kill, a create, join or start
not answered or answered 503, tried again through the next live server: counted in
``failover_retries``, not as an error, unless still refused after ``FAILOVER_RETRY`` seconds).
*Playing table* and *error* are as in ``benchmarks.server``: any other refusal is an error, and
a table that did not play in the measured window (never started, or stalled all along) makes
the run short, as does a lost action (``shortfall``: the command exits 1).

Without ``--pg`` and ``--redis`` URLs, a private PostgreSQL and Redis are started from the
machine's own binaries (Debian's ``postgresql`` and ``redis-server``) in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from ..bots import make_bot
from ..rules import RuleSet
from ..web.limits import Limits
from .server import (
    SEAT_BOTS,
    Interrupted,
    Refused,
    SeatClient,
    Stats,
    _cpu_seconds,
    _free_port,
    bench_env,
    interruptible,
    post,
    stop_servers,
    until_measured,
    warn_unsorted,
)
from .server import run as run_one


# ==================================================================== private services =====
def _as_postgres(cmd: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def postgres_bindir() -> str | None:
    """Where the machine's PostgreSQL programs are (Debian's layout), if anywhere."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


@contextlib.contextmanager
def private_postgres(durable: bool = True) -> Iterator[str]:
    """A PostgreSQL server of our own on a free loopback port, for as long as the context
    lasts: its URL without a database name. ``durable=False`` (tests): no fsync."""
    bindir = postgres_bindir()
    if bindir is None:
        raise RuntimeError("PostgreSQL's binaries are absent: install the Debian package "
                           "postgresql, or give --pg URL")
    datadir = tempfile.mkdtemp(prefix="liverpool-bench-pg-")
    if os.geteuid() == 0:
        shutil.chown(datadir, "postgres", "postgres")
    port = _free_port()
    try:  # (removed however it ends: an interrupted initdb or start too)
        subprocess.run(_as_postgres([f"{bindir}/initdb", "-D", datadir, "-A", "trust", "-U",
                                     "postgres", "--no-sync", "-E", "UTF8"]),
                       check=True, capture_output=True)
        opts = f"-p {port} -k {datadir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not durable:  # (a benchmark keeps durable commits, as a real service has them)
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        subprocess.run(_as_postgres([f"{bindir}/pg_ctl", "-D", datadir, "-o", opts, "-w",
                                     "-l", f"{datadir}/log", "start"]),
                       check=True, capture_output=True)
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        if os.path.exists(f"{datadir}/postmaster.pid"):
            subprocess.run(_as_postgres([f"{bindir}/pg_ctl", "-D", datadir, "-m",
                                         "immediate", "stop"]), capture_output=True)
        shutil.rmtree(datadir, ignore_errors=True)


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is absent: install the Debian package redis-server, "
                           "or give --redis URL")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="liverpool-bench-redis-")
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis
        client = redis.Redis(port=port, socket_connect_timeout=0.2)
        for _ in range(200):
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(workdir, ignore_errors=True)


# ==================================================================== the clients ==========
class Progress:
    """What the clients saw of every table: acknowledged actions and when each table moved."""

    def __init__(self) -> None:
        self.acked: dict[str, dict[int, Any]] = {}  # table -> version -> action
        self.moves: dict[str, list[float]] = {}  # table -> times of its updates
        self.reconnects = 0
        self.closes: dict[str, int] = {}  # why connections ended: close codes

    def why(self, code: str) -> None:
        self.closes[code] = self.closes.get(code, 0) + 1

    def seen(self, tid: str, m: dict[str, Any]) -> None:
        if m.get("type") == "update" and m.get("action") is not None:
            versions = self.acked.setdefault(tid, {})
            if m["version"] not in versions:
                versions[m["version"]] = m["action"]
                self.moves.setdefault(tid, []).append(time.perf_counter())


async def _seat(urls: list[str], first: int, tid: str, token: str, seat: int, rules: RuleSet,
                think: float, stats: Stats, progress: Progress, rng: random.Random,
                stop: asyncio.Event, alive: list[bool], table: int) -> None:
    """One seat's client, reconnecting through the next live server until the game is over."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    client: SeatClient | None = None
    version = -1
    k = first
    while not stop.is_set():
        if not alive[k % len(urls)]:
            k += 1
            continue
        try:
            ws = await connect(f"{urls[k % len(urls)].replace('http', 'ws')}/ws/{tid}",
                               compression=None, max_size=None, ping_interval=None,
                               open_timeout=10)
        except (OSError, TimeoutError, ConnectionClosed):
            k += 1
            await asyncio.sleep(0.2)
            continue
        if client is None:
            client = SeatClient(ws, seat, make_bot(SEAT_BOTS[seat]), rules, think, stats, rng,
                                table=table)
        else:  # what was sent before the move is not answered: not a refusal either
            for task in list(client.tasks):  # (a move being thought over is thought anew)
                task.cancel()
            client.ws, client.sent_at, client.acting = ws, None, False
        client.on_message = lambda m: progress.seen(tid, m)
        try:
            # back at the version it had seen, as a browser comes back: the server sends only
            # what is newer, so a seat that was to move moves on what it knew
            await ws.send(json.dumps({"type": "hello", "token": token, "version": version}))
            if client.latest is not None and client.latest["legal"]:
                client.acting = True
                client._spawn(client._act())
            runner = asyncio.create_task(client.run())
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait([runner, stopper], return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if not runner.done():  # the run is over: this client stops here
                runner.cancel()
                return
            runner.result()
            progress.why("closed")
        except ConnectionClosed as e:
            progress.why(str(e.rcvd.code) if e.rcvd else "dropped")
        finally:
            with contextlib.suppress(Exception):
                await ws.close()
        if client.over.done():
            return
        if client.latest is not None:
            version = int(client.latest["version"])
        progress.reconnects += 1
        k += 1
        await asyncio.sleep(0.1 + 0.2 * rng.random())


FAILOVER_RETRY = 30.0  # seconds a lobby request is retried while a killed server's tables move


class _Stopped(Exception):
    """The run ended while a request was being retried."""


async def _lobby(https: list[Any], alive: list[bool], k: int, what: str, path: str,
                 body: dict[str, Any], stats: Stats, stop: asyncio.Event) -> dict[str, Any]:
    """A lobby request through server ``k`` (the next live one if it was killed). Any refusal
    is ``Refused``, but once a server was killed (``--kill-one``) one not answered, or answered
    503 (a table changing servers), is tried again through the next live server for up to
    ``FAILOVER_RETRY`` seconds, each counted in ``failover_retries``, not as an error."""
    n = len(https)
    until: float | None = None
    while True:
        while not alive[k % n]:
            k += 1
        try:
            return await post(https[k % n], what, path, body)
        except Refused as e:
            parts = e.code.split(":")
            if all(alive) or not (len(parts) == 2 or parts[1] == "503"):
                raise
            until = until or time.perf_counter() + FAILOVER_RETRY
            if time.perf_counter() > until:
                raise
            stats.failover_retries[e.code] = stats.failover_retries.get(e.code, 0) + 1
        if stop.is_set():
            raise _Stopped
        k += 1
        await asyncio.sleep(0.2)


async def _table(urls: list[str], https: list[Any], index: int, think: float, stats: Stats,
                 progress: Progress, stop: asyncio.Event, start_at: float,
                 alive: list[bool]) -> None:
    """Table ``index``: game after game until ``stop``. A refused create, join or start
    (``_lobby``) counts as an error and ends the table."""
    rules = RuleSet.preset("standard")
    rng = random.Random(index)
    table = index  # (index moves on with each game, spreading the next one)
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    while not stop.is_set():
        seats: list[asyncio.Task[None]] = []
        try:
            t = await _lobby(https, alive, index, "create", "/api/tables", {
                "nickname": "P1", "seats": [{"kind": "human"}] * 4}, stats, stop)
            tid, tokens = t["table"]["id"], [t["token"]]
            for k in range(2, 5):  # the others join through another server
                tokens.append((await _lobby(https, alive, index + k, "join",
                                            f"/api/tables/{tid}/join", {
                                                "nickname": f"P{k}",
                                                "secret": t["join_secret"]},
                                            stats, stop))["token"])
            seats = [asyncio.create_task(_seat(urls, index + s, tid, tokens[s], s, rules, think,
                                               stats, progress, random.Random(rng.random()),
                                               stop, alive, table))
                     for s in range(4)]
            await asyncio.sleep(0.2)  # the seats say hello before the game starts
            await _lobby(https, alive, index + 1, "start", f"/api/tables/{tid}/start",
                         {"token": tokens[0]}, stats, stop)
        except (Refused, _Stopped) as e:
            if isinstance(e, Refused):
                stats.error(e.code)
            for task in seats:
                task.cancel()
            await asyncio.gather(*seats, return_exceptions=True)
            return
        stats.started += 1
        await asyncio.gather(*seats)
        if not stop.is_set():
            stats.games += 1
        index += 1


# ==================================================================== the run ==============
def _start_server(port: int, pg: str, redis_url: str, name: str,
                  keep: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "LIVERPOOL_GRACE": "3600", "LIVERPOOL_BUY_WINDOW": "0",
           "LIVERPOOL_HAND_PAUSE": "0", **bench_env(keep)}
    return subprocess.Popen(
        [sys.executable, "-m", "liverpool.cli", "serve", "--port", str(port), "--db", pg,
         "--redis", redis_url, "--server-id", name], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, start_new_session=True)


async def _drive(urls: list[str], procs: list[subprocess.Popen[bytes]], tables: int,
                 think: float, duration: float, warmup: float, kill_one: bool,
                 pg: str) -> dict[str, Any]:
    import httpx

    stats, progress = Stats(), Progress()
    stop = asyncio.Event()
    alive = [True] * len(urls)
    t0 = time.perf_counter()
    spread = max(think, 0.5) * max(1.0, tables / 250)
    https = [httpx.AsyncClient(base_url=u, timeout=120, limits=httpx.Limits(
        max_connections=25)) for u in urls]
    tasks = [asyncio.create_task(_table(urls, https, i, think, stats, progress, stop,
                                        t0 + spread * i / max(1, tables), alive))
             for i in range(tables)]
    setup = await until_measured(stats, tasks, spread, warmup) - t0
    cpu0 = [_cpu_seconds(p.pid) for p in procs]
    own0, m0 = time.process_time(), time.perf_counter()
    killed_at: float | None = None
    cpu_at_kill: float | None = None
    try:
        if kill_one:
            await asyncio.sleep(duration / 2)
            cpu_at_kill = _cpu_seconds(procs[0].pid)
            alive[0] = False
            os.killpg(procs[0].pid, signal.SIGKILL)
            killed_at = time.perf_counter()
            await asyncio.sleep(duration / 2)
        else:
            await asyncio.sleep(duration)
    finally:
        gc.enable()
    stats.measuring = False
    elapsed = time.perf_counter() - m0
    client_cpu = time.process_time() - own0
    cpu = [(cpu_at_kill if (i == 0 and cpu_at_kill is not None) else _cpu_seconds(p.pid)) - c
           for i, (p, c) in enumerate(zip(procs, cpu0, strict=True))]
    stop.set()
    await asyncio.wait(tasks, timeout=30)
    for t in tasks:
        t.cancel()
    for http in https:
        await http.aclose()
    failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
    for t in failed:
        code = "client:" + type(t.exception()).__name__
        stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
    lost = await _lost_actions(pg, progress)
    failover = None
    if killed_at is not None:
        gaps = []
        for times in progress.moves.values():
            before = [x for x in times if x <= killed_at]
            after = [x for x in times if x > killed_at]
            if before and after:
                gaps.append(after[0] - before[-1])
            elif before:  # never moved again within the run
                gaps.append(time.perf_counter() - before[-1])
        failover = round(max(gaps), 1) if gaps else None
    lat = sorted(stats.latencies)

    def pct(p: float) -> float | None:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None
    return {"servers": len(urls), "tables": tables, "tables_playing": len(stats.played),
            "think": think,
            "duration": round(elapsed, 1), "actions": stats.actions,
            "actions_per_s": round(stats.actions / elapsed, 1),
            "latency_p50_ms": pct(0.50), "latency_p99_ms": pct(0.99),
            "latency_max_ms": round(lat[-1] * 1000, 1) if lat else None,
            "errors": stats.errors + len(failed), "error_codes": stats.error_codes,
            "late_intents": stats.late_intents, "failover_retries": stats.failover_retries,
            "reconnects": progress.reconnects,
            "close_codes": progress.closes,
            "lost_actions": lost, "acked_actions": sum(len(v) for v in progress.acked.values()),
            "failover_s": failover, "killed": kill_one,
            "games_finished": stats.games, "setup_s": round(setup, 1),
            "server_cpu_pct": [round(100 * c / elapsed, 1) for c in cpu],
            "client_cpu_pct": round(100 * client_cpu / elapsed, 1)}


async def _lost_actions(pg: str, progress: Progress) -> int:
    """Actions some client was told of that the database does not hold."""
    import psycopg
    lost = 0
    async with await psycopg.AsyncConnection.connect(pg) as conn:
        for tid, versions in progress.acked.items():
            cur = await conn.execute("SELECT version, data FROM lv_events WHERE table_id = %s "
                                     "AND kind = 'action'", (tid,))
            stored = {v: json.loads(d)["action"] for v, d in await cur.fetchall()}
            lost += sum(1 for v, a in versions.items() if stored.get(v) != a)
    return lost


async def _wait_ready(urls: list[str], procs: list[subprocess.Popen[bytes]]) -> None:
    from .server import _wait_ready as one
    for url, proc in zip(urls, procs, strict=True):
        await one(proc, url)


def run(servers: int, tables: int, think: float, duration: float, kill_one: bool = False,
        pg: str | None = None, redis_url: str | None = None,
        warmup: float = 3.0, keep: dict[str, str] | None = None) -> dict[str, Any]:
    """Figures of ``tables`` tables driven against ``servers`` servers of our own, on ``pg``
    and ``redis_url`` or private ones; ``keep`` as in ``benchmarks.server.run``. Ctrl-C stops
    the clients, the servers, PostgreSQL and Redis at once (``Interrupted``)."""
    warn_unsorted()
    with contextlib.ExitStack() as stack:
        pg_url = pg or stack.enter_context(private_postgres()) + "/postgres"
        broker = redis_url or stack.enter_context(private_redis())
        ports = [_free_port() for _ in range(servers)]
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for i, p in enumerate(ports):
                procs.append(_start_server(p, pg_url, broker, f"bench{i}", keep))

            async def ready_then_drive() -> dict[str, Any]:
                await _wait_ready(urls, procs)
                return await _drive(urls, procs, tables, think, duration, warmup, kill_one,
                                    pg_url)
            return asyncio.run(interruptible(ready_then_drive(), procs))
        finally:  # (then the private PostgreSQL and Redis, if any, are stopped)
            stop_servers(procs)
    raise AssertionError("unreachable")


def _kept(args: argparse.Namespace) -> dict[str, str] | None:
    """``--limit NAME=VALUE`` as {name: value}, or None when one is malformed (said on
    stderr)."""
    names = {f.name for f in dataclasses.fields(Limits)}
    keep: dict[str, str] = {}
    for item in getattr(args, "limit", None) or []:
        name, eq, value = item.partition("=")
        name = name.strip().lower().replace("-", "_")
        if not eq or name not in names:
            print(f"liverpool bench server: --limit {item}: NAME=VALUE, NAME one of "
                  f"{', '.join(sorted(names))}", file=sys.stderr)
            return None
        keep[name] = value.strip()
    return keep


def shortfall(out: dict[str, Any]) -> str | None:
    """What a run's figures fell short of, in one line, or None when nothing: a table that did
    not play in the measured window, an error, a lost action."""
    short = []
    if out["tables_playing"] < out["tables"]:
        short.append(f"{out['tables'] - out['tables_playing']} of {out['tables']} tables did "
                     f"not play in the measured window")
    if out["errors"]:
        codes = ", ".join(f"{k} x{v}" for k, v in sorted(out["error_codes"].items()))
        short.append(f"{out['errors']} errors ({codes})")
    if out.get("lost_actions"):
        short.append(f"{out['lost_actions']} acknowledged actions lost")
    return "; ".join(short) or None


def main(args: argparse.Namespace) -> int:
    """``liverpool bench server``: one server (``benchmarks.server.run``) or several (``run``).
    Exits 1 when the run was short (``shortfall``), after printing its figures; 130 on
    Ctrl-C."""
    quick = bool(getattr(args, "quick", False))
    tables = 4 if quick else int(args.tables)
    think = 0.2 if quick else float(args.think)
    duration = 3.0 if quick else float(args.duration)
    given = getattr(args, "warmup", None)
    warmup = float(given) if given is not None else 1.0 if quick else 3.0
    if tables < 1 or think < 0 or duration <= 0 or warmup < 0:
        print("liverpool bench server: --tables >= 1, --think >= 0, --duration > 0 and "
              "--warmup >= 0", file=sys.stderr)
        return 2
    if duration < 2 * think:
        print("liverpool bench server: --duration at least twice --think (a table acts about "
              "once a think time: a shorter measure cannot see every table play)",
              file=sys.stderr)
        return 2
    keep = _kept(args)
    if keep is None:
        return 2
    servers = getattr(args, "servers", None)
    kill_one = bool(getattr(args, "kill_one", False))
    if (servers is not None and servers < 1) or (kill_one and (servers or 0) < 2):
        print("liverpool bench server: --servers N >= 1 (>= 2 with --kill-one)",
              file=sys.stderr)
        return 2
    try:
        if servers is not None:
            measured = duration * (2 if quick and kill_one else 1)
            out = run(servers, tables, think, measured, kill_one=kill_one, pg=args.pg,
                      redis_url=args.redis, warmup=warmup, keep=keep)
        else:
            out = run_one(tables, think, duration, warmup=warmup, keep=keep)
    except (Interrupted, KeyboardInterrupt):
        print("liverpool bench server: interrupted; its servers are stopped", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:>16}: {v}")
    short = shortfall(out)
    if short is not None:
        print(f"liverpool bench server: short: {short}", file=sys.stderr)
        return 1
    return 0
