"""A person at a table with bots gets a real chance to say "May I?" and time to look at a hand's
end: the bots wait through the table's buy window for the people who may still ask, a person's
"no thanks" or request lets them go on, and after a hand the table waits until the people are
ready (or the table's hand pause runs out). No test here depends on how fast the machine is: the
windows are long, and what ends them early is a message."""

from __future__ import annotations

from typing import Any

from liverpool.cards import card_str, parse_cards
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet

from .conftest import hand_end_of, serve

# arena, 2 players, dealer seat 0: the bot (seat 1) plays first on the upcard KS, which it has no
# use for (nothing near a king, no spade), so it draws; the person (seat 0) may buy the KS
PERSON = "AH 3H 5H 7H 9H 2C 4C 6C 8C 10C"
BOT = "AD 3D 5D 7D 9D 2H 4H 6H 8H 10H"


def _deals(rules: RuleSet) -> list[list[str]]:
    deck = stacked_deck(rules, 2, 0, [parse_cards(PERSON), parse_cards(BOT)],
                        parse_cards("KS")[0], parse_cards("QC JD"))
    return [[card_str(c) for c in deck]]


async def _table(srv: Any, **more: Any) -> tuple[str, str, Any]:
    rules = RuleSet.preset("arena", more.pop("overrides", {}))
    t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "basic"}],
                         rules="arena", overrides=rules.overrides_from(RuleSet.preset("arena")),
                         deals=_deals(rules), **more)
    tid, token = t["table"]["id"], t["token"]
    ann = await srv.client(tid, token)
    assert (await srv.http.post(f"/api/tables/{tid}/start",
                                json={"token": token})).status_code == 200
    return tid, token, ann


async def test_the_bot_waits_for_the_person_who_may_buy_until_they_say_no(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, _, ann = await _table(srv, buy_window=60)
        sync = await ann.until(lambda m: m["type"] == "sync" and m["view"])
        assert sync["intents"] == ["buy"] and sync["view"]["discard"] == ["KS"]
        assert sync["deadline"]["kind"] == "buy" and sync["deadline"]["seat"] == 1
        assert 0 < sync["deadline"]["ms_left"] <= 60_000
        owner = srv.app.state.registry.owners[tid]
        assert owner.people_waiting() == [0] and not owner.clocks.running("bot")
        # "no thanks": the bot goes on at once (the 60 s window would outlast the wait below)
        await ann.send({"type": "intent", "kind": "buy", "on": False})
        ups = [await ann.until(lambda m: m["type"] == "update", timeout=30) for _ in range(2)]
        # the bot drew; the person's "no thanks" is their pass in the buy round
        assert [u["action"] for u in ups] == [
            {"player": 1, "type": "draw"}, {"player": 0, "type": "pass"}]
        await ann.close()


async def test_a_person_who_says_may_i_gets_the_card_before_the_bot_draws(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        _, _, ann = await _table(srv, buy_window=60)
        await ann.until(lambda m: m["type"] == "sync" and m["view"])
        await ann.send({"type": "intent", "kind": "buy", "on": True})
        ups = [await ann.until(lambda m: m["type"] == "update", timeout=30) for _ in range(2)]
        assert [u["action"] for u in ups] == [
            {"player": 1, "type": "draw"}, {"player": 0, "type": "buy"}]
        # the bot drew the QC; the person has the KS and the JD as the penalty card
        assert ups[1]["view"]["hand_sizes"] == [12, 11]
        assert "KS" in ups[1]["view"]["hand"]
        await ann.close()


async def test_the_next_hand_waits_until_the_person_is_ready(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        # two short hands (the turn limit ends each), the person's turns played by their timer
        tid, _, ann = await _table(srv, hand_pause=120, turn_timer=0.05,
                                   overrides={"hands": [1, 2], "turn_limit": 2})
        end = await ann.until(lambda m: m["type"] == "update"
                              and hand_end_of(m) is not None, timeout=60)
        he = hand_end_of(end)
        assert he["hand_number"] == 1 and len(he["hands"]) == 2 and he["went_out"] == []
        assert he["points"] == end["view"]["scores"][0] and he["totals"] == end["view"]["totals"]
        assert all(he["hands"][s] for s in range(2))  # everyone's cards are shown
        assert end["pause"]["kind"] == "hand_end" and end["pause"]["waiting"] == [0]
        owner = srv.app.state.registry.owners[tid]
        assert owner.paused and not owner.clocks.running("bot") and not owner.clocks.running("turn")
        version = end["version"]
        await ann.send({"type": "ready"})
        resumed = await ann.until(lambda m: m["type"] in ("pause", "update"), timeout=30)
        assert resumed["type"] == "pause" and resumed["pause"] is None  # nothing moved before
        nxt = await ann.until(lambda m: m["type"] == "update", timeout=60)
        assert nxt["version"] == version + 1
        await ann.close()


async def test_a_tables_waits_are_checked(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        for field, bad in (("buy_window", 61), ("buy_window", -1), ("hand_pause", "10"),
                           ("hand_pause", 301), ("buy_window", True)):
            r = await srv.http.post("/api/tables", json={
                "nickname": "Ann", "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"}],
                "rules": "arena", field: bad})
            assert r.status_code == 400 and r.json()["field"] == field, (field, bad, r.text)
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "basic"}],
                             rules="arena", buy_window=0, hand_pause=12.5)
        assert t["table"]["buy_window"] == 0 and t["table"]["hand_pause"] == 12.5


async def test_a_reload_during_the_pause_comes_back_to_it(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, token, ann = await _table(srv, hand_pause=120, turn_timer=0.05,
                                       overrides={"hands": [1, 2], "turn_limit": 2})
        await ann.until(lambda m: m["type"] == "update" and hand_end_of(m) is not None,
                        timeout=60)
        await ann.close()  # the page reloads: its only person is gone for a moment
        owner = srv.app.state.registry.owners[tid]
        back = await srv.client(tid, token, version=-1)
        sync = await back.until(lambda m: m["type"] == "sync")
        assert owner.paused and sync["pause"]["waiting"] == [0]
        await back.send({"type": "ready"})
        assert (await back.until(lambda m: m["type"] == "pause", timeout=30))["pause"] is None
        await back.close()


async def test_the_table_page_gets_the_rules_and_the_list_stays_small(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "basic"}],
                             rules="house", overrides={"max_buys": 2}, public=True)
        full = (await srv.http.get(f"/api/tables/{t['table']['id']}")).json()
        sheet = dict((heading, lines) for heading, lines in full["rules_sheet"])
        assert sheet["This table's changes to house"] == ["Buys per hand (empty: no limit): 2"]
        assert full["knobs"]["max_buys"] == 2 and "2S" in full["wild_cards"]
        listed = (await srv.http.get("/api/tables")).json()["tables"]
        assert [x["id"] for x in listed] == [t["table"]["id"]]
        assert not {"knobs", "rules_sheet", "wild_cards"} & set(listed[0])


async def test_the_next_hands_first_clock_is_sent_when_the_pause_ends(sqlite_url: str) -> None:
    # the next hand's first window (or turn) clock starts when the pause ends, with no move to
    # carry it: the page showed the May I? bar with no countdown until something moved
    async with serve(sqlite_url) as srv:
        _, _, ann = await _table(srv, hand_pause=120, turn_timer=0.05, buy_window=60,
                                 overrides={"hands": [1, 2], "turn_limit": 2})
        while True:  # hand 1: the person passes every discard, their turns timed out
            m = await ann.recv(timeout=30)
            if m["type"] == "update" and hand_end_of(m) is not None:
                break
            if m.get("intents") == ["buy"]:
                await ann.send({"type": "intent", "kind": "buy", "on": False})
        await ann.send({"type": "ready"})
        resumed = await ann.until(lambda m: m["type"] in ("pause", "update"), timeout=30)
        assert resumed["type"] == "pause" and resumed["pause"] is None
        told = await ann.recv(timeout=10)
        assert told["type"] == "requests", told
        d = told["deadline"]
        assert d is not None and d["kind"] in ("buy", "turn") and d["ms_left"] > 0
        if d["kind"] == "buy":  # the bot opens the hand: the person may buy its upcard
            assert told["intents"] == ["buy"] and d["seat"] == 1
        else:
            assert d["seat"] == 0
        await ann.close()


async def test_a_person_back_at_a_covered_seat_is_told_what_the_bot_did(
        sqlite_url: str) -> None:
    # the page had only the log to say what the covering bot had done with the person's cards
    import asyncio

    async with serve(sqlite_url, bot_think=0.02, grace=0.05) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "human"},
                              {"kind": "bot", "level": "basic"}], nickname="Ann")
        tid = t["table"]["id"]
        bob_token = (await srv.join(tid, "Bob")).json()["token"]
        ann = await srv.client(tid, t["token"])
        bob = await srv.client(tid, bob_token)
        assert (await srv.http.post(f"/api/tables/{tid}/start",
                                    json={"token": t["token"]})).status_code == 200
        await bob.until(lambda m: m["type"] == "sync" and m["view"])
        await bob.close()
        owner = srv.app.state.registry.owners[tid]
        seat = owner.core.seating.seats[1]
        for _ in range(400):  # the bot covers Bob, and plays Bob's turns (Ann's are timed out
            # by nobody: her turn waits, so the covering bot's moves come first or not at all)
            if seat.covered and any(getattr(e, "seat", None) == 1 and e.kind == "discarded"
                                    for v, entry in owner.core.log
                                    if not isinstance(entry, str) and v > (seat.covered_at or 0)
                                    for e in entry):
                break
            if ann.messages and (m := ann.messages[-1]).get("legal"):
                hint = [x for x in m["legal"] if x["type"] in ("draw", "discard", "pass")]
                if hint:
                    await ann.send({"type": "action", "version": m["version"],
                                    "action": hint[0]})
            await asyncio.sleep(0.05)
            await ann.drain(0.01)
        else:
            raise AssertionError("the bot never played Bob's seat")
        since = seat.covered_at
        back = await srv.client(tid, bob_token)
        welcome = await back.until(lambda m: m["type"] == "welcome")
        away = welcome["away"]
        assert away["since"] == since and away["version"] >= since
        mine = [e for e in away["events"] if e.get("seat") == 1]
        assert any(e["type"] == "discarded" for e in mine), away
        assert all(e["text"].startswith("You") for e in mine), away
        # only Bob's own moves (and hands that ended) are summed up for him
        assert all(e.get("seat") == 1 or e["type"] == "hand_ended" for e in away["events"])
        # and only once: a second hello at the seat, no longer covered, says nothing of it
        again = await srv.client(tid, bob_token)
        assert "away" not in await again.until(lambda m: m["type"] == "welcome")
        for c in (ann, back, again):
            await c.close()
