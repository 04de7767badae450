"""``liverpool bench server``: many concurrent bot tables driven over websockets.

Domain words: *table* (4 seats, each a websocket client playing a bot on its own view),
*think time* (the pause a client makes before each action, as a person would), *latency* (from
an action sent to the update for it received by its sender), *warm-up* (the first seconds,
not measured, while the tables start), *playing table* (``tables_playing``: a table one of
whose seats got the update for an action of its own while measuring; a table refused, stopped or
stalled for the whole measure is not one), *error* (every create, join or start answered with
anything but 2xx or not answered, every websocket refused or closed by the server before its
game was over, every client that failed, at any time of the run: ``error_codes`` counts them
by what was refused, its status and code, e.g. ``start:503:busy``; and every action refused
while measuring, by the server's code). A refused table is not tried again.

A run is short when fewer tables played than were asked, or any error was counted:
``liverpool bench server`` then exits 1, with a line on stderr saying what was short.

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
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed, WebSocketException

from ..actions import Action
from ..bots import Bot, make_bot
from ..cards import parse_card
from ..engine import SeatView
from ..melds import meld_readings
from ..rules import Contract, RuleSet
from ..web.limits import ENV_PREFIX, Limits

SEAT_BOTS = ("basic", "basic", "random", "basic")
SETTLE = 1.0  # seconds between the clients' own collection and the measurement


# One client address drives every table of a bench, and a bench of N tables has N tables open
# and in play at once: every rate, every count per client (address, network), every cap on
# tables or sockets would refuse it long before the server is loaded. Those are lifted, found by
# the fields' names so that a limit added to ``Limits`` later is lifted too; the fields below
# are kept as they are, and why. A field neither lifted nor kept is named on stderr by a run
# (and fails tests/web/test_server_bench.py).
LIFTED_LIMIT = re.compile(r".*_rate|.*_per_(client|address|network)|.*tables.*|sockets_.*")
KEPT_LIMITS = {
    "max_body": "the bench's requests are a few hundred bytes",
    "body_timeout": "the bench sends its bodies at once",
    "max_message": "the bench's messages are a few hundred bytes",
    "send_queue_bytes": "what a server queues for one socket: a client that cannot keep up is "
                        "dropped as a slow browser would be (and counted, its table stops)",
    "send_queue_messages": "the same, in messages",
    "message_flood": "refused messages in a row before a socket is closed: with message_rate "
                     "lifted none is refused",
    "hello_timeout": "the clients say hello as soon as connected",
    "open_table_ttl": "a bench table is started as soon as its seats are taken",
    "idle_table_ttl": "the same, its seats connected before the start",
    "lobby_page": "the bench does not list tables",
    "review_workers": "the bench asks for no game review",
    "review_queue": "the same",
    "review_worlds": "the same",
    "player_page": "the bench's seats are guests: it lists no player's games",
    "nickname_max": "the bench's nicknames are short",
    "search_budget": "a cost of the server's own work, measured as it is run",
    "expert_max_iterations": "the bench's seats are people (its bots play in the clients)",
    "expert_max_ms": "the same",
    "bot_workers": "the server's own thread pool, measured as it is run",
    "min_timer": "bench tables have no turn timer",
    "max_timer": "the same",
    "chat_max": "the bench's clients do not chat",
    "chat_burst": "the same",
    "chat_every": "the same",
    "chat_kept": "the same",
    "chat_sent": "the same",
}
LIFTED_RATE = "1000000/minute"
LIFTED_COUNT = "1000000"


def lifted_limits(limits: type[Limits] = Limits) -> list[str]:
    """The fields of ``limits`` a bench lifts: its rates (every ``str`` field is a rate) and
    those named as counts of a client, of tables or of sockets; not those in ``KEPT_LIMITS``."""
    return [f.name for f in dataclasses.fields(limits) if f.name not in KEPT_LIMITS
            and (f.type == "str" or LIFTED_LIMIT.fullmatch(f.name))]


def unsorted_limits(limits: type[Limits] = Limits) -> list[str]:
    """Fields of ``limits`` neither lifted nor kept: a limit added without a decision."""
    lifted = set(lifted_limits(limits))
    return [f.name for f in dataclasses.fields(limits)
            if f.name not in lifted and f.name not in KEPT_LIMITS]


def warn_unsorted() -> None:
    for name in unsorted_limits():
        print(f"liverpool bench server: the limit {name} is neither lifted nor kept by the "
              f"bench (benchmarks/server.py KEPT_LIMITS); it stays at its default", file=sys.stderr)


def bench_env(keep: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``LIVERPOOL_LIMIT_*`` variables of a bench's server: every lifted limit, except
    those in ``keep`` (field name -> value), which are set as given."""
    types = {f.name: f.type for f in dataclasses.fields(Limits)}
    env = {ENV_PREFIX + name.upper(): LIFTED_RATE if types[name] == "str" else LIFTED_COUNT
           for name in lifted_limits()}
    for name, value in (keep or {}).items():
        if name not in types:
            raise ValueError(f"{name}: not a limit of the server")
        env[ENV_PREFIX + name.upper()] = value
    return env


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
    played: set[int] = dataclasses.field(default_factory=set)  # tables acknowledged measuring
    # (bench of servers) refusals while a killed server's tables moved, retried: not errors
    failover_retries: dict[str, int] = dataclasses.field(default_factory=dict)

    def error(self, code: str) -> None:
        """Count one error, whenever it came (a refused table is refused before measuring)."""
        self.errors += 1
        self.error_codes[code] = self.error_codes.get(code, 0) + 1


class Refused(Exception):
    """A lobby request (create, join, start) or a connection the server refused, or that did
    not reach it; counted as an error under ``code``: ``start:503:busy``,
    ``create:ConnectError``, ``socket:InvalidStatus``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


async def post(http: Any, what: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A lobby request's answer, or ``Refused`` for any answer but 2xx and for a transport
    error (the request may not have reached the server)."""
    import httpx
    try:
        r = await http.post(path, json=body)
    except httpx.HTTPError as e:
        raise Refused(f"{what}:{type(e).__name__}") from e
    if not 200 <= r.status_code < 300:
        try:
            code = str(r.json().get("error", "?"))[:40]
        except (ValueError, AttributeError):
            code = "?"
        raise Refused(f"{what}:{r.status_code}:{code}")
    answer: dict[str, Any] = r.json()
    return answer


class SeatClient:
    """One seat: reads the table's messages, thinks, acts with its bot."""

    def __init__(self, ws: Any, seat: int, bot: Bot, rules: RuleSet, think: float,
                 stats: Stats, rng: random.Random, table: int = 0) -> None:
        self.ws = ws
        self.table = table  # the bench's number of the table (kept across its games)
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
                ev = m.get("action")
                if ev is not None and ev["player"] == self.seat and self.sent_at is not None:
                    # (an action sent before the measurement began is not counted: the
                    # clients' own collection just before it would be counted as its latency)
                    if self.stats.measuring and self.sent_at >= self.stats.since:
                        self.stats.latencies.append(time.perf_counter() - self.sent_at)
                    if self.stats.measuring:  # the table played while measured
                        self.stats.played.add(self.table)
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
                    view = view.replace(phase="draw")
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
        view = view_from_json(m["view"], self.rules).replace(phase="buy")
        choice = self.bot.choose(view, [Action("buy", self.seat), Action("pass", self.seat)],
                                 self.rng)
        if choice.type == "buy":
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(json.dumps({"type": "intent", "kind": "buy", "on": True}))


async def _table(base: str, http: Any, index: int, think: float, stats: Stats,
                 stop: asyncio.Event, start_at: float) -> None:
    """Table ``index``: game after game until ``stop``. A refused create, join, start or
    connection, and a socket the server closed before the game was over, count as an error
    and end the table (it is not tried again: with a cap reached, it would be refused again)."""
    rules = RuleSet.preset("standard")
    rng = random.Random(index)
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    while not stop.is_set():
        try:
            if not await _game(base, http, index, rules, rng, think, stats, stop):
                return
        except Refused as e:
            stats.error(e.code)
            return


async def _game(base: str, http: Any, index: int, rules: RuleSet, rng: random.Random,
                think: float, stats: Stats, stop: asyncio.Event) -> bool:
    """One game of table ``index``; False when a socket was closed before it was over."""
    from websockets.asyncio.client import connect

    t = await post(http, "create", "/api/tables", {"nickname": "P1",
                                                   "seats": [{"kind": "human"}] * 4})
    tid, tokens = t["table"]["id"], [t["token"]]
    for k in range(2, 5):
        tokens.append((await post(http, "join", f"/api/tables/{tid}/join", {
            "nickname": f"P{k}", "secret": t["join_secret"]}))["token"])
    socks: list[Any] = []
    runs: list[asyncio.Task[None]] = []
    try:
        for _ in range(4):
            try:
                socks.append(await connect(f"{base.replace('http', 'ws')}/ws/{tid}",
                                           compression=None, max_size=None,
                                           ping_interval=None))
            except (OSError, TimeoutError, WebSocketException) as e:
                raise Refused(f"socket:{type(e).__name__}") from e
        clients = [SeatClient(ws, s, make_bot(SEAT_BOTS[s]), rules, think, stats,
                              random.Random(rng.random()), table=index)
                   for s, ws in enumerate(socks)]
        for c, tok in zip(clients, tokens, strict=True):
            await c.ws.send(json.dumps({"type": "hello", "token": tok, "version": -1}))
        runs = [asyncio.create_task(c.run()) for c in clients]
        await post(http, "start", f"/api/tables/{tid}/start", {"token": tokens[0]})
        stats.started += 1
        stopped = asyncio.create_task(stop.wait())
        waits: list[asyncio.Future[Any]] = [stopped, clients[0].over, *runs]
        while not (stop.is_set() or clients[0].over.done()):
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            waits = [w for w in waits if not w.done()]
            # a seat's socket closed (or its client failed) before its game was over
            dropped = [(c, r) for c, r in zip(clients, runs, strict=True)
                       if r.done() and not c.over.done()]
            if dropped and not stop.is_set():
                stopped.cancel()
                stats.error(_dropped(*dropped[0]))
                return False
        stopped.cancel()
        if clients[0].over.done():
            stats.games += 1
        return True
    finally:
        for ws in socks:
            with contextlib.suppress(Exception):
                await ws.close()
        for task in runs:
            task.cancel()


def _dropped(client: SeatClient, run: asyncio.Task[None]) -> str:
    """The error code of a seat whose client stopped before its game was over."""
    why = None if run.cancelled() else run.exception()
    if why is None:  # the server closed the socket
        return f"socket:closed:{client.ws.close_code}"
    if isinstance(why, ConnectionClosed):
        return f"socket:closed:{why.rcvd.code if why.rcvd else 'dropped'}"
    return f"client:{type(why).__name__}"


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
    return {"tables": tables, "tables_playing": len(stats.played), "think": think,
            "duration": round(elapsed, 1),
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


class Interrupted(Exception):
    """Ctrl-C (SIGINT) stopped a bench; its servers were killed at once."""


T = TypeVar("T")


async def interruptible(main: Coroutine[Any, Any, T],
                        procs: Sequence[subprocess.Popen[bytes]]) -> T:
    """``main``, run by ``asyncio.run``; SIGINT kills the process groups of ``procs`` (the
    servers, started in sessions of their own: a terminal's Ctrl-C does not reach them) at
    once, cancels ``main`` with the clients, and raises ``Interrupted``. (The servers are
    killed first: with them gone, the clients' sockets close without waiting, and a server
    told to stop would wait for thousands of sockets to close.)"""
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    hit = False

    def on_sigint() -> None:
        nonlocal hit
        hit = True
        kill_groups(procs)
        if me is not None:
            me.cancel()
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (ValueError, RuntimeError):  # not the main thread: Ctrl-C is the caller's
        return await main
    try:
        result = await main
    except asyncio.CancelledError:
        if hit:
            raise Interrupted from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    if hit:  # (the cancellation came as main was ending)
        raise Interrupted
    return result


def kill_groups(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """SIGKILL to the process group of each of ``procs`` (each the leader of its own)."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def stop_servers(procs: Sequence[subprocess.Popen[bytes]], grace: float = 15.0) -> None:
    """SIGTERM to each server's process group; after ``grace`` seconds, or at once when
    interrupted meanwhile, SIGKILL to what is left of each group."""
    try:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
        end = time.monotonic() + grace
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.0, end - time.monotonic()))
    finally:
        kill_groups(procs)
        for proc in procs:
            proc.wait()


def run(tables: int, think: float, duration: float, warmup: float = 3.0,
        keep: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Figures of ``tables`` tables driven against a server of our own. ``keep``: limits of
    that server set to a value (field name -> value) instead of lifted. Ctrl-C stops the
    clients and the server at once (``Interrupted``)."""
    warn_unsorted()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="liverpool-bench-") as tmp:
        # one client address drives every table: the limits per address are lifted
        # (the clients play as quick people: bots do not wait for them, hands do not pause)
        env = {**os.environ, "LIVERPOOL_GRACE": "3600", "LIVERPOOL_BUY_WINDOW": "0",
               "LIVERPOOL_HAND_PAUSE": "0", **bench_env(keep)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "liverpool.cli", "serve", "--port", str(port), "--db",
             str(Path(tmp) / "bench.db")], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)

        async def ready_then_drive() -> dict[str, Any]:
            await _wait_ready(proc, base)
            return await _drive(base, tables, think, duration, warmup, proc.pid)
        try:
            return asyncio.run(interruptible(ready_then_drive(), [proc]))
        finally:
            stop_servers([proc])
