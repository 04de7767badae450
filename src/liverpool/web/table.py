"""One table of the web server and its owner: the single asyncio task that changes it.

Domain words: *table* (a lobby, then a game), *seat* (human or bot; a human seat has a secret
*token*, stored hashed), *connection* (one websocket client, at a seat or spectating), *version*
(the table's event counter), *held events* (the last 200, replayed to a client that reconnects),
*intent* (a real-time request to buy or call the current discard: a ``Requests`` request of
the core, liverpool.outofturn), *window* (while the next player decides, intents are collected;
the buy round or call window is *settled* by the core's rules when that player acts or the buy
timer ends), *decision seat* (the seat whose move the table waits for),
*covered* (a bot plays for a human who dropped), *bot-controlled* (a bot seat or a covered one).

Every change goes through the owner's queue, one at a time, so game state needs no locks. An
accepted change is stored (``Store.append``) before it is applied in memory and broadcast.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..actions import Action, ActionFormatError
from ..bots import BasicBot, Bot, bot_event, close_bot, hint, make_bot
from ..cards import card_str, wild_cards
from ..engine import Game, IllegalActionError, Phase, SeatView
from ..match import Match
from ..outofturn import Requests, after_silence, kind_now
from ..record import game_record
from ..rules import RuleSet
from .guard import Origins
from .limits import ApiError, Limits, builtin_bot, displayable
from .replay import apply_narrated
from .store import Store, StoredEvent, StoredTable, StoreError

log = logging.getLogger("liverpool.web")

HELD_EVENTS = 200
LOG_LINES = 100
MAX_BOT_STEPS = 200  # a timed-out or covered seat's bot plays at most this many moves in a row
STORE_RETRY = 2.0  # seconds before the table tries again a move the database refused


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


_SPEC = re.compile(r"cmd(@[^:]*)?:", re.IGNORECASE)


def bot_spec(command: str) -> str:
    """The bot spec of a host's command: ``cmd@2s:PROGRAM`` as given, ``PROGRAM`` as
    ``cmd:PROGRAM``."""
    command = command.strip()
    return command if _SPEC.match(command) else f"cmd:{command}"


__all__ = ["ApiError", "Conn", "Settings", "TableOwner"]


@dataclass
class Settings:
    grace: float = 15.0  # seconds before a dropped human is covered by the basic bot
    bot_think: float = 0.6  # seconds a bot waits before its move (so people can follow)
    bot_commands: dict[str, str] = field(default_factory=dict)  # level name -> command line
    limits: Limits = field(default_factory=Limits)
    origins: Origins = field(default_factory=Origins)
    # bots think here, never on the event loop: a bounded pool, first come first served, and
    # each table waits for one decision at a time, so no table's bots starve another's
    bot_pool: ThreadPoolExecutor | None = None

    def pool(self) -> ThreadPoolExecutor:
        if self.bot_pool is None:
            self.bot_pool = ThreadPoolExecutor(self.limits.bot_workers,
                                               thread_name_prefix="liverpool-bots")
        return self.bot_pool


class Conn:
    """One websocket client. The owner queues text; a sender task writes it to the socket, so
    a slow client never holds up the table. What waits to be sent is bounded (in bytes and in
    messages): a client that does not read is dropped, and resyncs when it comes back."""

    def __init__(self, limits: Limits | None = None, link_base: str = "") -> None:
        self.limits = limits or Limits()
        self.link_base = link_base  # where this client's share links point ("" : a path)
        self.seat: int | None = None
        self.hello = False  # the owner has seated (or refused) the client
        self.hello_sent = False  # the client has sent a well-formed hello
        self.out: asyncio.Queue[str | None] = asyncio.Queue()
        self.queued_bytes = 0
        self.closed = False
        self.close_code = 1000
        self.close_reason = ""

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        size = len(text)
        if (self.out.qsize() >= self.limits.send_queue_messages
                or self.queued_bytes + size > self.limits.send_queue_bytes):
            # a client this far behind would only fall further behind: drop it (it resyncs)
            self.close(1008, "too slow")
            return
        self.queued_bytes += size
        self.out.put_nowait(text)

    def sent(self, text: str) -> None:
        self.queued_bytes -= len(text)

    def send(self, obj: dict[str, Any]) -> None:
        self.send_text(dumps(obj))

    def error(self, code: str, message: str) -> None:
        self.send({"type": "error", "code": code, "message": message})

    def close(self, code: int = 1000, reason: str = "") -> None:
        if not self.closed:
            self.closed = True
            self.close_code, self.close_reason = code, reason
            self.out.put_nowait(None)


@dataclass
class SeatState:
    seat: int
    kind: str  # human | bot
    level: str | None = None
    name: str | None = None
    token_hash: str | None = None
    conns: set[Conn] = field(default_factory=set)
    covered: bool = False
    grace: asyncio.TimerHandle | None = None


@dataclass
class Held:
    version: int
    kind: str  # action | lobby | start
    event: dict[str, Any] | None = None  # action: {"seat", "action", "text"}
    table: dict[str, Any] | None = None  # lobby: the summary after it


class TableOwner:
    """The one sequential owner of a table."""

    def __init__(self, stored: StoredTable, store: Store, settings: Settings) -> None:
        cfg = stored.config
        self.id = stored.id
        self.created = stored.created
        self.status = "expired" if stored.status == "expired" else "open"
        self.public: bool = bool(cfg.get("public", "join_secret" not in cfg))
        self.join_secret: str | None = cfg.get("join_secret")
        self.creator: str | None = None  # the address that created it (not stored)
        self.store = store
        self.settings = settings
        self.preset: str = cfg["rules"]
        self.overrides: dict[str, Any] = cfg.get("overrides") or {}
        self.rules = RuleSet.preset(self.preset, self.overrides)
        self.seed: int = cfg["seed"]
        self.deals: list[list[str]] | None = cfg.get("deals")
        self.turn_timer: float | None = cfg.get("turn_timer")
        self.buy_timer: float | None = cfg.get("buy_timer")
        self.seats = [SeatState(i, s["kind"], displayable(str(s["level"])) if s.get("level")
                                else None,
                                f"Bot {i + 1}" if s["kind"] == "bot" else None)
                      for i, s in enumerate(cfg["seats"])]
        self.game: Game | None = None
        self.version = -1
        self.held: deque[Held] = deque(maxlen=HELD_EVENTS)
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.conns: set[Conn] = set()
        self.bots: dict[int, Bot] = {}
        self.incidents: list[dict[str, Any]] = list(stored.notes)
        self._unreported: list[dict[str, Any]] = []  # noted, not yet logged, told or stored
        self.cover_bot: Bot = make_bot("basic")
        # the game's driver (bot generators, bot moves with their fallback, the window's
        # requests), made at the start
        self.match: Match | None = None
        # intents, in the order they were announced, and the bots' answers when asked
        self.requests = Requests()
        self._queue: asyncio.Queue[tuple[Callable[..., Awaitable[Any]], tuple[Any, ...],
                                         asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._bot_timer: asyncio.TimerHandle | None = None
        self._bot_key: tuple[int, int] | None = None
        self._turn_timer: asyncio.TimerHandle | None = None
        self._turn_seat: int | None = None
        self._turn_deadline: float | None = None
        self._buy_timer: asyncio.TimerHandle | None = None
        self._buy_key: int | None = None
        self._buy_deadline: float | None = None
        self._window_closed_at: int | None = None  # version whose intents window timed out
        self._window_cache: tuple[int, Game] | None = None
        self._public_cache: tuple[int, SeatView] | None = None
        self._public_text: tuple[int, str] | None = None
        # websockets holding this owner (counted from the moment they got it, before their
        # hello): a finished table is evicted from memory only when none is left
        self.sockets = 0
        self.on_idle: Callable[[TableOwner], None] | None = None  # set by the registry
        self.stopped = False
        for ev in stored.events:
            self._replay_event(ev)
        if self.game is not None and self.game.over:
            self.status = "over"
            # a finished game's bots never play again: nothing to say about them
            self._unreported = []
            self.incidents = list(stored.notes)

    # ================================================================ rebuilding =============
    def _replay_event(self, ev: StoredEvent) -> None:
        d = ev.data
        if ev.kind in ("create", "join"):
            s = self.seats[d["seat"]]
            s.name, s.token_hash = displayable(str(d["name"])), d["token_hash"]
        elif ev.kind == "leave":
            s = self.seats[d["seat"]]
            s.name, s.token_hash = None, None
        elif ev.kind == "start":
            self._do_start(d)
        elif ev.kind == "action":
            assert self.game is not None
            a = Action.from_json(d["action"])
            self._apply(a)
        else:
            raise ValueError(f"unknown stored event kind {ev.kind!r}")
        self.version = ev.version

    def _do_start(self, d: dict[str, Any], game: Game | None = None,
                  bots: dict[int, Bot] | None = None) -> None:
        for key, level in d["bots"].items():
            s = self.seats[int(key)]
            s.kind, s.level, s.name = "bot", level, f"Bot {int(key) + 1}"
        self.bots = bots if bots is not None else self._make_bots(d["bots"])
        self.game = game if game is not None else self._new_game(d["bots"])
        self.match = Match(self.game, [self.bots.get(s) for s in range(self.game.n)])
        self.requests = self.match.requests
        self.status = "playing"

    def _new_game(self, bots: dict[str, str]) -> Game:
        """The game as dealt at the start; ``bots``: the seats the start gives to bots."""
        from ..cards import parse_card
        deals = [[parse_card(c) for c in deck] for deck in self.deals] if self.deals else None
        names = [f"Bot {s.seat + 1}" if str(s.seat) in bots else s.name or f"Seat {s.seat + 1}"
                 for s in self.seats]
        return Game(self.rules, names, seed=self.seed, deals=deals)

    def _make_bots(self, start_bots: dict[str, str]) -> dict[int, Bot]:
        """Every bot seat's bot at the start (``start_bots``: human seats the start gives to
        bots)."""
        out: dict[int, Bot] = {}
        for s in self.seats:
            level = start_bots.get(str(s.seat), s.level if s.kind == "bot" else None)
            if level:
                out[s.seat] = self._make_bot(level, s.seat)
        return out

    def _make_bot(self, level: str, seat: int) -> Bot:
        """A seat's bot: a command only from the host's own configuration, else a built-in
        level of the closed list. A level this server does not offer (stored by an older
        version, or a command the host no longer configures) is never run: the basic bot
        takes the seat, and the table's incidents say so."""
        spec = self.settings.bot_commands.get(level)
        if spec is not None:
            try:
                return make_bot(bot_spec(spec))
            except ValueError as e:
                self._note_incident(seat, level, "start", str(e))
                return BasicBot()
        bot = builtin_bot(level, self.settings.limits)
        if bot is None:
            self._note_incident(seat, level, "start", "this server does not offer this bot")
            return BasicBot()
        return bot

    def _note_incident(self, seat: int | None, bot: str, kind: str, message: str,
                       extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Remember a bot's incident (told to players and written to the store by the owner:
        ``_report_incidents``)."""
        note = {"seat": seat, "bot": bot[:80], "kind": kind, "message": message[:300],
                **(extra or {})}
        if note not in self.incidents:  # a table rebuilt again notes the same thing once
            self.incidents.append(note)
            self._unreported.append(note)
        return note

    def _collect_incidents(self, seat: int, bot: Bot) -> None:
        take = getattr(bot, "take_incidents", None)
        if take is None:
            return
        for inc in take():
            self._note_incident(seat, str(inc.get("name") or inc.get("bot") or "bot"),
                                str(inc.get("kind")), str(inc.get("message")),
                                {"decision": inc.get("decision"), "sent": inc.get("sent")})

    async def _report_incidents(self) -> None:
        """Tell what went wrong with a bot: a warning in the server's log, a line in the
        table's log for the players, a note in the store (the summary and record show it)."""
        while self._unreported:
            note = self._unreported.pop(0)
            seat = note["seat"]
            who = self.seats[seat].name if seat is not None else "a bot"
            log.warning("table %s: bot %s of seat %s: %s: %s", self.id, note["bot"], seat,
                        note["kind"], note["message"])
            instead = ("the basic bot played that move" if note.get("fallback") == "move"
                       else "the basic bot plays the seat for the rest of the game")
            text = f"{who}'s bot ({note['bot']}) failed ({note['kind']}: {note['message']}); " \
                   f"{instead}"
            self.log.append(text)
            notice = dumps({"type": "notice", "text": text})
            for c in self.conns:
                c.send_text(notice)
            try:
                await self.store.add_note(self.id, note)
            except StoreError as e:
                log.warning("table %s: the incident was not stored: %s", self.id, e)

    def _apply(self, a: Action, prepared: Callable[[], None] | None = None
               ) -> tuple[str, bool]:
        """Apply an action (checked: ``prepared`` by ``Game.prepare``); return its log line and
        whether it ended a hand."""
        assert self.game is not None
        text, ended = apply_narrated(self.game, a, prepared)
        self.log.append(text)
        return text, ended

    # ================================================================ the owner's loop ======
    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")
        if self.status == "playing":
            for s in self.seats:
                if s.kind == "human" and not s.conns:
                    self._start_grace(s)
            self.post(self._resume)

    async def _resume(self) -> None:
        await self._bot_events("game_start", "hand_start")
        await self._drive()

    def idle(self) -> bool:
        """A finished table nobody is looking at, with nothing left to do."""
        return (self.finished and self.sockets == 0 and not self.conns
                and self._queue.empty())

    @property
    def finished(self) -> bool:
        """Over, or closed before it started: nothing more happens at this table."""
        return self.status in ("over", "expired")

    def _tell_idle(self) -> None:
        if self.on_idle is not None and self.finished and self.sockets == 0:
            self.on_idle(self)

    def detach_socket(self) -> None:
        self.sockets -= 1
        self._tell_idle()

    async def stop(self) -> None:
        self.stopped = True
        for h in (self._bot_timer, self._turn_timer, self._buy_timer,
                  *(s.grace for s in self.seats)):
            if h is not None:
                h.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for c in list(self.conns):
            c.close()
        for b in self.bots.values():
            close_bot(b)

    def post(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Queue a change for the owner (fire and forget)."""
        self._queue.put_nowait((fn, args, None))

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Queue a change for the owner and wait for its result."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, args, fut))
        return await fut

    async def _run(self) -> None:
        while True:
            fn, args, fut = await self._queue.get()
            try:
                result = await fn(*args)
            except Exception as e:  # one bad command must not stop the table
                if fut is not None and not fut.done():
                    fut.set_exception(e)
                elif isinstance(e, StoreError):
                    # a bot's or a timer's move was refused by the database (nothing changed):
                    # the table tries again after a pause instead of stalling
                    log.warning("table %s: %s", self.id, e)
                    self._later(STORE_RETRY, self._retry)
                else:
                    log.exception("table %s: %s failed", self.id, getattr(fn, "__name__", fn))
                continue
            if fut is not None and not fut.done():
                fut.set_result(result)

    async def _retry(self) -> None:
        self._bot_key = None
        if self._turn_seat is not None and self._turn_timer is None:
            self._turn_seat = None  # a timed-out turn that failed: its clock starts again
        await self._drive()

    def _later(self, delay: float, fn: Callable[..., Awaitable[Any]], *args: Any
               ) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay), self.post, fn, *args)

    # ================================================================ summaries, views ======
    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "rules": self.preset, "overrides": self.overrides,
            # the rule set in force and its wild cards, so that no page merges or reads rules
            "knobs": self.rules.to_json(),
            "wild_cards": [card_str(c) for c in sorted(wild_cards(self.rules.deuces_wild))],
            "status": self.status, "version": self.version, "public": self.public,
            "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level,
                       "connected": s.kind == "bot" or bool(s.conns), "covered": s.covered}
                      for s in self.seats],
            "turn_timer": self.turn_timer, "buy_timer": self.buy_timer,
            "incidents": len(self.incidents),
            "created": datetime.fromtimestamp(self.created, UTC).isoformat().replace(
                "+00:00", "Z"),
        }

    def bot_controlled(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "bot" or s.covered

    def _public(self) -> SeatView:
        assert self.game is not None
        if self._public_cache is None or self._public_cache[0] != self.version:
            self._public_cache = (self.version, self.game.view_for(0))
        return self._public_cache[1]

    def _window(self) -> tuple[int, Game] | None:
        """In a call window: the seat that decides next if nobody calls, and the game as it
        will be then (the core's ``after_silence``)."""
        g = self.game
        if g is None or g.phase is not Phase.CALL:
            return None
        if self._window_cache is None or self._window_cache[0] != self.version:
            self._window_cache = (self.version, after_silence(g))
        sim = self._window_cache[1]
        who = sim.to_act()
        return (who[0], sim) if who else None

    def decision_seat(self) -> int | None:
        """The seat whose move the table is waiting for (not the seats asked in a buy round or
        a call window: the owner answers for them)."""
        g = self.game
        if g is None or g.over:
            return None
        if g.phase is Phase.CALL:
            w = self._window()
            return w[0] if w else None
        if g.phase is Phase.BUY:
            return None
        return g.to_act()[0]

    def _legal_for(self, seat: int | None) -> tuple[list[Action], Game | None]:
        g = self.game
        if g is None or seat is None or g.over:
            return [], None
        if g.phase is Phase.CALL:
            w = self._window()
            if w and w[0] == seat:
                return w[1].legal_actions(seat), w[1]
            return [], None
        if g.phase is Phase.BUY:
            return [], None
        return g.legal_actions(seat), g

    def _buy_window_open(self) -> bool:
        """Are buy intents taken now (a buyable discard, before the player on turn decides,
        and the buy timer has not closed the window)?"""
        g = self.game
        return (g is not None and g.phase is Phase.DRAW and self._window_closed_at != self.version
                and kind_now(g) == "buy")

    def intents_for(self, seat: int | None) -> list[str]:
        """What ``seat`` may announce now: the core's answer, while the window is open."""
        g = self.game
        if g is None or seat is None or g.over or self._window_closed_at == self.version:
            return []
        if g.phase is Phase.BUY:  # the round is being settled: it takes no new intents
            return []
        return list(g.request_kinds(seat))

    def _deadline(self) -> dict[str, Any] | None:
        now = asyncio.get_running_loop().time()
        if self._buy_deadline is not None and self._buy_key == self.version:
            seat = self.decision_seat()
            return {"seat": seat, "kind": "buy",
                    "ms_left": max(0, int((self._buy_deadline - now) * 1000))}
        if self._turn_deadline is not None and self._turn_seat is not None:
            return {"seat": self._turn_seat, "kind": "turn",
                    "ms_left": max(0, int((self._turn_deadline - now) * 1000))}
        return None

    def _view_json(self, seat: int | None) -> dict[str, Any] | None:
        g = self.game
        if g is None:
            return None
        if seat is None:
            v = self._public().to_json()
            v["seat"] = None
            v["hand"] = []
            return v
        return g.view_for(seat).to_json()

    def _update_text(self, seat: int | None, event: dict[str, Any]) -> str:
        """The ``update`` message for ``seat``, as text. The public part of the view is the
        same for every seat: it is encoded once per version and only the seat's own hand is
        added per seat (the view is still exactly ``view_for(seat)``)."""
        g = self.game
        assert g is not None
        if self._public_text is None or self._public_text[0] != self.version:
            pub = self._public().to_json()
            del pub["seat"], pub["hand"]
            self._public_text = (self.version, dumps(pub)[1:])
        if seat is None:
            head = '{"seat":null,"hand":[],'
        else:
            hand = [card_str(c) for c in g.view_for(seat).hand]
            head = f'{{"seat":{seat},"hand":{dumps(hand)},'
        legal, _ = self._legal_for(seat)
        return (f'{{"type":"update","version":{self.version},'
                f'"event":{dumps(self._event_for(seat, event))},'
                f'"view":{head}{self._public_text[1]},'
                f'"legal":{dumps([a.to_json() for a in legal])},'
                f'"intents":{dumps(self.intents_for(seat))},'
                f'"deadline":{dumps(self._deadline())}}}')

    def _state(self, seat: int | None) -> dict[str, Any]:
        legal, _ = self._legal_for(seat)
        return {"view": self._view_json(seat), "legal": [a.to_json() for a in legal],
                "intents": self.intents_for(seat), "deadline": self._deadline()}

    @staticmethod
    def _event_for(seat: int | None, ev: dict[str, Any]) -> dict[str, Any]:
        """The event as ``seat`` may see it: a cut's count stays with the cutter."""
        if ev["action"].get("type") == "cut" and ev["seat"] != seat:
            return {**ev, "action": {k: v for k, v in ev["action"].items() if k != "count"}}
        return ev

    def _sync_msg(self, seat: int | None) -> dict[str, Any]:
        return {"type": "sync", "version": self.version, "table": self.summary(),
                **self._state(seat), "log": list(self.log)}

    def _by_seat(self) -> dict[int | None, list[Conn]]:
        out: dict[int | None, list[Conn]] = {}
        for c in self.conns:
            out.setdefault(c.seat, []).append(c)
        return out

    def _broadcast(self, build: Callable[[int | None], dict[str, Any]],
                   skip: Conn | None = None) -> None:
        for seat, conns in self._by_seat().items():
            text = dumps(build(seat))
            for c in conns:
                if c is not skip:
                    c.send_text(text)

    def _broadcast_text(self, build: Callable[[int | None], str]) -> None:
        for seat, conns in self._by_seat().items():
            text = build(seat)
            for c in conns:
                c.send_text(text)

    def _broadcast_lobby(self, skip: Conn | None = None) -> None:
        text = dumps({"type": "lobby", "version": self.version, "table": self.summary()})
        for c in self.conns:
            if c is not skip:
                c.send_text(text)

    def _requests_msg(self, seat: int | None) -> dict[str, Any]:
        """The intents announced so far, and what ``seat`` may announce now with the clock
        that runs (they change together: a window that closes takes no more intents)."""
        return {"type": "requests", "buy": self.requests.seats("buy"),
                "call": self.requests.seats("call"), "intents": self.intents_for(seat),
                "deadline": self._deadline()}

    def _announced(self) -> tuple[list[int], list[int]]:
        return self.requests.seats("buy"), self.requests.seats("call")

    # ================================================================ lobby (HTTP) ==========
    @staticmethod
    async def create(store: Store, settings: Settings, table_id: str, config: dict[str, Any],
                     host_name: str) -> tuple[TableOwner, str]:
        token = new_token()
        stored = StoredTable(table_id, time.time(), "open", config, [StoredEvent(
            0, "create", {"seat": 0, "name": host_name, "token_hash": hash_token(token)})])
        await store.create_table(stored)
        owner = TableOwner(stored, store, settings)
        owner.held.append(Held(0, "lobby", table=owner.summary()))
        return owner, token

    @staticmethod
    def check_config(config: dict[str, Any]) -> None:
        """Raise ``ValueError`` if a game could not be started from this configuration."""
        rules = RuleSet.preset(config["rules"], config["overrides"])
        deals = config.get("deals")
        parsed = None
        if deals is not None:
            if not isinstance(deals, list) or not all(isinstance(d, list) for d in deals):
                raise ValueError("deals must be a list of whole packs (lists of cards)")
            from ..cards import parse_card
            parsed = [[parse_card(c) for c in deck] for deck in deals]
        Game(rules, len(config["seats"]), seed=config["seed"], deals=parsed)

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats if s.name}
        if name not in taken:
            return name
        k = 2
        while f"{name} ({k})" in taken:
            k += 1
        return f"{name} ({k})"

    def share_url(self, base: str) -> str:
        """The link that lets a friend join (the secret after ``#``: browsers never send it)."""
        tail = f"#join={self.join_secret}" if self.join_secret and not self.public else ""
        return f"{base}/t/{self.id}{tail}"

    def _check_open(self) -> None:
        if self.status == "expired":
            raise ApiError(410, "expired", "this table was not started in time and has closed")
        if self.status != "open":
            raise ApiError(409, "started", "the game has already started")

    async def join(self, nickname: str, secret: str | None = None) -> dict[str, Any]:
        self._check_open()
        if not self.public and not (secret is not None and self.join_secret is not None
                                    and hmac.compare_digest(secret, self.join_secret)):
            raise ApiError(403, "bad_secret", "this table is private: join it with the link "
                                              "the host shared")
        free = [s for s in self.seats if s.kind == "human" and s.name is None]
        if not free:
            raise ApiError(409, "full", "every human seat is taken")
        s = free[0]
        token = new_token()
        name = self._unique_name(nickname)
        ev = StoredEvent(self.version + 1, "join",
                         {"seat": s.seat, "name": name, "token_hash": hash_token(token)})
        await self.store.append(self.id, ev)
        self._replay_event(ev)
        self.held.append(Held(self.version, "lobby", table=self.summary()))
        self._broadcast_lobby()
        return {"seat": s.seat, "token": token}

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        return None

    async def remove(self, token: str, seat: int) -> dict[str, Any]:
        """Before the start: the host removes another player, or a player leaves. The seat is
        free again and the token it had no longer works."""
        who = self.seat_of(token)
        if who is None:
            raise ApiError(403, "bad_token", "this token holds no seat at this table")
        self._check_open()
        if who != 0 and who != seat:
            raise ApiError(403, "bad_token", "only the host may remove another player")
        if seat == 0:
            raise ApiError(400, "bad_request", "the host cannot leave the table before the "
                                               "start", "seat")
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind != "human" \
                or self.seats[seat].name is None:
            raise ApiError(409, "not_taken", f"seat {seat} holds no player", "seat")
        ev = StoredEvent(self.version + 1, "leave", {"seat": seat})
        await self.store.append(self.id, ev)
        gone = list(self.seats[seat].conns)
        self._replay_event(ev)
        for c in gone:
            c.error("removed", "you left the table" if who == seat
                    else "the host removed you from the table")
            self._detach(c)
            c.close(4001, "removed")
        self.seats[seat].conns.clear()
        self.held.append(Held(self.version, "lobby", table=self.summary()))
        self._broadcast_lobby()
        return self.summary()

    async def expire(self) -> bool:
        """A table nobody started in time closes; True if it did."""
        if self.status != "open":
            return False
        try:
            await self.store.set_status(self.id, "expired")
        except StoreError as e:
            log.warning("table %s: could not expire: %s", self.id, e)
            return False
        self.status = "expired"
        self._broadcast_lobby()
        for c in list(self.conns):
            c.close(4410, "expired")
        return True

    async def start_game(self, token: str) -> dict[str, Any]:
        if self.seat_of(token) != 0:
            raise ApiError(403, "bad_token", "only the host (seat 1, who created the table) "
                                             "may start the game")
        self._check_open()
        bots = {str(s.seat): "basic" for s in self.seats if s.kind == "human" and s.name is None}
        game = await asyncio.to_thread(self._new_game, bots)  # never a deal on the event loop
        made = await asyncio.to_thread(self._make_bots, bots)  # the bots exist before the start
        ev = StoredEvent(self.version + 1, "start", {"bots": bots})
        await self.store.append(self.id, ev, status="playing")
        self._do_start(ev.data, game, made)
        self.version = ev.version
        self.held.append(Held(self.version, "start"))
        for s in self.seats:
            if s.kind == "human" and not s.conns:
                self._start_grace(s)
        await self._bot_events("game_start", "hand_start")
        self._broadcast_lobby()
        self._schedule()  # the clocks run from the deal: the syncs carry them
        self._broadcast(self._sync_msg)
        await self._drive()
        return self.summary()

    async def _bot_events(self, *kinds: str) -> None:
        """Tell the bots that listen (external ones) of the game's start, hands and end.
        Built-in bots don't listen; an external one may be slow to answer: in a thread."""
        g = self.game
        if g is None:
            return
        from ..events import (
            game_end_event,
            game_start_event,
            hand_end_event,
            hand_start_event,
        )
        for seat, b in self.bots.items():
            if not callable(getattr(b, "event", None)):
                continue
            for kind in kinds:
                if kind == "game_start":
                    ev = game_start_event(g, seat)
                elif kind == "hand_start":
                    ev = hand_start_event(g)
                elif kind == "hand_end":
                    ev = hand_end_event(g)
                else:
                    ev = game_end_event(g)
                try:
                    await self._think(bot_event, b, ev)
                except Exception:
                    log.exception("table %s: the bot of seat %d failed an event", self.id, seat)
                self._collect_incidents(seat, b)
        await self._report_incidents()

    # ================================================================ websocket messages =====
    async def on_hello(self, conn: Conn, token: str | None, version: int) -> None:
        seat: int | None = None
        if token is not None:
            seat = self.seat_of(token)
            if seat is None:
                conn.error("bad_token", "this token holds no seat at this table")
                return
        if conn.hello:
            self._detach(conn)
        conn.seat, conn.hello = seat, True
        self.conns.add(conn)
        changed = False
        if seat is not None:
            s = self.seats[seat]
            if not s.conns:
                changed = True
            s.conns.add(conn)
            if s.grace is not None:
                s.grace.cancel()
                s.grace = None
            if s.covered:
                s.covered = False
                changed = True
        secret = None if seat is None else self.join_secret
        conn.send({"type": "welcome", "seat": seat, "table": self.summary(),
                   "join_secret": secret,
                   "share_url": None if seat is None else self.share_url(conn.link_base)})
        self._catch_up(conn, version)
        if any(self._announced()):
            conn.send(self._requests_msg(conn.seat))
        if changed:
            self._broadcast_lobby(skip=conn)
            self._schedule()

    def _catch_up(self, conn: Conn, version: int) -> None:
        if version == self.version:
            return
        missed = [h for h in self.held if h.version > version]
        whole = (0 <= version < self.version and len(missed) == self.version - version
                 and not any(h.kind == "start" for h in missed))
        if not whole:
            conn.send(self._sync_msg(conn.seat))
            return
        last_action = max((i for i, h in enumerate(missed) if h.kind == "action"), default=-1)
        for i, h in enumerate(missed):
            if h.kind == "lobby":
                conn.send({"type": "lobby", "version": h.version, "table": h.table})
                continue
            assert h.event is not None
            msg: dict[str, Any] = {"type": "update", "version": h.version,
                                   "event": self._event_for(conn.seat, h.event)}
            if i == last_action:
                msg.update(self._state(conn.seat))
            else:
                msg.update({"view": None, "legal": [], "intents": [], "deadline": None})
            conn.send(msg)

    def _detach(self, conn: Conn) -> bool:
        """Forget a connection; True if its seat has no connection left."""
        self.conns.discard(conn)
        if conn.seat is None:
            return False
        s = self.seats[conn.seat]
        s.conns.discard(conn)
        return not s.conns

    async def on_close(self, conn: Conn) -> None:
        if not conn.hello:
            return
        conn.hello = False
        if self._detach(conn) and conn.seat is not None:
            s = self.seats[conn.seat]
            if self.status == "playing" and s.kind == "human":
                self._start_grace(s)
            self._broadcast_lobby()

    def _start_grace(self, s: SeatState) -> None:
        if s.grace is not None or s.covered:
            return
        s.grace = self._later(self.settings.grace, self._cover, s.seat)

    async def _cover(self, seat: int) -> None:
        s = self.seats[seat]
        s.grace = None
        if s.conns or s.covered or self.status != "playing":
            return
        s.covered = True
        self._broadcast_lobby()
        await self._drive()

    def _check_player(self, conn: Conn) -> int | None:
        """The seat a connection may act for, or None after sending the reason."""
        if not conn.hello:
            conn.error("no_hello", "send hello first")
            return None
        if conn.seat is None:
            conn.error("spectator", "spectators cannot act; join the table to play")
            return None
        if self.game is None:
            conn.error("not_started", "the game has not started yet")
            return None
        if self.game.over:
            conn.error("game_over", "the game is over")
            return None
        return conn.seat

    async def on_action(self, conn: Conn, version: int, obj: dict[str, Any]) -> None:
        seat = self._check_player(conn)
        if seat is None:
            return
        g = self.game
        assert g is not None
        if "player" not in obj:
            obj = {**obj, "player": seat}
        try:
            a = Action.from_json(obj)
        except ActionFormatError as e:
            conn.error("bad_message", f"not an action: {e}")
            return
        if a.player != seat:
            conn.error("bad_token", f"your token is for seat {seat}, not seat {a.player}")
            return
        if version != self.version:
            conn.error("stale_version", f"the table is at version {self.version}, not "
                                        f"{version}: update first")
            return
        if seat != self.decision_seat():
            who = self.decision_seat()
            waiting = g.players[who] if who is not None else "the table"
            conn.error("not_your_turn", f"it is not your move: waiting for {waiting}")
            return
        if a.type in ("go_down", "borrow"):  # people pick cards, the core puts them in order
            _, board = self._legal_for(seat)
            if board is not None:
                a = board.arranged(a)
        try:
            if g.phase is Phase.CALL:
                # checked on the table as it will be once the window closes, so that an illegal
                # move leaves the window open; then the window is settled first
                _, board = self._legal_for(seat)
                assert board is not None
                reason = board.why_illegal(a)
                if reason is not None:
                    conn.error("illegal", reason)
                    return
                await self._close_window()
                called = self.decision_seat() != seat
                if not called:
                    try:
                        await self._commit(a)
                    except IllegalActionError:  # a call changed the table under the move
                        called = True
                if called:
                    conn.error("not_your_turn", "a call was made first; nothing was played "
                                                "for you")
                await self._drive()
                return
            await self._commit(a)
        except IllegalActionError as e:
            conn.error("illegal", str(e))
            return
        except StoreError as e:
            # the database's own words stay in the log: they may quote other tables' rows
            log.warning("table %s: %s", self.id, e)
            conn.error("storage", "the database did not store your move, so it was not "
                                  "played; try again")
            self._schedule()
            return
        await self._drive()

    async def on_intent(self, conn: Conn, kind: str, on: bool) -> None:
        seat = self._check_player(conn)
        if seat is None:
            return
        g = self.game
        assert g is not None
        before = self._announced()
        if on:
            if kind not in self.intents_for(seat):
                what = "buy the discard" if kind == "buy" else "call the discard"
                why = ("the time to ask has run out" if self._window_closed_at == self.version
                       else g.why_no_request(seat) if kind == kind_now(g)
                       else f"there is no discard to {kind} now")
                conn.error("illegal", f"you cannot ask to {what} now: {why or 'not now'}")
                return
            if seat not in self.requests.seats("buy" if kind == "buy" else "call"):
                self.requests.ask(g, seat)
        elif seat in self.requests.seats("buy" if kind == "buy" else "call"):
            self.requests.withdraw(g, seat)
        if self._announced() != before:
            self._broadcast(self._requests_msg)

    async def on_hint(self, conn: Conn) -> None:
        seat = self._check_player(conn)
        if seat is None:
            return
        legal, board = self._legal_for(seat)
        if not legal or board is None:
            conn.error("not_your_turn", "no decision is waiting for you")
            return
        action, reason = await self._think(hint, board.view_for(seat), legal)
        conn.send({"type": "hint", "version": self.version, "action": action.to_json(),
                   "reason": reason})

    # ================================================================ applying moves =========
    async def _commit(self, a: Action) -> None:
        """Store, apply and broadcast one legal action."""
        g = self.game
        assert g is not None
        prepared = g.prepare(a)  # the one check: IllegalActionError before anything is stored
        ev = StoredEvent(self.version + 1, "action", {"action": a.to_json()})
        await self.store.append(self.id, ev)
        text, hand_ended = self._apply(a, prepared)
        self.version = ev.version
        event = {"seat": a.player, "action": a.to_json(), "text": text}
        self.held.append(Held(self.version, "action", event=event))
        self._schedule()  # first: a requests message sent now carries the new clock
        if self.requests.sync(g):  # a window ended: its requests are gone, everyone is told
            self._broadcast(self._requests_msg)
        if g.over:  # before the broadcast: a client told the game is over may ask for the record
            self.status = "over"
        self._broadcast_text(lambda seat: self._update_text(seat, event))
        if hand_ended:
            await self._bot_events("hand_end", "game_end" if g.over else "hand_start")
        if g.over:
            for b in self.bots.values():
                await self._think(close_bot, b)
            try:
                await self.store.set_status(self.id, "over")
            except StoreError as e:  # the events are the truth: a reload finds it over
                log.warning("table %s: the status was not written: %s", self.id, e)
            self._broadcast_lobby()
            self._tell_idle()

    async def _choose(self, seat: int, bot: Bot | None = None) -> Action:
        """A bot's move for ``seat`` (thought out in the bots' pool: an expert or external bot
        may think long), through the match driver: its generator, and the basic bot's move
        instead of one that raised or was illegal (an incident says so)."""
        assert self.match is not None
        move = self.match.prepare(seat, bot or self.bots.get(seat) or self.cover_bot)
        a = self.match.accept(move, await self._think(move.decide))
        for inc in self.match.take_incidents():
            self._note_incident(inc["seat"], str(inc.get("bot") or inc.get("name") or "bot"),
                                str(inc.get("kind")), str(inc.get("message")),
                                {"decision": inc.get("decision"), "sent": inc.get("sent"),
                                 "fallback": inc.get("fallback", "game")})
        await self._report_incidents()
        return a

    async def _think(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Bot work (a choice, a hint, an event for an external bot) in the bots' pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.settings.pool(), fn, *args)

    async def _resolve_step(self) -> None:
        """One action of a buy round or call window, as the core settles it: a seat's intent,
        its bot's answer (asked here, in the bots' pool), or silence (a pass)."""
        g = self.game
        assert g is not None
        bots = [s for s in range(g.n) if self.bot_controlled(s)]
        while True:
            step = self.requests.next_step(g, answers=bots)
            if step is None:
                return
            if isinstance(step, int):
                self.requests.answer(g, step, await self._choose(step))
                continue
            await self._commit(step)
            return

    async def _close_window(self) -> None:
        g = self.game
        assert g is not None
        while g.phase is Phase.CALL:
            await self._resolve_step()

    async def _drive(self) -> None:
        """Answer what nobody needs to decide by hand, then set the timers for what is next."""
        g = self.game
        if g is None:
            return
        while not g.over:
            if g.phase is Phase.BUY:
                await self._resolve_step()
            elif g.phase is Phase.CALL and (self._window() is None or not any(
                    not self.bot_controlled(s) for s in self._public().asked)):
                await self._resolve_step()  # no person could call: close at once
            else:
                break
        self._schedule()

    def _schedule(self) -> None:
        g = self.game
        if g is None or g.over:
            self._cancel_timers()
            return
        seat = self.decision_seat()
        # a bot's (or a covered seat's) move after its think time
        key = (self.version, -1 if seat is None else seat)
        if seat is not None and self.bot_controlled(seat):
            if self._bot_key != key:
                if self._bot_timer is not None:
                    self._bot_timer.cancel()
                self._bot_key = key
                self._bot_timer = self._later(self.settings.bot_think, self._bot_move, seat,
                                              self.version)
        elif self._bot_timer is not None:
            self._bot_timer.cancel()
            self._bot_timer, self._bot_key = None, None
        # the turn timer runs while one human seat keeps the decision
        human = seat if seat is not None and not self.bot_controlled(seat) else None
        if g.phase is not Phase.BUY and human != self._turn_seat:
            if self._turn_timer is not None:
                self._turn_timer.cancel()
            self._turn_timer, self._turn_deadline, self._turn_seat = None, None, human
            if human is not None and self.turn_timer:
                loop = asyncio.get_running_loop()
                self._turn_deadline = loop.time() + self.turn_timer
                self._turn_timer = self._later(self.turn_timer, self._turn_timeout, human,
                                               self._turn_deadline)
        # the buy timer: how long intents are taken after a discard
        window = self._buy_window_open() or g.phase is Phase.CALL
        if window and self.buy_timer and self._buy_key != self.version \
                and self._window_closed_at != self.version:
            if self._buy_timer is not None:
                self._buy_timer.cancel()
            self._buy_key = self.version
            self._buy_deadline = asyncio.get_running_loop().time() + self.buy_timer
            self._buy_timer = self._later(self.buy_timer, self._buy_timeout, self.version)
        elif not window and self._buy_timer is not None:
            self._buy_timer.cancel()
            self._buy_timer, self._buy_key, self._buy_deadline = None, None, None

    def _cancel_timers(self) -> None:
        for h in (self._bot_timer, self._turn_timer, self._buy_timer):
            if h is not None:
                h.cancel()
        self._bot_timer = self._turn_timer = self._buy_timer = None
        self._bot_key = self._buy_key = None
        self._turn_seat = None
        self._turn_deadline = self._buy_deadline = None

    async def _bot_move(self, seat: int, version: int) -> None:
        if self.version != version or self.decision_seat() != seat \
                or not self.bot_controlled(seat):
            return
        self._bot_key = None
        g = self.game
        assert g is not None
        if g.phase is Phase.CALL:
            await self._close_window()
        if not g.over and seat in g.to_act() and g.phase is not Phase.BUY:
            await self._commit(await self._choose(seat))
        await self._drive()

    async def _turn_timeout(self, seat: int, deadline: float) -> None:
        if self._turn_seat != seat or self._turn_deadline != deadline:
            return
        g = self.game
        assert g is not None
        self._turn_timer = None
        steps = 0
        # the basic bot finishes the seat's move (its whole turn, if it is the player on turn)
        while not g.over and self.decision_seat() == seat and steps < MAX_BOT_STEPS:
            if g.phase is Phase.CALL:
                await self._close_window()
                continue
            await self._commit(await self._choose(seat, self.cover_bot))
            steps += 1
            while g.phase is Phase.BUY:
                await self._resolve_step()
        self._turn_seat = None
        self._turn_deadline = None
        await self._drive()

    async def _buy_timeout(self, version: int) -> None:
        if self.version != version:
            return
        self._buy_timer, self._buy_deadline = None, None
        self._window_closed_at = version
        g = self.game
        assert g is not None
        if g.phase is Phase.CALL:
            await self._close_window()
            await self._drive()
            return
        # the buy window closes: the intents announced stand and are resolved when the player
        # draws; new ones are refused (intents_for is empty from now on). Everyone is told,
        # with the clock that now runs (the turn timer of the player deciding, if any).
        self._broadcast(self._requests_msg)

    # ================================================================ records ===============
    def record(self) -> dict[str, Any]:
        """The game's record, with the bots' incidents when there were any."""
        assert self.game is not None
        rec = game_record(self.game)
        if self.incidents:
            rec["incidents"] = list(self.incidents)
        return rec
