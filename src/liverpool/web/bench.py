"""``liverpool bench server``: many concurrent bot tables driven over websockets.

Domain words: *table* (4 seats, each a websocket client playing a bot on its own view),
*think time* (the pause a client makes before each action, as a person would), *latency* (from
an action sent to the update for it received by its sender), *warm-up* (the first seconds,
not measured, while the tables start).

The server runs as a subprocess (``liverpool serve``, a temporary SQLite database, a free
loopback port); this process is the clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from ..actions import Action
from ..bots import Bot, make_bot
from ..cards import parse_card
from ..engine import SeatView
from ..melds import meld_readings
from ..rules import Contract, RuleSet

SEAT_BOTS = ("basic", "basic", "random", "basic")
SETTLE = 1.0  # seconds between the clients' own collection and the measurement


# what one address may do is limited per client; the bench is one client for every table
BENCH_LIMITS = {"LIVERPOOL_LIMIT_CREATE_RATE": "1000000/minute",
                "LIVERPOOL_LIMIT_JOIN_RATE": "1000000/minute",
                "LIVERPOOL_LIMIT_START_RATE": "1000000/minute",
                "LIVERPOOL_LIMIT_REQUEST_RATE": "1000000/minute",
                "LIVERPOOL_LIMIT_OPEN_TABLES_PER_CLIENT": "1000000",
                "LIVERPOOL_LIMIT_OPEN_TABLES": "1000000",
                "LIVERPOOL_LIMIT_SOCKETS_PER_CLIENT": "1000000"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def view_from_json(v: dict[str, Any], rules: RuleSet) -> SeatView:
    """A ``SeatView`` rebuilt from its JSON form, enough for the built-in bots to decide
    (the fields the JSON leaves out get neutral values)."""
    cards = [parse_card(c) for c in v["hand"]]
    melds = []
    for m in v["melds"]:
        mc = tuple(parse_card(c) for c in m["cards"])
        readings = [r for r in meld_readings(mc, m["owner"], rules) if r.kind == m["kind"]]
        if readings:
            melds.append(readings[0])
    return SeatView(
        seat=v["seat"], players=tuple(v["players"]), rules=v["rules"], phase=v["phase"],
        to_act=tuple(v["to_act"]), hand_number=v["hand_number"],
        contract=tuple(Contract(**c) for c in v["contract"]), dealer=v["dealer"],
        turn=v["turn"], hand=tuple(cards), hand_sizes=tuple(v["hand_sizes"]),
        known=tuple(tuple(parse_card(c) for c in k) for k in v["known"]),
        melds=tuple(melds), discard=tuple(parse_card(c) for c in v["discard"]),
        fresh=v["fresh"], stock_size=v["stock_size"], down=tuple(v["down"]),
        floating=tuple(v["floating"]), out=tuple(v["out"]), buys=tuple(v["buys"]),
        progress=tuple(v["progress"]), scores=tuple(tuple(r) for r in v["scores"]),
        totals=tuple(v["totals"]), penalties=tuple(v["penalties"]),
        taken=None if v["taken"] is None else parse_card(v["taken"]),
        must_play=tuple(parse_card(c) for c in v["must_play"]),
        winners=tuple(v["winners"]), ruleset=rules, hand_index=v["hand_number"] - 1,
        asked=(), window_mode="", discarder=None, pending_draw=False, reshuffles=0,
        turns=0, final_queue=None, bonus_caller=-1, gd_swaps=(), went_down_now=False,
        need_layoff=False, bonus_laid=False)


@dataclasses.dataclass
class Stats:
    measuring: bool = False
    since: float = 0.0  # when the measurement began (perf_counter)
    latencies: list[float] = dataclasses.field(default_factory=list)
    actions: int = 0
    errors: int = 0
    error_codes: dict[str, int] = dataclasses.field(default_factory=dict)
    games: int = 0
    started: int = 0
    late_intents: int = 0


class SeatClient:
    """One seat: reads the table's messages, thinks, acts with its bot."""

    def __init__(self, ws: Any, seat: int, bot: Bot, rules: RuleSet, think: float,
                 stats: Stats, rng: random.Random) -> None:
        self.ws = ws
        self.seat = seat
        self.bot = bot
        self.rules = rules
        self.think = think
        self.stats = stats
        self.rng = rng
        self.latest: dict[str, Any] | None = None
        self.sent_at: float | None = None
        self.acting = False
        self.asked_version = -1
        self.over = asyncio.get_running_loop().create_future()
        self.tasks: set[asyncio.Task[None]] = set()
        self.on_message: Callable[[dict[str, Any]], None] | None = None  # (bench of servers)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self) -> None:
        async for text in self.ws:
            m = json.loads(text)
            if self.on_message is not None:
                self.on_message(m)
            kind = m["type"]
            if kind in ("update", "sync"):
                ev = m.get("event")
                if ev is not None and ev["seat"] == self.seat and self.sent_at is not None:
                    # (an action sent before the measurement began is not counted: the
                    # clients' own collection just before it would be counted as its latency)
                    if self.stats.measuring and self.sent_at >= self.stats.since:
                        self.stats.latencies.append(time.perf_counter() - self.sent_at)
                    self.sent_at = None
                if m["view"] is None:
                    continue
                self.latest = m
                if m["view"]["phase"] == "over":
                    if not self.over.done():
                        self.over.set_result(None)
                    return
                if m["legal"] and not self.acting:
                    self.acting = True
                    self._spawn(self._act())
                if "buy" in m["intents"] and self.asked_version != m["version"]:
                    self.asked_version = m["version"]
                    self._spawn(self._maybe_buy(m))
            elif kind == "error":
                if self.sent_at is None:
                    # no action pending: a buy intent that came after the window closed, a race
                    # every real-time client has; counted apart from errors
                    if self.stats.measuring:
                        self.stats.late_intents += 1
                    continue
                self.sent_at = None
                if self.stats.measuring:
                    self.stats.errors += 1
                    self.stats.error_codes[m["code"]] = self.stats.error_codes.get(
                        m["code"], 0) + 1

    async def _act(self) -> None:
        acted = -1
        try:
            await asyncio.sleep(self.think)
            m = self.latest  # what came during the think time counts
            if m is None or not m["legal"]:
                return
            legal = [Action.from_json(a) for a in m["legal"]]
            if len(legal) == 1:
                a = legal[0]
            else:
                view = view_from_json(m["view"], self.rules)
                if view.phase == "call":  # the next player's move while a call window is open
                    view = dataclasses.replace(view, phase="draw")
                a = self.bot.choose(view, legal, self.rng)
            self.sent_at = time.perf_counter()
            if self.stats.measuring:
                self.stats.actions += 1
            acted = m["version"]
            await self.ws.send(json.dumps({"type": "action", "version": acted,
                                           "action": a.to_json()}))
        except ConnectionClosed:
            return
        finally:
            self.acting = False
        # the update for this action may have come while it was being sent
        m = self.latest
        if m is not None and m["legal"] and m["version"] > acted:
            self.acting = True
            self._spawn(self._act())

    async def _maybe_buy(self, m: dict[str, Any]) -> None:
        await asyncio.sleep(self.think * self.rng.random() * 0.5)
        if self.latest is not m:
            return
        view = dataclasses.replace(view_from_json(m["view"], self.rules), phase="buy")
        choice = self.bot.choose(view, [Action("buy", self.seat), Action("pass", self.seat)],
                                 self.rng)
        if choice.type == "buy":
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(json.dumps({"type": "intent", "kind": "buy", "on": True}))


async def _table(base: str, http: Any, index: int, think: float, stats: Stats,
                 stop: asyncio.Event, start_at: float) -> None:
    from websockets.asyncio.client import connect

    rules = RuleSet.preset("standard")
    rng = random.Random(index)
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    while not stop.is_set():
        r = await http.post("/api/tables", json={"nickname": "P1",
                                                 "seats": [{"kind": "human"}] * 4})
        t = r.json()
        tid, tokens = t["table"]["id"], [t["token"]]
        for k in range(2, 5):
            tokens.append((await http.post(f"/api/tables/{tid}/join",
                                           json={"nickname": f"P{k}",
                                                 "secret": t["join_secret"]})).json()["token"])
        socks = [await connect(f"{base.replace('http', 'ws')}/ws/{tid}", compression=None,
                               max_size=None, ping_interval=None) for _ in range(4)]
        clients = [SeatClient(ws, s, make_bot(SEAT_BOTS[s]), rules, think, stats,
                              random.Random(rng.random())) for s, ws in enumerate(socks)]
        for c, tok in zip(clients, tokens, strict=True):
            await c.ws.send(json.dumps({"type": "hello", "token": tok, "version": -1}))
        runs = [asyncio.create_task(c.run()) for c in clients]
        await http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        stats.started += 1
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait([stopped, clients[0].over], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        for ws in socks:
            with contextlib.suppress(Exception):
                await ws.close()
        for task in runs:
            task.cancel()
        if clients[0].over.done():
            stats.games += 1


async def until_measured(stats: Stats, tasks: list[asyncio.Task[None]], spread: float,
                         warmup: float) -> float:
    """Wait for every table to play, then for the warm-up; start measuring. Returns the time
    every table was playing."""
    await asyncio.sleep(spread)
    # every table plays before the warm-up starts (a table whose client failed never will)
    while stats.started + sum(t.done() for t in tasks) < len(tasks):
        await asyncio.sleep(0.1)
    started = time.perf_counter()
    await asyncio.sleep(warmup)
    gc.collect()
    gc.freeze()  # the clients' own collector pauses would show up as server latency:
    gc.disable()  # none while measuring (with a thousand tables, young collections alone
    # took a third of the clients' time and stopped them for up to 300 ms); the caller enables
    # this collection itself stops the clients (0.4 s at 1,000 tables): the messages that came
    # meanwhile are read before measuring, else the first actions measured wait behind them
    # (the 1,000 tables' p99 was 81-140 ms with all of it in the first 0.3 s, 50 ms without)
    await asyncio.sleep(SETTLE)
    stats.measuring, stats.since = True, time.perf_counter()
    return started


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _drive(base: str, tables: int, think: float, duration: float, warmup: float,
                 server_pid: int) -> dict[str, Any]:
    import httpx

    stats = Stats()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        t0 = time.perf_counter()
        spread = max(think, 0.5)  # tables start spread over one think time, as people would
        tasks = [asyncio.create_task(_table(base, http, i, think, stats, stop,
                                            t0 + spread * i / max(1, tables)))
                 for i in range(tables)]
        setup = await until_measured(stats, tasks, spread, warmup) - t0
        cpu0, own0, m0 = _cpu_seconds(server_pid), time.process_time(), time.perf_counter()
        try:
            await asyncio.sleep(duration)
        finally:
            gc.enable()
        stats.measuring = False
        elapsed = time.perf_counter() - m0
        server_cpu = _cpu_seconds(server_pid) - cpu0
        client_cpu = time.process_time() - own0
        stop.set()
        await asyncio.wait(tasks, timeout=30)
        failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
    for t in failed:  # a client that died (a refused or timed-out connection): say what it was
        code = "client:" + type(t.exception()).__name__
        stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
    lat = sorted(stats.latencies)

    def pct(p: float) -> float | None:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None
    return {"tables": tables, "think": think, "duration": round(elapsed, 1),
            "actions": stats.actions, "actions_per_s": round(stats.actions / elapsed, 1),
            "latency_p50_ms": pct(0.50), "latency_p99_ms": pct(0.99),
            "latency_max_ms": round(lat[-1] * 1000, 1) if lat else None,
            "errors": stats.errors + len(failed), "error_codes": stats.error_codes,
            "late_intents": stats.late_intents,
            "games_finished": stats.games, "setup_s": round(setup, 1),
            "server_cpu_pct": round(100 * server_cpu / elapsed, 1),
            "client_cpu_pct": round(100 * client_cpu / elapsed, 1)}


async def _wait_ready(proc: subprocess.Popen[bytes], base: str) -> None:
    import httpx
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError("the server exited: " + (proc.stderr.read().decode()
                                                        if proc.stderr else ""))
        with contextlib.suppress(httpx.HTTPError):
            async with httpx.AsyncClient() as http:
                if (await http.get(f"{base}/api/config")).status_code == 200:
                    return
        await asyncio.sleep(0.05)
    raise RuntimeError("the server did not start in 30 s")


def run(tables: int, think: float, duration: float, warmup: float = 3.0) -> dict[str, Any]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="liverpool-bench-") as tmp:
        # one client address drives every table: the limits per address are lifted
        # (the clients play as quick people: bots do not wait for them, hands do not pause)
        env = {**os.environ, "LIVERPOOL_GRACE": "3600", "LIVERPOOL_BUY_WINDOW": "0",
               "LIVERPOOL_HAND_PAUSE": "0", **BENCH_LIMITS}
        proc = subprocess.Popen(
            [sys.executable, "-m", "liverpool.cli", "serve", "--port", str(port), "--db",
             str(Path(tmp) / "bench.db")], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            asyncio.run(_wait_ready(proc, base))
            return asyncio.run(_drive(base, tables, think, duration, warmup, proc.pid))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
