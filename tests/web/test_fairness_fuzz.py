"""Random people at two tables at once (hypothesis): whatever sequence of joins, leaves,
removals, hellos, reconnects, drops, intents flipped, hints, ready and moves they send, and
while one person at each table sends a pattern of messages over and over as fast as the
rate allows, every table keeps moving within its documented deadlines, and no table's owner
fails.

Domain words: *person* (a seat's websocket client, or a client about to join), *gap* (the time
between two versions of a playing table), *bound* (what the docs let a table wait at most:
the people's window, the end-of-hand pause, a turn timer, the bots' think time, one after the
other, with room for a busy machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import RELAXED, Client, Served, serve

THINK, WINDOW, PAUSE, TURN, GRACE = 0.3, 0.8, 0.8, 0.6, 0.5
# one of each wait in a row, twice over, and two seconds for a busy machine
BOUND = 2 * (WINDOW + PAUSE + TURN + THINK) + 2.0
PLAY_FOR = 10.0  # seconds of random play per example

LOBBY_OPS = ("join", "leave", "remove", "hello", "drop")
PLAY_OPS = ("buy", "call", "ready", "hint", "hello", "reconnect", "act", "drop", "stale")
lobby_op = st.tuples(st.integers(0, 1), st.integers(0, 3), st.sampled_from(LOBBY_OPS),
                     st.integers(0, 3))
play_op = st.tuples(st.integers(0, 1), st.integers(0, 3), st.sampled_from(PLAY_OPS),
                    st.booleans(), st.integers(0, 4))
# what the person who tries to hold the table sends, in a loop, 12 messages a second (the rate
# allows 20)
ATTACK = ({"type": "intent", "kind": "buy", "on": True},
          {"type": "intent", "kind": "buy", "on": False},
          {"type": "intent", "kind": "call", "on": True},
          {"type": "intent", "kind": "call", "on": False},
          {"type": "ready"}, {"type": "hint"}, {"type": "hello"})
attack = st.lists(st.sampled_from(range(len(ATTACK))), min_size=2, max_size=6)


@dataclass
class Person:
    token: str | None = None
    client: Client | None = None
    reader: asyncio.Task[None] | None = None
    last: dict[str, Any] | None = None  # the last message with a view
    version: int = -1


@dataclass
class Table:
    tid: str
    secret: str
    people: list[Person] = field(default_factory=lambda: [Person() for _ in range(4)])


async def _read(p: Person) -> None:
    c = p.client
    assert c is not None
    with contextlib.suppress(Exception):
        while True:
            m = await c.recv(3600)
            if isinstance(m.get("version"), int):
                p.version = max(p.version, m["version"])
            if m.get("view"):
                p.last = m


async def _connect(srv: Served, t: Table, p: Person) -> None:
    await _drop(p)
    p.client = await srv.client(t.tid, p.token, p.version)
    p.reader = asyncio.create_task(_read(p))


async def _drop(p: Person) -> None:
    if p.client is not None:
        with contextlib.suppress(Exception):
            await p.client.close()
    if p.reader is not None:
        p.reader.cancel()
        with contextlib.suppress(BaseException):
            await p.reader
    p.client, p.reader = None, None


async def _lobby_step(srv: Served, t: Table, who: int, op: str, seat: int) -> None:
    p = t.people[who]
    owner = srv.app.state.registry.owners[t.tid]
    if op == "join" and p.token is None:
        r = await srv.http.post(f"/api/tables/{t.tid}/join",
                                json={"nickname": f"P{who}", "secret": owner.join_secret},
                                headers={"x-forwarded-for": f"198.51.100.{10 + who}"})
        if r.status_code == 200:
            p.token = r.json()["token"]
    elif op in ("leave", "remove") and p.token is not None:
        # a player leaves their own seat, or the host removes the seat asked for
        by = p.token if op == "leave" else t.people[0].token
        target = owner.seat_of(p.token) if op == "leave" else seat
        if target is not None and by is not None:
            r = await srv.http.post(f"/api/tables/{t.tid}/remove",
                                    json={"token": by, "seat": target})
            if r.status_code == 200:
                for q in t.people:
                    if q.token is not None and owner.seat_of(q.token) is None:
                        q.token = None
                        await _drop(q)
    elif op == "hello" and p.token is not None:
        await _connect(srv, t, p)
    elif op == "drop":
        await _drop(p)


async def _play_step(srv: Served, t: Table, who: int, op: str, on: bool, pick: int) -> None:
    p = t.people[who]
    if p.token is None:
        return
    c = p.client
    if op in ("reconnect", "hello") or c is None:
        if op == "reconnect" or c is None:
            await _connect(srv, t, p)
        else:
            await c.send({"type": "hello", "token": p.token,
                          "version": -1 if on else p.version})
        return
    with contextlib.suppress(Exception):
        if op in ("buy", "call"):
            await c.send({"type": "intent", "kind": op, "on": on})
        elif op in ("ready", "hint"):
            await c.send({"type": op})
        elif op == "drop":
            await _drop(p)
        elif op in ("act", "stale") and p.last is not None and p.last.get("legal"):
            legal = p.last["legal"]
            version = p.last["version"] - (1 if op == "stale" else 0)
            await c.send({"type": "action", "version": version,
                          "action": legal[pick % len(legal)]})


async def _attack(t: Table, pattern: list[int], stop: asyncio.Event) -> None:
    """The first seated person after the host (else the host) sends ``pattern`` in a loop."""
    p = next((q for q in t.people[1:] if q.token is not None), t.people[0])
    k = 0
    while not stop.is_set():
        msg = dict(ATTACK[pattern[k % len(pattern)]])
        k += 1
        if msg["type"] == "hello":
            msg.update(token=p.token, version=p.version)
        if p.client is not None:
            with contextlib.suppress(Exception):
                await p.client.send(msg)
        await asyncio.sleep(1 / 12)


async def _fuzz(db: str, lobby: list[tuple[int, int, str, int]],
                play: list[tuple[int, int, str, bool, int]], pattern: list[int]) -> None:
    limits = RELAXED.__class__(**{**RELAXED.__dict__, "min_timer": 0.0})
    errors: list[logging.LogRecord] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                errors.append(record)

    catch = Catch()
    logging.getLogger("liverpool.web").addHandler(catch)
    try:
        async with serve(db, bot_think=THINK, buy_window=WINDOW, hand_pause=PAUSE,
                         grace=GRACE, limits=limits) as srv:
            tables = []
            for i in range(2):
                t = await srv.create([{"kind": "human"}] * 3 + [{"kind": "bot",
                                                                 "level": "basic"}],
                                     rules="arena", overrides={"hands": [1, 2]},
                                     seed=100 + i, turn_timer=TURN)
                table = Table(t["table"]["id"], t["join_secret"])
                table.people[0].token = t["token"]
                await _connect(srv, table, table.people[0])
                tables.append(table)
            for ti, who, op, seat in lobby:
                await _lobby_step(srv, tables[ti], who, op, seat)
            for t in tables:
                r = await srv.http.post(f"/api/tables/{t.tid}/start",
                                        json={"token": t.people[0].token})
                assert r.status_code == 200, r.text
            owners = [srv.app.state.registry.owners[t.tid] for t in tables]
            loop = asyncio.get_running_loop()
            seen = [(o.version, loop.time()) for o in owners]
            worst = [0.0, 0.0]
            stop = asyncio.Event()

            async def watch() -> None:
                while not stop.is_set():
                    now = loop.time()
                    for i, o in enumerate(owners):
                        if o.status != "playing":
                            continue
                        if o.version != seen[i][0]:
                            seen[i] = (o.version, now)
                        worst[i] = max(worst[i], now - seen[i][1])
                    await asyncio.sleep(0.02)

            watcher = asyncio.create_task(watch())
            attackers = [asyncio.create_task(_attack(t, pattern, stop)) for t in tables]
            rng = random.Random(len(play))
            end = loop.time() + PLAY_FOR
            k = 0
            while loop.time() < end and any(o.status == "playing" for o in owners):
                ti, who, op, on, pick = play[k % len(play)]
                k += 1
                await _play_step(srv, tables[ti], who, op, on, pick)
                await asyncio.sleep(rng.random() * 0.1)
            stop.set()
            await watcher
            await asyncio.gather(*attackers)
            for t in tables:
                for p in t.people:
                    await _drop(p)
            assert max(worst) <= BOUND, (worst, [o.version for o in owners])
            assert all(o.version > 3 for o in owners)
    finally:
        logging.getLogger("liverpool.web").removeHandler(catch)
    assert not errors, [r.getMessage() for r in errors]


@pytest.mark.timeout(300)
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lobby=st.lists(lobby_op, max_size=12), play=st.lists(play_op, min_size=20, max_size=60),
       pattern=attack)
def test_random_people_never_stop_a_table(tmp_path_factory: pytest.TempPathFactory,
                                          lobby: list[tuple[int, int, str, int]],
                                          play: list[tuple[int, int, str, bool, int]],
                                          pattern: list[int]) -> None:
    db = str(tmp_path_factory.mktemp("fuzz") / "liverpool.db")
    asyncio.run(_fuzz(db, lobby, play, pattern))
