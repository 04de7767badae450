"""What keeps the server lean per action: an update is built once per seat and version (every
connection at the seat is sent the same text), and one connection's messages are counted
without a thread (``MovingWindows``)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from typing import Any

import pytest
from limits import parse

from liverpool.web.limits import Limits, MovingWindows, RateLimiter
from liverpool.web.seats import Conn, dumps, dumps_plain
from liverpool.web.tablemsg import Messages

from .conftest import serve


def test_dumps_is_compact_json() -> None:
    obj = {"a": [1, None, "é\u2028"], "b": {"c": 1.5, "d": True}}
    assert dumps(obj) == json.dumps(obj, separators=(",", ":"))


@pytest.mark.parametrize("obj", [
    {"seat": 0, "hand": ["AS", "10H", "JK"], "to_act": [1], "down": [True, False], "x": None},
    [{"type": "discard", "player": 2, "card": "QC"}], ["buy", "call"], [], {},
    {"players": ["Zoë", "李", "a\u2028b"]},  # past ASCII: escaped by json
    {"players": ["a\x7fb", "c\x00\x1f\n\t\"\\/"]},  # DEL and control characters
    {1: "a", 2: [3]},  # keys that are not strings: json writes them as strings
    [2 ** 70, -(2 ** 63)],  # past 64 bits
])
def test_dumps_plain_writes_what_dumps_writes(obj: Any) -> None:
    assert dumps_plain(obj) == dumps(obj)


async def test_an_update_is_built_once_per_seat_and_shared_by_its_connections(
        sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[int, int | None, str]] = []  # (connection, its seat, text)
    built: Counter[tuple[int, int | None]] = Counter()  # (version, seat) -> updates built
    send_text, update_text = Conn.send_text, Messages.update_text

    def spy_send(self: Conn, text: str) -> None:
        sent.append((id(self), self.seat, text))
        send_text(self, text)

    def spy_update(self: Messages, seat: int | None, events: Any, *rest: Any) -> str:
        built[self.t.version, seat] += 1
        return update_text(self, seat, events, *rest)

    monkeypatch.setattr(Conn, "send_text", spy_send)
    monkeypatch.setattr(Messages, "update_text", spy_update)
    async with serve(sqlite_url) as srv:
        # the host's seat is played by its turn timer; the bots play the others
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2
        t = await srv.create(seats, nickname="Zoë", overrides={"hands": [1]}, seed=5,
                             turn_timer=0.01)
        tid = t["table"]["id"]
        clients = [await srv.client(tid, t["token"]), await srv.client(tid, t["token"]),
                   await srv.client(tid, None)]
        for c in clients:
            await c.until(lambda m: m["type"] == "welcome")
        r = await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        assert r.status_code == 200
        for c in clients:
            await c.until(lambda m: m["type"] == "update" and m["view"]["phase"] == "over",
                          timeout=300)
        for c in clients:
            await c.close()
    updates = [(conn, seat, text) for conn, seat, text in sent
               if text.startswith('{"type":"update"')]
    versions = {json.loads(text)["version"] for _, _, text in updates}
    # built in parts, the text is still exactly what json writes for the message (a name past
    # ASCII escaped)
    assert all(dumps(json.loads(text)) == text for _, _, text in updates)
    assert any("Zo\\u00eb" in text for _, _, text in updates)
    assert len(versions) > 20
    # each seat's update for a version was built once: one for the host's two connections,
    # one for the spectator
    assert set(built) == {(v, s) for v in versions for s in (0, None)}
    assert set(built.values()) == {1}
    by_version: dict[tuple[int, int | None], list[tuple[int, str]]] = {}
    for conn, seat, text in updates:
        by_version.setdefault((json.loads(text)["version"], seat), []).append((conn, text))
    for (_, seat), got in by_version.items():
        assert len(got) == (2 if seat == 0 else 1)
        if seat == 0:
            (c1, text1), (c2, text2) = got
            assert c1 != c2
            assert text1 is text2  # the same text object: encoded once, queued twice


def _windows(rate: str) -> tuple[MovingWindows, list[float]]:
    now = [100.0]
    return MovingWindows(parse(rate), clock=lambda: now[0]), now


def test_moving_windows_refuse_the_hit_over_the_limit_until_the_oldest_is_a_window_old(
        ) -> None:
    w, now = _windows("3/second")
    assert w.hit("a")
    now[0] += 0.2
    assert w.hit("a")
    now[0] += 0.2
    assert [w.hit("a"), w.hit("a")] == [True, False]
    assert w.hit("b")  # another key has its own window
    assert w.reset_in("a") == pytest.approx(0.6)
    now[0] += 0.6  # the first hit is now a whole window old: still counted (as in limits)
    assert not w.hit("a")
    now[0] += 0.001
    assert w.hit("a")
    assert not w.hit("a")  # the refused hits were not counted; the last three are in the window


def test_moving_windows_forget_idle_keys_at_a_sweep() -> None:
    w, now = _windows("2/second")
    for k in range(100):
        assert w.hit(f"conn{k}")
    now[0] += 5.0
    assert w.hit("conn0")
    assert len(w.hits) == 101 - 1  # no sweep yet: at most one per 10 s
    now[0] += 6.0
    assert w.hit("conn1")
    assert set(w.hits) == {"conn1"}  # the others were idle for more than a window


def test_a_zero_rate_refuses_every_hit() -> None:
    w, _ = _windows("0/second")
    assert not w.hit("a") and not w.hit("a")


async def test_the_message_rate_is_counted_without_a_thread() -> None:
    rates = RateLimiter(Limits(message_rate="3/minute"))
    threads_before = {t.ident for t in threading.enumerate()}
    assert [rates.hit("message", "c1") for _ in range(4)] == [True, True, True, False]
    assert rates.hit("message", "c2")
    await asyncio.sleep(0.05)
    assert {t.ident for t in threading.enumerate()} <= threads_before


@pytest.mark.parametrize("preset", ["standard", "house", "classic"])
def test_a_changes_text_is_each_readers_events_json(preset: str) -> None:
    """An update's events are narrated and encoded once for every reader they do not concern:
    what each reader gets is exactly their own ``events_json`` (the plain way), in whole
    random games."""
    import random

    from liverpool.engine import Game
    from liverpool.randomplay import random_action
    from liverpool.rules import RuleSet
    from liverpool.web.seats import Held
    from liverpool.web.tablemsg import ChangeText, action_json, events_json

    game = Game(RuleSet.preset(preset), ["Ann", "Zoë", "Cy", "Dee"], seed=3)
    rng = random.Random(3)
    while not game.over:
        a = random_action(game, rng)
        held = Held(0, "action", events=game.apply(a), action=a.to_json())
        change = ChangeText(held, game.players)
        for reader in [None, 0, 1, 2, 3]:
            got = json.loads("{" + change.text(reader) + "}")
            assert got == {"action": action_json(held.action, reader),
                           "events": events_json(held.events, game.players, reader)}
