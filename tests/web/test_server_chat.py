"""The table chat over the websocket (liverpool.web.tablechat): who a line is from, what text
is kept, the limits a flood meets, the host's settings, who is watching, and the lines kept
with the table (after a restart, in the replay).

Domain words: *line* (one ``chat`` message as broadcast: ``n``, ``version``, ``from``, and
``text`` or ``reaction``), *speaker* (``from``: the server's, never the sender's), *attack
classes* (flooding, huge or odd text, another seat's name: the probes of tests/web/test_fuzz.py
applied to the chat).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosedError

from liverpool.web.leases import make_store
from liverpool.web.store import StoredEvent, StoredTable
from liverpool.web.tablechat import Allowances, clean_chat
from liverpool.web.tablelog import incidents_of

from .conftest import Client, Served, serve
from .test_server_players import new_player

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}]


def said(c: Client) -> list[dict[str, Any]]:
    """The chat lines a client has read so far."""
    return [m for m in c.messages if m["type"] == "chat"]


async def heard(c: Client) -> list[dict[str, Any]]:
    """Every chat line a client has received, once nothing more comes."""
    await c.drain(0.3)
    return said(c)


async def lobby_of_two(srv: Served) -> tuple[str, Client, Client, dict[str, Any]]:
    """A table waiting to start: Ann (the host, seat 0) and Bob (seat 1), both connected."""
    t = await srv.create(SEATS, "Ann")
    tid = t["table"]["id"]
    bob = (await srv.join(tid, "Bob")).json()
    ann = await srv.client(tid, t["token"])
    welcome = await ann.until(lambda m: m["type"] == "welcome")
    b = await srv.client(tid, bob["token"])
    await b.until(lambda m: m["type"] == "welcome")
    return tid, ann, b, welcome


async def watcher(srv: Served, tid: str, key: str | None = None) -> Client:
    c = await srv.client(tid, None, hello=False)
    await c.send({"type": "hello", "token": None, "player_key": key, "version": -1})
    await c.until(lambda m: m["type"] == "welcome")
    return c


@pytest.mark.asyncio
async def test_a_line_is_from_the_connections_seat_never_from_the_message(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, welcome = await lobby_of_two(srv)
        chat = welcome["chat"]
        assert chat["on"] is True and chat["spectators"] is False and chat["lines"] == []
        assert chat["me"] == "s0" and "gg" in chat["reactions"]
        # Ann's message names Bob's seat and name every way it could: the server ignores it
        await ann.send({"type": "chat", "text": "I fold", "seat": 1, "player": 1, "name": "Bob",
                        "from": {"id": "s1", "seat": 1, "name": "Bob"}})
        line = await bob.until(lambda m: m["type"] == "chat")
        assert line["from"] == {"id": "s0", "seat": 0, "name": "Ann"}
        assert line["text"] == "I fold" and line["n"] == 1 and line["version"] == 1
        mine = await ann.until(lambda m: m["type"] == "chat")  # the speaker sees it too
        assert mine == line
        await bob.send({"type": "react", "reaction": "gg"})
        react = await ann.until(lambda m: m["type"] == "chat")
        assert react["from"]["seat"] == 1 and react["reaction"] == "gg" and react["n"] == 2
        for bad, code in (({"type": "react", "reaction": "<b>x</b>"}, "bad_message"),
                          ({"type": "react", "reaction": ["gg"]}, "bad_message"),
                          ({"type": "chat", "text": 12}, "bad_message"),
                          ({"type": "chat"}, "bad_message"),
                          ({"type": "chat_settings", "chat": 1, "spectators": False},
                           "bad_message")):
            await bob.send(bad)
            err = await bob.until(lambda m: m["type"] == "error")
            assert err["code"] == code, (bad, err)
        # a socket that said no hello says nothing
        mute = await srv.client(tid, None, hello=False)
        await mute.send({"type": "chat", "text": "hello?"})
        assert (await mute.until(lambda m: m["type"] == "error"))["code"] == "no_hello"
        assert len(await heard(ann)) == 2
        for c in (ann, bob, mute):
            await c.close()


@pytest.mark.asyncio
async def test_a_flood_is_refused_with_a_code_and_never_reaches_the_others(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        _, ann, bob, _ = await lobby_of_two(srv)
        for i in range(12):
            await ann.send({"type": "chat", "text": f"spam {i}"})
        errors = [await ann.until(lambda m: m["type"] == "error") for _ in range(7)]
        assert {e["code"] for e in errors} == {"chat_rate"}
        assert "at most 5 at once" in errors[0]["message"]
        got = [m["text"] for m in await heard(bob)]
        assert got == [f"spam {i}" for i in range(5)]
        assert [m["text"] for m in await heard(ann)] == got
        await ann.close()
        await bob.close()


@pytest.mark.asyncio
async def test_a_seats_second_socket_shares_its_allowance(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        t = await srv.create(SEATS, "Ann")
        tid = t["table"]["id"]
        one = await srv.client(tid, t["token"])
        two = await srv.client(tid, t["token"])
        for c in (one, two):
            await c.until(lambda m: m["type"] == "welcome")
        for i in range(3):
            await one.send({"type": "chat", "text": f"a{i}"})
            await two.send({"type": "chat", "text": f"b{i}"})
        err = await two.until(lambda m: m["type"] == "error")
        assert err["code"] == "chat_rate"
        assert len(await heard(one)) == 5
        await one.close()
        await two.close()


@pytest.mark.asyncio
async def test_huge_and_odd_text(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, _ = await lobby_of_two(srv)
        for text in ("x" * 201, "y" * 20_000, "   ", "\u202e\u2066\u200b\ufeff\x00\x1b"):
            await ann.send({"type": "chat", "text": text})
            err = await ann.until(lambda m: m["type"] == "error")
            assert err["code"] == "bad_chat", err
        assert "at most 200 characters" in err["message"] or "needs some text" in err["message"]
        # odd text, written as any client may (lone surrogates escaped): cleaned, not refused
        raw = ('{"type":"chat","text":"\\ud800a\\u202eb\\u202c\\u0000c\\n\\td\\u200be '
               '\\ud83c\\udca1\\ud83d\\udc4d\\ud83c\\udffd \\ud83d\\udc68\\u200d\\ud83d\\udc69'
               '\\u200d\\ud83d\\udc67 \\udfff"}')
        await bob.send(raw)
        line = await ann.until(lambda m: m["type"] == "chat")
        assert line["text"] == "abc de 🂡👍🏽 👨‍👩‍👧"
        await bob.send({"type": "chat", "text": "x" * 200})  # exactly the limit
        assert (await ann.until(lambda m: m["type"] == "chat"))["text"] == "x" * 200
        # a frame past the socket's limit (64 KiB) closes it before it is read as JSON
        big = await srv.client(tid, None)
        await big.send(json.dumps({"type": "chat", "text": "z" * 70_000}))
        with pytest.raises(ConnectionClosedError) as closed:
            await big.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert len(await heard(bob)) == 2
        await ann.close()
        await bob.close()


def test_clean_chat_drops_what_reads_otherwise_than_it_shows() -> None:
    assert clean_chat("  a \x07b\r\n\u2028c  ", 200) == "a b c"
    assert clean_chat("\u202ereversed\u202c \u2067iso\u2069", 200) == "reversed iso"
    assert clean_chat("\u200dzero\u200b\u2060width\u200d", 200) == "zerowidth"
    assert clean_chat("tag\U000e0041\U000e0042s", 200) == "tags"  # invisible tag letters
    assert clean_chat("private\ue000use", 200) == "privateuse"
    assert clean_chat("e\u0301", 200) == "\u00e9"  # NFC
    zalgo = "a" + "\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307" * 20 + "b"
    assert clean_chat(zalgo, 200) == "\u00e0\u0301\u0302\u0303\u0304b"  # (à: NFC)
    assert clean_chat("❤\ufe0f 🇫🇷", 200) == "❤\ufe0f 🇫🇷"  # variation selector, flag
    for empty in ("", " \t\n", "\u200b\u202e", "\u200d"):
        with pytest.raises(ValueError, match="needs some text"):
            clean_chat(empty, 200)
    with pytest.raises(ValueError, match="at most 3 characters"):
        clean_chat("abcd", 3)
    assert clean_chat("ab\u200b\u200bcd", 4) == "abcd"  # counted once cleaned


def test_an_allowance_is_a_burst_then_one_every_few_seconds() -> None:
    now = [0.0]
    a = Allowances(5, 2.0, clock=lambda: now[0])
    keys = ("socket", "seat")
    for _ in range(5):
        assert a.wait(keys) == 0
        a.take(keys)
    assert a.wait(keys) == pytest.approx(2.0)
    now[0] = 1.0
    assert a.wait(keys) == pytest.approx(1.0)
    now[0] = 2.0
    assert a.wait(keys) == 0
    a.take(keys)
    assert a.wait(keys) > 0
    assert a.wait(("another socket", "seat")) > 0  # the seat's allowance is spent
    assert a.wait(("another socket", "another seat")) == 0
    now[0] = 100.0
    for _ in range(5):  # the burst is back, not more
        a.take(keys)
    assert a.wait(keys) > 0


@pytest.mark.asyncio
async def test_only_the_host_sets_the_chat_and_spectators_speak_when_allowed(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, _ = await lobby_of_two(srv)
        spy = await watcher(srv, tid)
        await spy.send({"type": "chat", "text": "hi from the rail"})
        assert (await spy.until(lambda m: m["type"] == "error"))["code"] == "chat_spectators"
        for who in (bob, spy):
            await who.send({"type": "chat_settings", "chat": False, "spectators": True})
            err = await who.until(lambda m: m["type"] == "error")
            assert err["code"] == "not_host" and "host" in err["message"]
        await ann.send({"type": "chat_settings", "chat": True, "spectators": True})
        for c in (ann, bob, spy):
            got = await c.until(lambda m: m["type"] == "chat_settings")
            assert got == {"type": "chat_settings", "chat": True, "spectators": True}
        await spy.send({"type": "chat", "text": "hi from the rail"})
        line = await bob.until(lambda m: m["type"] == "chat")
        assert line["from"]["seat"] is None and line["from"]["name"] == "guest 1"
        assert line["from"]["id"].startswith("g")
        await ann.send({"type": "chat_settings", "chat": False, "spectators": True})
        await bob.until(lambda m: m["type"] == "chat_settings" and m["chat"] is False)
        for c in (ann, bob, spy):
            await c.send({"type": "chat", "text": "anyone?"})
            assert (await c.until(lambda m: m["type"] == "error"))["code"] == "chat_off"
            await c.send({"type": "react", "reaction": "wow"})
            assert (await c.until(lambda m: m["type"] == "error"))["code"] == "chat_off"
        assert len(await heard(ann)) == 1
        for c in (ann, bob, spy):
            await c.close()


@pytest.mark.asyncio
async def test_a_keyed_spectator_speaks_by_their_players_name(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, _ = await lobby_of_two(srv)
        cy = await new_player(srv, "Ann")  # a player named like a seated person
        await ann.send({"type": "chat_settings", "chat": True, "spectators": True})
        await ann.until(lambda m: m["type"] == "chat_settings")
        spy = await watcher(srv, tid, cy["key"])
        await spy.send({"type": "chat", "text": "I am Ann"})
        line = await bob.until(lambda m: m["type"] == "chat")
        assert line["from"]["name"] == "spectator Ann" and line["from"]["seat"] is None
        assert line["from"]["id"].startswith("w") and cy["id"] not in line["from"]["id"]
        for c in (ann, bob, spy):
            await c.close()


@pytest.mark.asyncio
async def test_everyone_is_told_who_watches_at_most_once_a_second(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, _ = await lobby_of_two(srv)
        cy = await new_player(srv, "Cy")
        keyed = await watcher(srv, tid, cy["key"])
        told = await ann.until(lambda m: m["type"] == "watchers")
        assert told == {"type": "watchers", "count": 1, "names": ["Cy"]}
        # guests come and go in a burst: one message says how it ended
        guests = [await watcher(srv, tid) for _ in range(6)]
        for g in guests[:5]:
            await g.close()
        last = await ann.until(lambda m: m["type"] == "watchers" and m["count"] == 2, 5)
        assert last["names"] == ["Cy", "guest"]  # (a guest counted once per address)
        await ann.drain(1.3)
        assert sum(m["type"] == "watchers" for m in ann.messages) <= 3  # for 12 changes
        welcome = (await watcher(srv, tid, cy["key"])).messages[0]
        assert welcome["chat"]["watchers"] == {"count": 2, "names": ["Cy", "guest"]}
        for c in (ann, bob, keyed, guests[5]):
            await c.close()


@pytest.mark.asyncio
async def test_the_chat_is_kept_with_the_table_across_a_restart(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, ann, bob, _ = await lobby_of_two(srv)
        t = ann.messages[0]
        await ann.send({"type": "chat", "text": "see you after the restart"})
        await bob.send({"type": "react", "reaction": "thanks"})
        await ann.send({"type": "chat_settings", "chat": True, "spectators": True})
        await bob.until(lambda m: m["type"] == "chat_settings")
        lines = await heard(bob)
        assert len(lines) == 2
        await ann.close()
        await bob.close()
    async with serve(sqlite_url) as srv:
        spy = await watcher(srv, tid)
        welcome = spy.messages[0]
        assert welcome["table"]["id"] == t["table"]["id"]
        chat = welcome["chat"]
        assert [{k: v for k, v in m.items() if k != "type"} for m in lines] == chat["lines"]
        assert chat["spectators"] is True
        assert welcome["table"]["incidents"] == 0  # chat notes are no bot's incident
        await spy.send({"type": "chat", "text": "numbered on"})
        assert (await spy.until(lambda m: m["type"] == "chat"))["n"] == 3
        await spy.close()


def test_chat_notes_are_not_incidents() -> None:
    notes = [{"presence": "covered", "seat": 1},
             {"chat": {"n": 1, "version": 3, "from": {"id": "s0", "seat": 0, "name": "A"},
                       "text": "hi"}},
             {"chat_settings": {"chat": False, "spectators": False}},
             {"seat": 2, "bot": "cmd", "kind": "timeout", "message": "slow"}]
    assert incidents_of(notes) == [notes[-1]]


@pytest.mark.asyncio
async def test_a_tables_stored_lines_are_bounded(db_url: str) -> None:
    store = make_store(db_url)
    await store.open()
    try:
        await store.create_table(StoredTable("t1", 0.0, "open", {}, [
            StoredEvent(0, "create", {})]))
        await store.add_note("t1", {"presence": "covered", "seat": 0})
        for n in range(1, 131):
            await store.add_note("t1", {"chat": {"n": n, "version": 0, "text": f"{n}"}})
        await store.add_note("t1", {"chat_settings": {"chat": True, "spectators": True}})
        await store.prune_chat("t1", 50)
        stored = await store.load("t1")
        assert stored is not None
        kept = [n["chat"]["n"] for n in stored.notes if "chat" in n]
        assert kept == list(range(81, 131))
        assert {"presence": "covered", "seat": 0} in stored.notes
        assert any("chat_settings" in n for n in stored.notes)
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_chat_after_the_game_is_over_and_in_the_replay(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "basic"},
                              {"kind": "bot", "level": "basic"}], "Ann",
                             overrides={"hands": [1]}, seed=3, turn_timer=0.01)
        tid = t["table"]["id"]
        ann = await srv.client(tid, t["token"])
        await ann.until(lambda m: m["type"] == "welcome")
        await ann.send({"type": "chat", "text": "good luck"})  # in the lobby
        await ann.until(lambda m: m["type"] == "chat")
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        mid = await ann.until(lambda m: m["type"] == "update" and m["version"] >= 8)
        await ann.send({"type": "chat", "text": "hmm"})
        hmm = await ann.until(lambda m: m["type"] == "chat" and m.get("text") == "hmm")
        assert hmm["version"] >= mid["version"]
        await ann.until(lambda m: m["type"] == "update" and m["view"]
                        and m["view"]["phase"] == "over", 120)
        # allowed once the game is over: friends say so (docs/web-protocol.md)
        await ann.send({"type": "react", "reaction": "gg"})
        gg = await ann.until(lambda m: m["type"] == "chat" and m.get("reaction") == "gg")
        for _ in range(50):
            if (await srv.http.get(f"/api/tables/{tid}")).json()["status"] == "over":
                break
            await asyncio.sleep(0.05)
        replay = (await srv.http.get(f"/api/tables/{tid}/replay")).json()
        steps = replay["steps"]
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        actions_from = summary["version"] - replay["actions"] + 1
        action_steps = [i for i, s in enumerate(steps) if s["kind"] != "deal"]
        by_text = {line.get("text") or line.get("reaction"): line for line in replay["chat"]}
        assert by_text["good luck"]["step"] == 0
        assert by_text["hmm"]["step"] == action_steps[hmm["version"] - actions_from]
        assert by_text["gg"]["step"] == len(steps) - 1 and gg["n"] == 3
        # a line said once the replay was built is in the next one
        await ann.send({"type": "chat", "text": "again?"})
        await ann.until(lambda m: m["type"] == "chat" and m.get("text") == "again?")
        again = (await srv.http.get(f"/api/tables/{tid}/replay")).json()
        assert [line["n"] for line in again["chat"]] == [1, 2, 3, 4]
        await ann.close()
