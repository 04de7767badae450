"""Fuzzing the web server with hypothesis: HTTP bodies, query strings and path ids, and websocket
messages, arbitrary JSON and valid ones with one part changed. Whatever a client sends, the
server never fails (no 5xx, no exception in its log), every refusal has the documented form and
changes nothing (stored events, the tables in memory, the lobby, a table's version and game).

Domain words: *background server* (the app served in a thread with its own event loop: hypothesis
drives synchronous tests, and each example's checks run as a coroutine on that loop, where they
may also look at the server's own objects), *mutated body* (a valid request or message with one
field replaced by arbitrary JSON, dropped, or one field added).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar
from urllib.parse import quote_from_bytes

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liverpool.rules import KNOBS

from .conftest import Client, Served, human_seats, lobby_state, raw_json, serve, table_state

T = TypeVar("T")

# ---- the server in a thread --------------------------------------------------------------------


class Background:
    """``serve()`` on an event loop of its own thread; ``run`` runs a coroutine there."""

    def __init__(self, db: str, **kw: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-server",
                                       daemon=True)
        self.thread.start()
        self.stack = contextlib.AsyncExitStack()
        self.srv: Served = self.run(self.stack.enter_async_context(serve(db, **kw)))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 120.0) -> T:
        """The timeout only guards against a hang."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        try:
            self.run(self.stack.aclose())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(30)
            self.loop.close()


@contextlib.contextmanager
def background(db: str, **kw: Any) -> Iterator[Background]:
    bg = Background(db, **kw)
    try:
        yield bg
    finally:
        bg.close()


class ErrorLog(logging.Handler):
    """The server's log records of level ERROR and above (a failed handler logs one)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def error_log() -> Iterator[ErrorLog]:
    handler = ErrorLog()
    loggers = [logging.getLogger(n) for n in ("liverpool.web", "uvicorn.error")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        yield handler
    finally:
        for lg in loggers:
            lg.removeHandler(handler)


FUZZ = settings(max_examples=150, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# ---- what clients may send -----------------------------------------------------------------
FIELDS = ["nickname", "seats", "rules", "overrides", "turn_timer", "buy_timer", "public", "seed",
          "deals", "kind", "level", "token", "secret", "seat", "type", "version", "action",
          "on", "player", "card", "melds", "meld", "end", "wild", "depth", "count", "new_meld"]
WORDS = ["", " ", "\ud800", "\udfff", "\x00", "\u202e", "\u200b", "\ufeff", "human", "bot",
         "basic", "expert", "expert:32it", "expert:2001ms", "cmd:true", "cmd@1s:true", "standard",
         "house", "hello", "action", "intent", "hint", "ping", "buy", "call", "draw",
         "discard", "take", "pass", "7H", "JK", "10S", "low", "high", "NaN"]
HUGE = [10 ** 4299, -(10 ** 4299), 2 ** 63, 2 ** 64, -(2 ** 63) - 1, 10 ** 18, -1, 0, 1, 7, 8]

texts = st.one_of(st.text(st.characters(exclude_categories=()), max_size=30),
                  st.sampled_from(WORDS))
# JSON text no encoder writes: numbers of 4,301 digits and more, nesting far too deep
RAW = ['{"type": "hello", "token": null, "version": ' + "9" * 5000 + "}",
       '{"type": "ping", "x": ' + "1" * 4301 + "}", "-" + "1" * 4400,
       "[" * 20_000 + "]" * 20_000, '{"type": "hint", "x": ' + '{"a":' * 5000 + "1"
       + "}" * 5001, '{"nickname": "Ann", "seats": ' + "[" * 40 + "]" * 40 + "}",
       '{"nickname": ' + "7" * 5000 + "}", '{"type": "ping"', "\ud800", '"\ud800"',
       '{"nickname": "\udfff", "seats": [{"kind": "human"}]}', "NaN", "-Infinity", ""]
raw_texts = st.one_of(texts, st.sampled_from(RAW))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(HUGE),
                    st.floats(allow_nan=True, allow_infinity=True), texts)
keys = st.one_of(st.sampled_from(FIELDS + list(KNOBS)), texts)
json_values = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                     st.dictionaries(keys, inner, max_size=5)),
    max_leaves=16)

json_objects = st.one_of(json_values, st.dictionaries(keys, json_values, max_size=6))

DROP = object()  # a mutation that takes the field out


def paths_of(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the value itself first)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths_of(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths_of(v, (*prefix, i))
    return out


def mutate(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    """``obj`` with the value at ``path`` replaced (or dropped, for ``DROP``)."""
    if not path:
        return None if value is DROP else value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        out = dict(obj)
        if value is DROP and not rest:
            out.pop(head, None)
        else:
            out[head] = mutate(obj[head], rest, value)
        return out
    out_list = list(obj)
    if value is DROP and not rest:
        del out_list[head]
    else:
        out_list[head] = mutate(obj[head], rest, value)
    return out_list


# a mutation, drawn the same whatever the valid value is (hypothesis replays draws against a
# server whose state moved on): how, where (an index into the value's places), what
mutations = st.tuples(st.sampled_from(["as is", "as is", "replace", "replace", "drop", "add"]),
                      st.integers(0, 63), json_values, keys)


def mutated(valid: Any, mutation: tuple[str, int, Any, str]) -> Any:
    """``valid`` as it is, with one part replaced by arbitrary JSON or dropped, or with one
    field added."""
    how, where, value, key = mutation
    if how == "as is":
        return valid
    if how == "add":
        objects = [p for p in paths_of(valid) if isinstance(_at(valid, p), dict)]
        if not objects:
            return valid
        path = objects[where % len(objects)]
        return mutate(valid, path, {**_at(valid, path), key: value})
    places = paths_of(valid)[1:] or [()]
    return mutate(valid, places[where % len(places)], DROP if how == "drop" else value)


def _at(obj: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def draw_body(data: st.DataObject, valid: Any) -> bytes:
    """Arbitrary JSON, ``valid`` mutated (twice as often), or now and then text no encoder
    writes."""
    arbitrary, mutation = data.draw(json_objects), data.draw(mutations)
    how, raw = data.draw(st.integers(0, 7)), data.draw(st.sampled_from(RAW))
    if how == 7:
        return raw.encode("utf-8", "surrogatepass")
    return raw_json(arbitrary if how < 2 else mutated(valid, mutation))


# ---- the HTTP API ----------------------------------------------------------------------------
ERROR_KEYS = {"error", "message", "field", "knob"}  # (knob: a refused rule option's name)


def check_answer(status: int, content: bytes, where: str) -> Any:
    """Never a 5xx; every answer of the API is JSON; a 4xx is ``{"error", "message"}``."""
    assert status < 500, (where, status, content[:300])
    if 300 <= status < 400:  # a redirect (a path with a trailing slash): no body to read
        return None
    body = json.loads(content)
    if status >= 400:
        assert isinstance(body, dict), (where, body)
        assert set(body) <= ERROR_KEYS and isinstance(body.get("error"), str) \
            and isinstance(body.get("message"), str) and body["message"], (where, body)
    return body


class Lobby:
    """A table for each example of the join, start and remove endpoints: a new one whenever an
    accepted request changed the last."""

    def __init__(self, srv: Served) -> None:
        self.srv = srv
        self.tid = ""
        self.host = ""
        self.bob = ""
        self.secret = ""

    async def fresh(self) -> None:
        t = await self.srv.create(human_seats(4))
        self.tid, self.host = t["table"]["id"], t["token"]
        self.secret = t.get("join_secret", "")
        r = await self.srv.join(self.tid, "Bob")
        assert r.status_code == 200
        self.bob = r.json()["token"]


async def post_and_check(srv: Served, path: str, body: bytes, tid: str | None) -> int:
    before = (await lobby_state(srv), tid and await table_state(srv, tid))
    r = await srv.http.post(path, content=body, headers={"content-type": "application/json"})
    answer = check_answer(r.status_code, r.content, f"POST {path} {body!r}"[:500])
    if r.status_code >= 400:
        after = (await lobby_state(srv), tid and await table_state(srv, tid))
        assert after == before, f"a refusal changed something: POST {path} {body!r}"[:500]
    elif path == "/api/tables":
        assert r.status_code == 201 and {"table", "seat", "token", "share_url"} <= set(answer)
    return r.status_code


def test_fuzz_http_posts(sqlite_url: str) -> None:
    with background(sqlite_url, allow_seed=False, grace=1e6) as bg, error_log() as errors:
        srv = bg.srv
        lobby = Lobby(srv)
        bg.run(lobby.fresh())
        valid_create = {"nickname": "Ann", "rules": "standard", "public": True,
                        "overrides": {"hands": [1, 2], "max_buys": 2},
                        "seats": [{"kind": "human"}, {"kind": "bot", "level": "expert:2it"},
                                  {"kind": "human"}],
                        "turn_timer": 30, "buy_timer": None}

        @settings(FUZZ, max_examples=400)  # about 100 per endpoint
        @given(st.data())
        def check(data: st.DataObject) -> None:
            target = data.draw(st.sampled_from(["create", "join", "start", "remove"]))
            if target == "create":
                body = draw_body(data, valid_create)
                bg.run(post_and_check(srv, "/api/tables", body, None))
                return
            valid = {"join": {"nickname": "Zed", "secret": lobby.secret},
                     "start": {"token": lobby.host},
                     "remove": {"token": lobby.host, "seat": 1}}[target]
            body = draw_body(data, valid)
            status = bg.run(post_and_check(srv, f"/api/tables/{lobby.tid}/{target}", body,
                                           lobby.tid))
            if status < 400:
                bg.run(lobby.fresh())

        check()
        assert not errors.records, [r.getMessage() for r in errors.records]


async def get_and_check(srv: Served, path: str) -> None:
    before = await lobby_state(srv)
    r = await srv.http.get(path)
    if path.startswith("/api/"):
        check_answer(r.status_code, r.content, f"GET {path}")
    else:
        assert r.status_code < 500, (path, r.status_code)
    assert await lobby_state(srv) == before


def test_fuzz_http_gets(sqlite_url: str) -> None:
    with background(sqlite_url, grace=1e6) as bg, error_log() as errors:
        srv = bg.srv

        async def setup() -> str:
            t = await srv.create(human_seats(3), public=True)
            await srv.create(human_seats(3))
            return str(t["table"]["id"])

        known = bg.run(setup())
        def utf8(text: str) -> bytes:  # lone surrogates as a client may escape them
            return text.encode("utf-8", "surrogatepass")

        ids = st.one_of(texts.map(utf8), st.binary(max_size=20), st.just(known.encode()),
                        st.text("abcXYZ019", max_size=40).map(utf8))
        params = st.dictionaries(
            st.one_of(st.sampled_from([b"offset", b"limit"]), texts.map(utf8), st.binary()),
            st.one_of(texts.map(utf8), st.binary(max_size=10),
                      st.one_of(st.integers(), st.sampled_from(HUGE)).map(lambda n: utf8(str(n)))),
            max_size=3)

        @settings(FUZZ, max_examples=150)
        @given(ids, st.sampled_from(["/api/tables/{}", "/api/tables/{}/record",
                                     "/api/tables/{}/replay", "/t/{}", "/replay/{}"]), params)
        def check(table_id: bytes, template: str, query: dict[bytes, bytes]) -> None:
            path = template.format(quote_from_bytes(table_id, safe=""))
            bg.run(get_and_check(srv, path))
            qs = "&".join(f"{quote_from_bytes(k, safe='')}={quote_from_bytes(v, safe='')}"
                          for k, v in query.items())
            bg.run(get_and_check(srv, f"/api/tables?{qs}"))

        check()
        assert not errors.records, [r.getMessage() for r in errors.records]


# ---- websocket messages ----------------------------------------------------------------------
SERVER_TYPES = {"welcome", "sync", "update", "lobby", "requests", "hint", "notice", "error",
                "pause", "pong"}
ERROR_CODES = {"bad_json", "bad_message", "no_hello", "bad_token", "spectator", "not_started",
               "not_your_turn", "stale_version", "illegal", "game_over", "storage", "paused",
               "rate_limited", "removed", "too_large"}


class Table:
    """A started table of three people, each seat with its client, and a spectator."""

    def __init__(self, srv: Served) -> None:
        self.srv = srv
        self.tid = ""
        self.tokens: list[str] = []
        self.clients: list[Client] = []  # seats 0, 1, 2, then the spectator
        self.conns: list[Any] = []  # the server's side of each client

    @property
    def owner(self) -> Any:
        return self.srv.app.state.registry.owners[self.tid]

    async def open(self) -> None:
        t = await self.srv.create(human_seats(3), overrides={"max_buys": 5})
        self.tid, self.tokens = t["table"]["id"], [t["token"]]
        for name in ("Bob", "Cy"):
            self.tokens.append((await self.srv.join(self.tid, name)).json()["token"])
        r = await self.srv.http.post(f"/api/tables/{self.tid}/start",
                                     json={"token": self.tokens[0]})
        assert r.status_code == 200
        for token in [*self.tokens, None]:
            before = set(self.owner.conns)
            c = await self.srv.client(self.tid, token)
            await c.until(lambda m: m["type"] == "sync")
            self.clients.append(c)
            while not set(self.owner.conns) - before:
                await asyncio.sleep(0.01)
            self.conns.append(next(iter(set(self.owner.conns) - before)))

    async def state(self) -> Any:
        o = self.owner
        announced = o.play.announced() if o.play is not None else ([], [])
        return (await table_state(self.srv, self.tid), announced, [c.seat for c in self.conns])

    async def answers(self, who: int, text: str, is_ping: bool) -> list[dict[str, Any]]:
        """Send ``text`` from client ``who``; every message it got until the server has done
        all it does for it (the owner has worked through it, and a ping sent afterwards is
        answered after its answers)."""
        c = self.clients[who]
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not UTF-8, so as a binary message
            await c.ws.send(text.encode("utf-8", "surrogatepass"))
        else:
            await c.send(text)
        pongs = 1 + is_ping
        got: list[dict[str, Any]] = []
        await c.send({"type": "ping"})
        while pongs:
            got.append(await c.recv(30))
            pongs -= got[-1] == {"type": "pong"}
        await self.owner.call(_nothing)  # whatever the message asked of the owner is done
        await c.send({"type": "ping"})
        while True:
            got.append(await c.recv(30))
            if got[-1] == {"type": "pong"}:
                break
        for other in self.clients:  # broadcasts to the others, read so they never pile up
            if other is not c:
                other.messages.clear()
                other._next = 0
                await _read_all(other)
        c.messages.clear()
        c._next = 0
        return got[:-1]

    async def play(self, seat: int, pick: int) -> None:
        """The seat plays one of its legal moves."""
        legal = self.owner.legal_for(seat)[0]
        move = legal[pick % len(legal)].to_json()
        got = await self.answers(seat, json.dumps({"type": "action", "version":
                                                   self.owner.version, "action": move}), False)
        kinds = [m["type"] for m in got if m["type"] != "pong"]
        assert "update" in kinds or [m.get("code") for m in got if m["type"] == "error"] == [
            "not_your_turn"], (move, got)  # refused only when somebody called first

    async def reseat(self) -> None:
        """Seat every client as it was (a valid hello may have made one a spectator)."""
        for i, token in enumerate([*self.tokens, None]):
            if self.conns[i].seat != (i if token is not None else None):
                await self.clients[i].send({"type": "hello", "token": token,
                                            "version": self.owner.version})
                await self.clients[i].until(lambda m: m["type"] == "welcome")
                for c in self.clients:  # and what that hello told the others
                    await _read_all(c)
            assert self.conns[i].seat == (i if token is not None else None)


async def _nothing() -> None:
    return None


async def _read_all(c: Client) -> None:
    """What the client was sent so far, up to a ping's answer (read and forgotten)."""
    await c.send({"type": "ping"})
    await c.until(lambda m: m == {"type": "pong"}, 30)
    c.messages.clear()
    c._next = 0


def valid_messages(table: Table, who: int) -> list[Any]:
    o = table.owner
    seat = who if who < 3 else None
    legal = [a.to_json() for a in o.legal_for(seat)[0]] if seat is not None else []
    token = table.tokens[who] if who < 3 else None
    out: list[Any] = [{"type": "hello", "token": token, "version": o.version},
                      {"type": "hint"}, {"type": "ping"},
                      {"type": "intent", "kind": "buy", "on": True},
                      {"type": "intent", "kind": "call", "on": False}]
    for a in legal[:6] or [{"type": "draw", "player": 1}]:
        out.append({"type": "action", "version": o.version, "action": a})
    return out


def test_fuzz_websocket_messages(sqlite_url: str) -> None:
    with background(sqlite_url, grace=1e6) as bg, error_log() as errors:
        table = Table(bg.srv)
        bg.run(table.open())

        @settings(FUZZ, max_examples=300)
        @given(st.data())
        def check(data: st.DataObject) -> None:
            # every draw is made whatever the table's state: see ``mutations``
            who, to_decider = data.draw(st.integers(0, 3)), data.draw(st.booleans())
            kind = data.draw(st.sampled_from(["arbitrary", "text", "mutated", "mutated"]))
            arbitrary, text, pick, mutation = (data.draw(json_objects), data.draw(raw_texts),
                                               data.draw(st.integers(0, 31)),
                                               data.draw(mutations))
            advance, move = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 63))
            decider = table.owner.decision_seat()
            if advance == 0 and decider is not None:  # the game moves on: a legal move first
                bg.run(table.play(decider, move))
                decider = table.owner.decision_seat()
            if to_decider and decider is not None:
                who = decider
            msg: Any = None
            if kind == "arbitrary":
                msg = arbitrary
            elif kind == "mutated":
                valid = valid_messages(table, who)
                msg = mutated(valid[pick % len(valid)], mutation)
            if kind != "text":
                text = json.dumps(msg)
            try:
                sent = json.loads(text)
            except (ValueError, RecursionError):
                sent = None
            is_ping = isinstance(sent, dict) and sent.get("type") == "ping"
            before = bg.run(table.state())
            logged = len(errors.records)
            got = bg.run(table.answers(who, text, is_ping))
            for m in got:
                assert m.get("type") in SERVER_TYPES, (msg, m)
                if m["type"] == "error":
                    assert m.get("code") in ERROR_CODES and m.get("message"), (msg, m)
            mine = [m for m in got if m.get("type") != "pong"]
            if all(m["type"] == "error" for m in mine):  # refused (or nothing to do)
                assert len(mine) <= 1, (msg, mine)
                assert bg.run(table.state()) == before, f"a refusal changed the table: {msg!r}"
            assert len(errors.records) == logged, (msg, errors.records[logged:])
            bg.run(table.reseat())

        start = table.owner.version
        check()
        assert table.owner.version > start + 10  # the game went on while it was fuzzed
        for c in table.clients:
            bg.run(c.close())
        assert not errors.records, [r.getMessage() for r in errors.records]
