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
from typing import Any

from liverpool.cards import card_str, parse_cards
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet
from liverpool.web.limits import Limits
from liverpool.web.table import MAX_INTENT_CHANGES

from .conftest import RELAXED, serve

# arena, 2 players, dealer seat 0: the bot (seat 1) plays first on the upcard KS, which it has no
# use for, so it draws; the person (seat 0) may ask for the KS meanwhile
PERSON = "AH 3H 5H 7H 9H 2C 4C 6C 8C 10C"
BOT = "AD 3D 5D 7D 9D 2H 4H 6H 8H 10H"


def relaxed(**changes: Any) -> Limits:
    return dataclasses.replace(RELAXED, **changes)


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
            await ann.until(lambda m: m["type"] == "update" and m["event"]["action"] == {
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


# ---- 2. removal keeps the removed player out ------------------------------------------------------
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
