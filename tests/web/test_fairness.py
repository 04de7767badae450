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
