"""No player can spoil another's game (docs/security.md, "Fairness between people"): nothing one
client may do within its limits stops or starves another's table. One test per way it was
tried: a request for the discard flipped on and off to hold the bots, a removed player joining
again, tables that were never connected to filling the server, concurrent creates over a cap,
one client's bots taking the workers from another's table.

Domain words: *window* (the time people have to ask for a discard; its deadline is set once),
*flip* (an intent asked, then withdrawn), *idle table* (waiting to start with no seated person
connected), *lane* (the bots' light and heavy workers), *share* (each client with work waiting
is served in turn).
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from liverpool.bots.expert import ExpertBot
from liverpool.cards import card_str, parse_cards
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet
from liverpool.web.botpool import MIN_CAP_MS, BotPools, Lane
from liverpool.web.limits import Limits
from liverpool.web.tableconn import MAX_INTENT_CHANGES

from .conftest import serve
from .test_security import relaxed, until

# arena, 2 players, dealer seat 0: the bot (seat 1) plays first on the upcard KS, which it has no
# use for, so it draws; the person (seat 0) may ask for the KS meanwhile
PERSON = "AH 3H 5H 7H 9H 2C 4C 6C 8C 10C"
BOT = "AD 3D 5D 7D 9D 2H 4H 6H 8H 10H"


async def _person_and_bot(srv: Any, **more: Any) -> tuple[str, Any]:
    rules = RuleSet.preset("arena")
    deck = stacked_deck(rules, 2, 0, [parse_cards(PERSON), parse_cards(BOT)],
                        parse_cards("KS")[0], parse_cards("QC JD"))
    t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "basic"}],
                         rules="arena", deals=[[card_str(c) for c in deck]], **more)
    tid, token = t["table"]["id"], t["token"]
    ann = await srv.client(tid, token)
    assert (await srv.http.post(f"/api/tables/{tid}/start",
                                json={"token": token})).status_code == 200
    return tid, ann


# ---- 1. the window's clock ----------------------------------------------------------------------
async def test_flipping_a_request_never_holds_the_bots_past_the_window(sqlite_url: str) -> None:
    """The person toggles "May I?" twelve times a second: the window still ends at the deadline
    it was given when it opened, the bot moves then, and past MAX_INTENT_CHANGES the flips are
    refused."""
    async with serve(sqlite_url, bot_think=0.3) as srv:
        _, ann = await _person_and_bot(srv, buy_window=2)
        sync = await ann.until(lambda m: m["type"] == "sync" and m["view"])
        loop = asyncio.get_running_loop()
        opened = loop.time()
        first_ms = sync["deadline"]["ms_left"]
        assert sync["deadline"]["kind"] == "buy" and 0 < first_ms <= 2000

        async def flip() -> None:
            on = True
            while True:
                await ann.send({"type": "intent", "kind": "buy", "on": on})
                on = not on
                await asyncio.sleep(1 / 12)

        flipping = asyncio.create_task(flip())
        drew_at = None
        try:
            await ann.until(lambda m: m["type"] == "update" and m["action"] == {
                "player": 1, "type": "draw"}, timeout=8)
            drew_at = loop.time()
        except TimeoutError:
            pass
        finally:
            flipping.cancel()
        assert drew_at is not None, "the bot never moved while the person flipped"
        # the window's 2 s, the bot's think time, and room for a busy machine
        assert drew_at - opened < 2 + 0.3 + 1.5
        got = ann.messages
        refused = [m for m in got if m["type"] == "error" and m["code"] == "too_many_changes"]
        assert refused, "flips past the bound were taken"
        changes = [m for m in got if m["type"] == "requests"]
        assert len(changes) <= MAX_INTENT_CHANGES + 2  # + the window's close, + the round's end
        # the clock told to the table never runs backwards while the window is open
        lefts = [m["deadline"]["ms_left"] for m in changes
                 if m.get("deadline") and m["deadline"]["kind"] == "buy"]
        assert all(b <= a + 50 for a, b in zip([first_ms, *lefts], lefts, strict=False))
        await ann.close()


# ---- 2. removal keeps the removed player out ----------------------------------------------------
async def _join(srv: Any, tid: str, name: str, secret: str | None,
                address: str = "198.51.100.20") -> Any:
    return await srv.http.post(f"/api/tables/{tid}/join",
                               json={"nickname": name, "secret": secret},
                               headers={"x-forwarded-for": address})


async def test_a_removed_player_cannot_join_a_private_table_again(sqlite_url: str) -> None:
    """The join secret the removed player's own welcome carried opens nothing: the link
    changes, the players still seated are sent the new one, and a restart keeps it."""
    async with serve(sqlite_url) as srv:
        t = await srv.create([{"kind": "human"}] * 3)
        tid, host, old = t["table"]["id"], t["token"], t["join_secret"]
        r = await _join(srv, tid, "Bob", old)
        assert r.status_code == 200, r.text
        bob = r.json()["token"]
        ws_bob, ws_host = await srv.client(tid, bob), await srv.client(tid, host)
        welcome = await ws_bob.until(lambda m: m["type"] == "welcome")
        assert welcome["join_secret"] == old
        await ws_host.until(lambda m: m["type"] == "welcome")
        r = await srv.http.post(f"/api/tables/{tid}/remove", json={"token": host, "seat": 1})
        assert r.status_code == 200, r.text
        share = await ws_host.until(lambda m: m["type"] == "share")
        new = share["join_secret"]
        assert new and new != old and share["share_url"].endswith(f"/t/{tid}#join={new}")
        # the removed player, from their own address or any other, with the old secret
        for address in ("198.51.100.20", "203.0.113.5"):
            r = await _join(srv, tid, "Bob", old, address)
            assert r.status_code == 403 and r.json()["error"] == "bad_secret", r.text
        assert (await _join(srv, tid, "Dee", new, "203.0.113.5")).status_code == 200
        # a player who leaves on their own may come back with the link they have
        cy = (await _join(srv, tid, "Cy", new, "203.0.113.6")).json()["token"]
        r = await srv.http.post(f"/api/tables/{tid}/remove", json={"token": cy, "seat": 2})
        assert r.status_code == 200, r.text
        assert (await _join(srv, tid, "Cy", new, "203.0.113.6")).status_code == 200
        await ws_bob.close()
        await ws_host.close()
    async with serve(sqlite_url) as srv:  # rebuilt from the store: the new link holds
        assert (await _join(srv, tid, "Bob", old)).status_code == 403
        owner = srv.app.state.registry.owners[tid]
        assert owner.join_secret == new


async def test_a_removed_player_cannot_join_a_public_table_again(sqlite_url: str) -> None:
    """Anybody may join a public table, so its host's removal is kept by the address the
    removed player joined from (a mark of it: no address is stored)."""
    async with serve(sqlite_url) as srv:
        t = await srv.create([{"kind": "human"}] * 3, public=True)
        tid, host = t["table"]["id"], t["token"]
        r = await _join(srv, tid, "Bob", None, "198.51.100.20")
        assert r.status_code == 200, r.text
        r = await srv.http.post(f"/api/tables/{tid}/remove", json={"token": host, "seat": 1})
        assert r.status_code == 200, r.text
        r = await _join(srv, tid, "Bob", None, "198.51.100.20")
        assert r.status_code == 403 and r.json()["error"] == "removed", r.text
        assert (await _join(srv, tid, "Dee", None, "203.0.113.5")).status_code == 200
        stored = await srv.app.state.store.load(tid)
        assert "198.51.100.20" not in repr([e.data for e in stored.events])
    async with serve(sqlite_url) as srv:
        r = await _join(srv, tid, "Bob", None, "198.51.100.20")
        assert r.status_code == 403 and r.json()["error"] == "removed", r.text


# ---- 3. capacity: many addresses within their caps cannot lock out a new client ---------------
async def _create(srv: Any, address: str, **more: Any) -> Any:
    return await srv.http.post("/api/tables", json={"nickname": "Ann",
                                                    "seats": [{"kind": "human"}] * 3, **more},
                               headers={"x-forwarded-for": address})


async def _status(srv: Any, tid: str) -> str:
    return str((await srv.http.get(f"/api/tables/{tid}")).json()["status"])


async def test_tables_nobody_sits_at_expire_in_minutes(sqlite_url: str) -> None:
    """A table waiting to start that no seated person was ever connected to, or is no longer,
    expires after ``idle_table_ttl``; one with its host at it does not."""
    async with serve(sqlite_url, limits=relaxed(idle_table_ttl=0.5)) as srv:
        never = (await srv.create([{"kind": "human"}] * 3))["table"]["id"]
        kept = await srv.create([{"kind": "human"}] * 3)
        host = await srv.client(kept["table"]["id"], kept["token"])
        await host.until(lambda m: m["type"] == "welcome")
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while await _status(srv, never) != "expired":
            assert loop.time() < end, "the table nobody sat at did not expire"
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # two idle times: the host is still there
        assert await _status(srv, kept["table"]["id"]) == "open"
        await host.close()  # the host leaves: the table is idle from now on
        end = loop.time() + 20
        while await _status(srv, kept["table"]["id"]) != "expired":
            assert loop.time() < end, "the table its host left did not expire"
            await asyncio.sleep(0.05)


async def test_a_clients_waiting_tables_count_apart_from_its_games(sqlite_url: str) -> None:
    async with serve(sqlite_url, limits=relaxed(waiting_tables_per_client=2,
                                                open_tables_per_client=3)) as srv:
        made = [await _create(srv, "198.51.100.7") for _ in range(2)]
        assert all(r.status_code == 201 for r in made)
        r = await _create(srv, "198.51.100.7")
        assert r.status_code == 429 and "waiting" in r.json()["message"], r.text
        for t in (m.json() for m in made):  # started: no longer waiting, still unfinished
            r = await srv.http.post(f"/api/tables/{t['table']['id']}/start",
                                    json={"token": t["token"]})
            assert r.status_code == 200, r.text
        assert (await _create(srv, "198.51.100.7")).status_code == 201
        r = await _create(srv, "198.51.100.7")  # 1 waiting, but 3 unfinished: the other cap
        assert r.status_code == 429 and "playing" in r.json()["message"], r.text
        assert (await _create(srv, "198.51.100.8")).status_code == 201


async def test_a_networks_tables_are_capped(sqlite_url: str) -> None:
    """Addresses of one IPv4 /24 or one IPv6 /48 share ``tables_per_network``: a hundred
    addresses of one network, each within its own caps, cannot fill the server."""
    async with serve(sqlite_url, limits=relaxed(tables_per_network=4,
                                                waiting_tables_per_client=3)) as srv:
        made = [await _create(srv, f"198.51.100.{i}") for i in range(1, 8)]
        assert [r.status_code for r in made] == [201] * 4 + [429] * 3
        assert "network" in made[-1].json()["message"]
        assert (await _create(srv, "198.51.101.1")).status_code == 201
        made = [await _create(srv, f"2001:db8:7:{i:x}::1") for i in range(1, 7)]
        assert [r.status_code for r in made] == [201] * 4 + [429] * 2
        assert (await _create(srv, "2001:db8:8::1")).status_code == 201


async def test_creates_at_the_same_moment_cannot_pass_a_cap(sqlite_url: str) -> None:
    """A create's place is counted before its first await: twenty creates at once from one
    address make its cap of tables, and twenty from twenty networks the server's."""
    async with serve(sqlite_url, limits=relaxed(waiting_tables_per_client=2)) as srv:
        answers = await asyncio.gather(*(_create(srv, "198.51.100.9") for _ in range(20)))
        assert sorted(r.status_code for r in answers) == [201] * 2 + [429] * 18
    async with serve(sqlite_url.replace(".db", "-2.db"), limits=relaxed(open_tables=5)) as srv:
        answers = await asyncio.gather(*(_create(srv, f"203.0.{i}.1") for i in range(20)))
        assert sorted(r.status_code for r in answers) == [201] * 5 + [503] * 15
        assert srv.app.state.registry.capacity.waiting() == 5


async def test_an_idle_table_gives_its_place_to_a_new_client(
        sqlite_url: str, monkeypatch: Any) -> None:
    """When every waiting place is taken, the table nobody has sat at for longest expires so
    that a new client may create one; tables with a person at them never do."""
    from liverpool.web import capacity
    monkeypatch.setattr(capacity, "YIELD_AFTER", 0.3)
    async with serve(sqlite_url, limits=relaxed(open_tables=3)) as srv:
        idle = (await _create(srv, "198.51.100.1")).json()["table"]["id"]
        await asyncio.sleep(0.05)
        seated = []
        for address in ("198.51.100.2", "198.51.100.3"):
            t = (await _create(srv, address)).json()
            c = await srv.client(t["table"]["id"], t["token"])
            await c.until(lambda m: m["type"] == "welcome")
            seated.append((t["table"]["id"], c))
        r = await _create(srv, "203.0.113.1")  # nobody idle long enough yet
        assert r.status_code == 503 and r.json()["error"] == "busy", r.text
        await asyncio.sleep(0.4)
        assert (await _create(srv, "203.0.113.1")).status_code == 201
        assert await _status(srv, idle) == "expired"
        assert all([await _status(srv, tid) == "open" for tid, _ in seated])
        r = await _create(srv, "203.0.113.2")  # the others have people at them
        assert r.status_code == 503, r.text
        for _, c in seated:
            await c.close()


# ---- 4. bots: shared by turns and lanes ---------------------------------------------------------
def _job(tag: str, order: list[str], gate: threading.Event) -> Callable[[], str]:
    def run() -> str:
        gate.wait(10)  # only a guard: the test opens it
        order.append(tag)
        return tag
    return run


async def test_a_lane_serves_the_clients_in_turn() -> None:
    """A client's queue of jobs never stands before another client's job: after each job, every
    other client with work waiting is served once."""
    lane = Lane("test", 1)
    gate, order = threading.Event(), []
    try:
        first = asyncio.create_task(lane.run("A", _job("A0", order, gate)))
        await asyncio.sleep(0.05)  # A0 holds the only worker
        rest = [asyncio.create_task(lane.run("A", _job(f"A{i}", order, gate)))
                for i in range(1, 5)]
        rest += [asyncio.create_task(lane.run(c, _job(f"{c}1", order, gate))) for c in "BC"]
        await asyncio.sleep(0.05)
        assert lane.running == 1 and lane.waiting == 6
        gate.set()
        got = await asyncio.gather(first, *rest)
        assert got == ["A0", "A1", "A2", "A3", "A4", "B1", "C1"]
        assert order == ["A0", "A1", "B1", "C1", "A2", "A3", "A4"]
        assert lane.busy() == 0
    finally:
        gate.set()
        lane.shutdown()


async def test_a_job_whose_table_stopped_waiting_is_not_run() -> None:
    lane = Lane("test", 1)
    gate, order = threading.Event(), []
    try:
        first = asyncio.create_task(lane.run("A", _job("A0", order, gate)))
        await asyncio.sleep(0.05)
        gone = asyncio.create_task(lane.run("B", _job("B0", order, gate)))
        await asyncio.sleep(0.05)
        gone.cancel()
        gate.set()
        assert await first == "A0"
        assert await lane.run("C", _job("C0", order, gate)) == "C0"
        assert order == ["A0", "C0"]
    finally:
        gate.set()
        lane.shutdown()


async def test_expert_searches_share_what_the_heavy_workers_can_give() -> None:
    """The more heavy work waits, the shorter each expert search may think (never under
    MIN_CAP_MS), so that a table's wait stays near ``expert_max_ms``."""
    pools = BotPools(2, 2000)
    gate, order = threading.Event(), []
    try:
        assert pools.cap_ms() == 2000
        jobs = [asyncio.create_task(pools.heavy.run(f"c{i}", _job(str(i), order, gate)))
                for i in range(5)]
        await asyncio.sleep(0.05)
        assert pools.heavy.busy() == 5 and pools.cap_ms() == 2000 * 2 / 5
        more = [asyncio.create_task(pools.heavy.run("x", _job("x", order, gate)))
                for _ in range(100)]
        await asyncio.sleep(0.05)
        assert pools.cap_ms() == MIN_CAP_MS
        # an expert bot is given the cap of the moment its search starts
        bot = ExpertBot(millis=2000)
        gate.set()
        await asyncio.gather(*jobs, *more)
        assert await pools.think("c", bot, lambda: bot.cap_ms) == 2000
    finally:
        gate.set()
        pools.shutdown()


async def test_one_clients_searching_bots_never_hold_another_clients_table(
        sqlite_url: str, monkeypatch: Any) -> None:
    """One address's tables of experts hold every heavy worker (their searches here wait for
    the test): another address's table of basic bots plays on, in the light lane, and its
    expert's turn comes after at most one search of the first address."""
    gate = threading.Event()
    started: list[str] = []
    real = ExpertBot.choose

    def held(self: ExpertBot, *args: Any) -> Any:
        started.append(threading.current_thread().name)
        gate.wait(30)  # only a guard: the test opens it
        return real(self, *args)

    monkeypatch.setattr(ExpertBot, "choose", held)
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "expert:2it"}] * 3
    async with serve(sqlite_url, limits=relaxed(bot_workers=2)) as srv:
        try:
            for _ in range(3):
                t = (await _create(srv, "198.51.100.1", seats=seats, turn_timer=0.01)).json()
                r = await srv.http.post(f"/api/tables/{t['table']['id']}/start",
                                        json={"token": t["token"]})
                assert r.status_code == 200, r.text
            pools = srv.app.state.registry.settings.bots()
            await until(lambda: pools.heavy.running == 2, "the heavy workers taken")
            mine = (await _create(srv, "203.0.113.9", turn_timer=0.01,
                                  seats=[{"kind": "human"}] + [{"kind": "bot",
                                                                "level": "basic"}] * 3)).json()
            tid = mine["table"]["id"]
            r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": mine["token"]})
            assert r.status_code == 200, r.text
            owner = srv.app.state.registry.owners[tid]
            at = owner.version
            await until(lambda: owner.version >= at + 20, "the basic table's moves", 30)
            assert pools.heavy.running == 2 and len(started) == 2
            assert all(name.startswith("liverpool-bots-heavy") for name in started)
        finally:
            gate.set()


def test_every_limit_is_documented() -> None:
    """docs/security.md names every limit a server applies (``Limits``), with its default."""
    doc = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    missing = [f.name for f in dataclasses.fields(Limits) if f"`{f.name}`" not in doc]
    assert not missing, missing


async def test_a_game_nobody_watches_sleeps_and_gives_its_place(sqlite_url: str) -> None:
    """A game nobody has been connected to for ``idle_table_ttl`` stops (no bot moves, no
    clock) and leaves its place among the games in play; the first connection wakes it."""
    async with serve(sqlite_url, bot_think=0.05, grace=0.1,
                     limits=relaxed(idle_table_ttl=0.5, playing_tables=1)) as srv:
        t = await srv.create([{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2,
                             turn_timer=0.2)
        tid = t["table"]["id"]
        host = await srv.client(tid, t["token"])
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        assert r.status_code == 200, r.text
        owner = srv.app.state.registry.owners[tid]
        other = await srv.create([{"kind": "human"}] * 3)
        other_start = {"token": other["token"]}
        other_host = await srv.client(other["table"]["id"], other["token"])  # kept waiting
        r = await srv.http.post(f"/api/tables/{other['table']['id']}/start", json=other_start)
        assert r.status_code == 503 and r.json()["error"] == "busy", r.text
        await host.close()  # nobody watches from now on
        await until(lambda: owner.asleep, "the unwatched game's sleep", 20)
        at = owner.version
        await asyncio.sleep(1.0)  # bots think 0.05 s, the turn timer is 0.2 s: nothing moves
        assert owner.version == at and owner.status == "playing"
        r = await srv.http.post(f"/api/tables/{other['table']['id']}/start", json=other_start)
        assert r.status_code == 200, r.text
        watcher = await srv.client(tid, None)  # a spectator wakes it
        await until(lambda: owner.version > at + 3 or owner.status == "over",
                    "the game going on", 20)
        assert not owner.asleep
        await watcher.close()
        await other_host.close()


async def test_a_networks_websockets_are_capped(sqlite_url: str) -> None:
    """Addresses of one network share ``sockets_per_network``: one subscriber's /48 holds
    thousands of /64s, each within ``sockets_per_client``."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async with serve(sqlite_url, limits=relaxed(sockets_per_network=3,
                                                sockets_per_client=10)) as srv:
        tid = (await srv.create([{"kind": "human"}] * 3))["table"]["id"]

        async def socket(address: str) -> Any:
            return await connect(f"{srv.ws_base}/ws/{tid}",
                                 additional_headers={"x-forwarded-for": address})

        held = [await socket(f"2001:db8:5:{i:x}::1") for i in range(1, 4)]
        with pytest.raises(InvalidStatus):
            await socket("2001:db8:5:99::1")  # a fourth /64 of the same /48
        held.append(await socket("2001:db8:6::1"))  # another network
        await held[0].close()
        await until(lambda: srv.app.state.registry.network_sockets.get("2001:db8:5::/48", 0)
                    < 3, "the server counting the closed socket")
        held.append(await socket("2001:db8:5:99::1"))
        for ws in held:
            await ws.close()


async def test_a_clients_tables_count_after_a_restart(sqlite_url: str) -> None:
    """A table keeps its creator's mark (no address is stored): after a restart its place
    still counts against its creator's caps, and its bots still take their creator's turn."""
    async with serve(sqlite_url, limits=relaxed(waiting_tables_per_client=2)) as srv:
        for _ in range(2):
            assert (await _create(srv, "198.51.100.7")).status_code == 201
        stored = [await srv.app.state.store.load(t) for t in srv.app.state.registry.owners]
        assert all("198.51.100.7" not in repr(s.events) for s in stored if s is not None)
    async with serve(sqlite_url, limits=relaxed(waiting_tables_per_client=2)) as srv:
        r = await _create(srv, "198.51.100.7")
        assert r.status_code == 429 and r.json()["error"] == "too_many_tables", r.text
        assert (await _create(srv, "198.51.100.8")).status_code == 201
        creators = {o.creator for o in srv.app.state.registry.owners.values()}
        assert len(creators) == 2 and None not in creators


async def test_the_lock_changes_hands_more_often_only_while_searches_run() -> None:
    """While the heavy lane runs, a thread holding the interpreter lock is asked to let the
    others run every SEARCH_SWITCH_INTERVAL; otherwise Python's interval stands."""
    import sys

    from liverpool.web.botpool import SEARCH_SWITCH_INTERVAL
    before = sys.getswitchinterval()
    pools = BotPools(2, 2000)
    gate, order = threading.Event(), []
    seen: list[float] = []
    try:
        job = asyncio.create_task(pools.heavy.run("c", _job("x", order, gate)))
        await asyncio.sleep(0.05)
        seen.append(sys.getswitchinterval())
        assert await pools.light.run("d", sys.getswitchinterval) == SEARCH_SWITCH_INTERVAL
        gate.set()
        await job
        await asyncio.sleep(0.01)
        assert seen == [SEARCH_SWITCH_INTERVAL] and sys.getswitchinterval() == before
    finally:
        gate.set()
        pools.shutdown()
        sys.setswitchinterval(before)
