"""Whole games through the server: what every client receives (its own view only, never the
stock order), reconnecting, real-time buying, dropped players and timers."""

from __future__ import annotations

import asyncio
from typing import Any

from liverpool.actions import Action
from liverpool.cards import card_str, sorted_cards
from liverpool.engine import Game
from liverpool.record import new_game_from_record

from .conftest import Served, hand_end_of, human_seats, play_turns, serve, text_of

MESSAGE_TYPES = {"welcome", "sync", "update", "lobby", "requests", "hint", "error", "pong",
                 "notice", "chat", "chat_settings", "watchers"}
SECRET_KEYS = {"stock", "deck", "hands", "deals", "seed", "token_hash"}


async def _seated(srv: Served, seats: list[dict[str, Any]], names: list[str],
                  **more: Any) -> tuple[str, list[str]]:
    t = await srv.create(seats, nickname=names[0], **more)
    tid = t["table"]["id"]
    tokens = [t["token"]]
    for name in names[1:]:
        r = await srv.join(tid, name)
        tokens.append(r.json()["token"])
    return tid, tokens


def _keys(obj: Any) -> set[str]:
    """Every key in a message, except the names of the rule knobs (``hands`` is a knob: the
    list of contracts played, not anybody's cards)."""
    if isinstance(obj, dict):
        return set(obj) | {k for key, v in obj.items() if key not in ("knobs", "overrides")
                           for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _expected_view(g: Game, seat: int | None) -> dict[str, Any]:
    if seat is None:
        v = g.view_for(0).to_json()
        v["seat"], v["hand"] = None, []
        return v
    return g.view_for(seat).to_json()


def check_messages(record: dict[str, Any], first_action_version: int,
                   received: dict[int | None, list[dict[str, Any]]]) -> int:
    """Every message a client got holds its own view as the engine gives it at that version,
    events that are the record's actions, legal actions of its own seat only, and no key that
    could carry hidden cards. Returns how many views were checked."""
    actions = record["actions"]
    wanted: dict[int, list[tuple[int | None, dict[str, Any]]]] = {}
    hand_ends: dict[int, list[dict[str, Any]]] = {}  # version -> the hand_end payloads sent
    for seat, msgs in received.items():
        for m in msgs:
            assert m["type"] in MESSAGE_TYPES, m
            scanned = m
            if m["type"] == "update" and m.get("action") and hand_end_of(m) is not None:
                # the hand just scored is public: its cards are checked against the engine
                hand_ends.setdefault(m["version"], []).append(hand_end_of(m))
                scanned = {**m, "events": [e for e in m["events"]
                                           if e["type"] != "hand_ended"]}
            for e in m.get("events") or ():
                # a card from the stock, a buyer's penalty cards: told to their taker only
                if e["type"] == "drew" and e["card"] is not None:
                    assert e["seat"] == seat, m
                if e["type"] == "bought" and e["penalty_cards"] is not None:
                    assert e["seat"] == seat, m
            assert not (_keys(scanned) & SECRET_KEYS), m
            if m["type"] == "update" and m["action"] is not None:
                i = m["version"] - first_action_version
                assert m["action"] == actions[i]
                assert m["action"]["player"] == actions[i]["player"]
            if m["type"] == "hint":
                assert m["action"]["player"] == seat
            if m["type"] in ("update", "sync") and m.get("view") is not None:
                assert all(a["player"] == seat for a in m["legal"])
                wanted.setdefault(m["version"], []).append((seat, m))
    game = new_game_from_record({**record, "actions": []})
    checked = 0
    for i in range(len(actions) + 1):
        for seat, m in wanted.pop(first_action_version - 1 + i, []):
            assert m["view"] == _expected_view(game, seat), (i, seat)
            if game.phase.value not in ("buy", "call") and seat is not None:
                assert m["legal"] == [a.to_json() for a in game.legal_actions(seat)]
            checked += 1
        if i < len(actions):
            hands_before = len(game.scores)
            game.apply(Action.from_json(actions[i]))
            if len(game.scores) > hands_before:
                end = game.last_hand_end
                assert end is not None
                expected = {
                    "hand_number": end.hand_number,
                    "went_out": [s for s, out in enumerate(end.out) if out],
                    "hands": [[card_str(c) for c in sorted_cards(h, game.rules.deuces_wild)]
                              for h in end.hands],
                    "melds": [m.to_json() for m in end.melds], "down": list(end.down),
                    "points": list(game.scores[-1]), "totals": list(game.totals)}
                sent = hand_ends.pop(first_action_version + i, [])
                assert sent and all({k: h[k] for k in expected} == expected for h in sent), \
                    (i, sent, expected)
    assert not wanted, f"views at versions the record does not reach: {sorted(wanted)}"
    assert not hand_ends, f"hand ends the record does not have: {sorted(hand_ends)}"
    return checked


async def test_whole_game_every_message_is_the_seats_own(db_url: str) -> None:
    async with serve(db_url) as srv:
        seats = [*human_seats(2), {"kind": "bot", "level": "basic"},
                 {"kind": "bot", "level": "random"}]
        tid, tokens = await _seated(srv, seats, ["Ann", "Bob"])
        a, b = [await srv.client(tid, tok) for tok in tokens]
        spec = await srv.client(tid, None)
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        assert r.status_code == 200
        over = [asyncio.create_task(play_turns(c, lambda m: False, timeout=600))
                for c in (a, b)]
        watched = asyncio.create_task(spec.until(
            lambda m: m["type"] == "update" and m["view"]["phase"] == "over", timeout=600))
        finals = await asyncio.gather(*over, watched)
        assert all(f["view"]["phase"] == "over" for f in finals)
        await asyncio.sleep(0.2)
        for c in (a, b, spec):
            await c.drain(0.2)
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        assert rec["players"] == ["Ann", "Bob", "Bot 3", "Bot 4"]
        assert len(finals[0]["view"]["scores"]) == 7  # every hand of the game was played
        checked = check_messages(rec, 3, {0: a.messages, 1: b.messages, None: spec.messages})
        assert checked > 3 * 300
        listing = (await srv.http.get("/api/tables")).json()["tables"]
        assert tid not in [t["id"] for t in listing]  # over: no longer listed
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        assert summary["status"] == "over"
        for c in (a, b, spec):
            await c.close()


async def test_reconnect_gets_missed_updates_or_a_sync(sqlite_url: str) -> None:
    async with serve(sqlite_url, grace=0.1) as srv:
        tid, tokens = await _seated(srv, human_seats(1, 3), ["Ann"])
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        assert r.status_code == 200
        # Ann never connects: after the grace period the basic bot covers her seat
        spec = await srv.client(tid, None)
        sync = await spec.until(lambda m: m["type"] == "sync")
        v0 = sync["version"]
        await spec.until(lambda m: m["type"] == "update" and m["version"] >= v0 + 5)
        await spec.close()
        owner = srv.app.state.registry.owners[tid]
        while owner.version < v0 + 20:
            await asyncio.sleep(0.01)
        # a spectator coming back a few versions later gets each missed update, in order,
        # only the last one with the view
        back = await srv.client(tid, None, version=v0 + 5)
        assert (await back.recv())["type"] == "welcome"
        first = await back.recv()
        assert first["type"] == "update" and first["version"] == v0 + 6
        assert first["view"] is None
        msgs = [first]
        while msgs[-1]["view"] is None:
            msgs.append(await back.recv())
        assert [m["version"] for m in msgs] == list(range(v0 + 6, msgs[-1]["version"] + 1))
        assert msgs[-1]["view"]["seat"] is None and msgs[-1]["view"]["hand"] == []
        await back.close()
        # far behind (more than the 200 events held): one sync
        while owner.version < v0 + 260 and not owner.game.over:
            await asyncio.sleep(0.01)
        old = await srv.client(tid, None, version=v0)
        assert (await old.recv())["type"] == "welcome"
        assert (await old.recv())["type"] == "sync"
        # Ann comes back: her seat is hers again
        ann = await srv.client(tid, tokens[0], version=v0)
        welcome = await ann.recv()
        assert welcome["seat"] == 0 and welcome["table"]["seats"][0]["covered"] is False
        lobby = await old.until(lambda m: m["type"] == "lobby")
        assert lobby["table"]["seats"][0]["connected"] is True
        await old.close()
        await ann.close()


async def test_buy_intents_resolve_when_the_player_draws(db_url: str) -> None:
    async with serve(db_url) as srv:
        tid, tokens = await _seated(srv, human_seats(3), ["Ann", "Bob", "Cy"])
        a, b, c = [await srv.client(tid, tok) for tok in tokens]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        syncs = [await x.until(lambda m: m["type"] == "sync" and m["view"]) for x in (a, b, c)]
        v = syncs[0]["version"]
        # the opening upcard: Bob (seat 1) draws first; Cy (2) and Ann (0, the dealer) may buy
        assert syncs[0]["intents"] == ["buy"] and syncs[2]["intents"] == ["buy"]
        assert syncs[1]["intents"] == []
        top = syncs[1]["view"]["discard"][-1]
        await a.send({"type": "intent", "kind": "buy", "on": True})
        req = await b.until(lambda m: m["type"] == "requests")
        assert req == {"type": "requests", "buy": [0], "call": [], "intents": [],
                       "deadline": None}
        await c.send({"type": "intent", "kind": "buy", "on": True})
        await c.send({"type": "intent", "kind": "buy", "on": False})
        await b.until(lambda m: m["type"] == "requests" and m["buy"] == [0, 2])
        await b.until(lambda m: m["type"] == "requests" and m["buy"] == [0])
        await b.send({"type": "action", "version": v, "action": {"player": 1, "type": "draw"}})
        ups = [await a.until(lambda m: m["type"] == "update") for _ in range(3)]
        # Cy is asked first (nearest Bob's left) and said nothing: a pass, written down
        assert [u["action"] for u in ups] == [
            {"player": 1, "type": "draw"}, {"player": 2, "type": "pass"},
            {"player": 0, "type": "buy"}]
        assert "buy " + top in text_of(ups[2])  # (the buyer reads "You buy 9H")
        assert ups[2]["view"]["hand_sizes"] == [12, 11, 10]
        # the round is over: the requests are cleared for everyone
        await c.until(lambda m: m["type"] == "requests" and m["buy"] == [] == m["call"])
        assert (await a.drain(0.1)) == []
        for x in (a, b, c):
            await x.close()


async def test_a_buy_intent_the_rules_refuse_gets_the_cores_reason(db_url: str) -> None:
    """Who may announce a buy is the engine's answer, reason included (no copy of the rule in
    the server): the player on turn is told to take the discard instead."""
    async with serve(db_url) as srv:
        tid, tokens = await _seated(srv, human_seats(3), ["Ann", "Bob", "Cy"])
        a, b = [await srv.client(tid, tok) for tok in tokens[:2]]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        for x in (a, b):
            await x.until(lambda m: m["type"] == "sync" and m["view"])
        await b.send({"type": "intent", "kind": "buy", "on": True})
        err = await b.until(lambda m: m["type"] == "error")
        assert err["code"] == "illegal"
        assert err["message"] == ("you cannot ask to buy the discard now: it is your turn: take "
                                  "the discard instead of buying it")
        await a.send({"type": "intent", "kind": "call", "on": True})
        err = await a.until(lambda m: m["type"] == "error")
        assert err["code"] == "illegal" and err["message"] == (
            "you cannot ask to call the discard now: there is no discard to call now")
        # nothing was announced
        assert (await a.drain(0.1)) == [] and (await b.drain(0.1)) == []
        for x in (a, b):
            await x.close()


async def test_turn_timer_plays_for_a_silent_player(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, tokens = await _seated(srv, human_seats(1, 2), ["Ann"], turn_timer=0.3,
                                    rules="classic")
        ann = await srv.client(tid, tokens[0])
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        mine = await ann.until(lambda m: m.get("legal"), timeout=10)
        assert mine["deadline"]["kind"] == "turn" and mine["deadline"]["seat"] == 0
        assert 0 < mine["deadline"]["ms_left"] <= 300
        # Ann does nothing: the basic bot plays her whole turn, ending with her discard
        done = await ann.until(lambda m: m["type"] == "update" and m["action"]["player"] == 0
                               and m["action"]["type"] == "discard", timeout=10)
        assert text_of(done).startswith("You discard")  # Ann reads her own move
        await ann.close()


async def test_first_call_buying_goes_to_who_asked_first(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, tokens = await _seated(srv, human_seats(3), ["Ann", "Bob", "Cy"],
                                    overrides={"buy_priority": "first_call"})
        a, b, c = [await srv.client(tid, tok) for tok in tokens]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        syncs = [await x.until(lambda m: m["type"] == "sync" and m["view"]) for x in (a, b, c)]
        v = syncs[1]["version"]
        # Ann asks before Cy: under first_call she wins, though Cy sits nearer Bob's left
        await a.send({"type": "intent", "kind": "buy", "on": True})
        await b.until(lambda m: m["type"] == "requests" and m["buy"] == [0])
        await c.send({"type": "intent", "kind": "buy", "on": True})
        await b.until(lambda m: m["type"] == "requests" and m["buy"] == [0, 2])
        await b.send({"type": "action", "version": v, "action": {"player": 1, "type": "draw"}})
        ups = [await c.until(lambda m: m["type"] == "update") for _ in range(2)]
        assert [u["action"] for u in ups] == [
            {"player": 1, "type": "draw"}, {"player": 0, "type": "buy"}]
        assert ups[1]["view"]["hand_sizes"] == [12, 11, 10]
        for x in (a, b, c):
            await x.close()


async def test_the_buy_window_closing_is_sent_with_the_turn_clock(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        tid, tokens = await _seated(srv, human_seats(3), ["Ann", "Bob", "Cy"], buy_timer=0.4,
                                    turn_timer=30)
        a, b, c = [await srv.client(tid, tok) for tok in tokens]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": tokens[0]})
        syncs = [await x.until(lambda m: m["type"] == "sync" and m["view"]) for x in (a, b, c)]
        v = syncs[1]["version"]
        # the opening upcard: Bob (seat 1) decides; Ann and Cy may buy until the buy timer ends
        assert syncs[0]["intents"] == ["buy"] and syncs[0]["deadline"]["kind"] == "buy"
        assert 0 < syncs[0]["deadline"]["ms_left"] <= 400
        await a.send({"type": "intent", "kind": "buy", "on": True})
        await b.until(lambda m: m["type"] == "requests" and m["buy"] == [0])
        # the window closes on its timer: every client is told, with the turn clock now running
        closed = {}
        for seat, x in enumerate((a, b, c)):
            closed[seat] = await x.until(lambda m: m["type"] == "requests" and
                                         m["deadline"] is not None and
                                         m["deadline"]["kind"] == "turn", timeout=5)
        for seat, m in closed.items():
            assert m["intents"] == [] and m["buy"] == [0] and m["call"] == [], seat
            assert m["deadline"]["seat"] == 1 and 25_000 < m["deadline"]["ms_left"] <= 30_000
        # no new intent is taken; the one announced stands and is resolved at the draw
        await c.send({"type": "intent", "kind": "buy", "on": True})
        err = await c.until(lambda m: m["type"] == "error")
        assert err["code"] == "illegal"
        await b.send({"type": "action", "version": v, "action": {"player": 1, "type": "draw"}})
        ups = [await a.until(lambda m: m["type"] == "update") for _ in range(3)]
        assert [u["action"] for u in ups] == [
            {"player": 1, "type": "draw"}, {"player": 2, "type": "pass"},
            {"player": 0, "type": "buy"}]
        for x in (a, b, c):
            await x.close()
