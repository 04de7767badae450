"""A web table's state and what each seat is shown: the base of the table's owner.

Domain words: *table* (a lobby, then a game), *version* (the table's event counter), *held
events* (the last 200, replayed to a client that reconnects), *intent* (a real-time request to
buy or call the current discard: a ``Requests`` request of the core, liverpool.outofturn),
*window* (while the next player decides, intents are collected), *decision seat* (the seat whose
move the table waits for), *bot-controlled* (a bot seat or a covered one).

Every change goes through the owner's queue, one at a time, so game state needs no locks: this
module holds the queue (``post``, ``call``) and what every part of the owner reads (the table's
summary, each seat's view, legal moves, intents and clock, the messages that carry them). The
game is driven on top of it (liverpool.web.tableplay), and the lobby and websocket messages on
top of that (liverpool.web.table).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Generic, Self, TypeVar

from ..actions import Action
from ..bots import Bot, close_bot, make_bot
from ..cards import card_str, sorted_cards, wild_cards
from ..engine import Game, Phase, SeatView
from ..match import Match
from ..outofturn import Requests, after_silence, kind_now
from ..record import game_record
from ..rules import RuleSet
from ..rulestext import rules_sheet
from .limits import bot_name, displayable
from .seats import Conn, Held, SeatState, Settings, dumps, dumps_plain
from .store import Store, StoredTable

T = TypeVar("T")

HELD_EVENTS = 200
LOG_LINES = 100


class SeatMemo(Generic[T]):
    """Each seat's value worked out once a table version: ``at(version)`` is the dict of that
    version's values, a new one when the version has moved on (a caller still holding the old
    one, across an await, writes where nobody reads)."""

    def __init__(self) -> None:
        self.version = -2
        self.known: dict[int, T] = {}

    def at(self, version: int) -> dict[int, T]:
        if version != self.version:
            self.version, self.known = version, {}
        return self.known


class TableState:
    """A table's state, the owner's queue, and what each seat is shown."""

    def __init__(self, stored: StoredTable, store: Store, settings: Settings) -> None:
        cfg = stored.config
        self.id = stored.id
        self.created = stored.created
        self.status = "expired" if stored.status == "expired" else "open"
        self.public: bool = bool(cfg.get("public", "join_secret" not in cfg))
        self.join_secret: str | None = cfg.get("join_secret")  # a removal changes it
        self.removed: set[str] = set()  # client marks of players the host removed
        # who created it: the marks (seats.client_mark) of its address and of that address's
        # network (guard.network_key), stored with the table (none in tables of old versions)
        self.creator: str | None = None
        self.network: str | None = None
        # since when no seated person has been connected (None: somebody is): a table
        # waiting to start that nobody sits at expires in minutes (capacity.py)
        self.unattended_since: float | None = time.time()
        # a game nobody watches (no connection at all) sleeps after a while: its bots and
        # clocks stop until somebody connects, and it leaves its place among the games in play
        self.unwatched_since: float | None = None
        self.asleep = False
        self.store = store
        self.settings = settings
        self.preset: str = cfg["rules"]
        self.overrides: dict[str, Any] = cfg.get("overrides") or {}
        self.rules = RuleSet.preset(self.preset, self.overrides)
        # the rule set in force, its sheet and its wild cards, worked out once (the table page
        # shows them, so that no page merges a preset with overrides or words a rule itself)
        self._rules_words: dict[str, Any] = {
            "knobs": self.rules.to_json(),
            "rules_sheet": [[heading, lines] for heading, lines in rules_sheet(self.rules)],
            "wild_cards": [card_str(c) for c in sorted(wild_cards(self.rules.deuces_wild))]}
        self.seed: int = cfg["seed"]
        self.deals: list[list[str]] | None = cfg.get("deals")
        self.turn_timer: float | None = cfg.get("turn_timer")
        self.buy_timer: float | None = cfg.get("buy_timer")
        # how long the bots wait for people to ask for a discard, and how long the end-of-hand
        # screen stays before the next hand (the table's choice, else the server's)
        window, pause = cfg.get("buy_window"), cfg.get("hand_pause")
        self.buy_window: float = settings.buy_window if window is None else float(window)
        self.hand_pause: float = settings.hand_pause if pause is None else float(pause)
        self.seats = [SeatState(i, s["kind"], displayable(str(s["level"])) if s.get("level")
                                else None,
                                bot_name(i) if s["kind"] == "bot" else None)
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
        # when the open window ends and when the bot waited for is due to move, each set once
        # (for a version; for a version and seat): nothing a client sends moves them
        self._window_due: tuple[int, float] | None = None
        self._bot_due: tuple[tuple[int, int], float] | None = None
        # each seat's changes of its intents in the window of one version (at most
        # MAX_INTENT_CHANGES)
        self._intent_changes: SeatMemo[int] = SeatMemo()
        # the end-of-hand pause: when it ends, and the people who said they are ready
        self._pause_deadline: float | None = None
        self._pause_timer: asyncio.TimerHandle | None = None
        self._ready: set[int] = set()
        self._window_cache: tuple[int, Game] | None = None
        # each seat's legal moves at one version: listing them can cost a good part of a second
        # (a big hand under wide rules), and a hello or a hint must not make the loop pay again
        self._legal_memo: SeatMemo[tuple[list[Action], Game | None]] = SeatMemo()
        # each seat's hint (action, reason) at one version (table.py)
        self._hints: SeatMemo[tuple[Action, str]] = SeatMemo()
        self._public_cache: tuple[int, SeatView] | None = None
        # each seat's hand as an update lists it, with the cards it was made from: a hand that
        # did not change (every seat but the one that moved) is not sorted and encoded again
        self._hand_text: dict[int, tuple[tuple[bool, tuple[int, ...]], str]] = {}
        self._public_text: tuple[int, str] | None = None
        # websockets holding this owner (counted from the moment they got it, before their
        # hello): a finished table is evicted from memory only when none is left
        self.sockets = 0
        self.on_idle: Callable[[Self], None] | None = None  # set by the registry
        self.stopped = False

    # ================================================================ the owner's queue =====
    def idle(self) -> bool:
        """A finished table nobody is looking at, with nothing left to do."""
        return (self.finished and self.sockets == 0 and not self.conns
                and self._queue.empty())

    @property
    def finished(self) -> bool:
        """Over, or closed before it started: nothing more happens at this table."""
        return self.status in ("over", "expired")

    def _tell_idle(self: Self) -> None:
        if self.on_idle is not None and self.finished and self.sockets == 0:
            self.on_idle(self)

    def detach_socket(self) -> None:
        self.sockets -= 1
        self._tell_idle()

    async def stop(self) -> None:
        self.stopped = True
        for h in (self._bot_timer, self._turn_timer, self._buy_timer, self._pause_timer,
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

    def _later(self, delay: float, fn: Callable[..., Awaitable[Any]], *args: Any
               ) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay), self.post, fn, *args)

    # ================================================================ summaries, views ======
    def summary(self, full: bool = True) -> dict[str, Any]:
        """The table as clients see it; ``full`` adds the rule set in force, its rules sheet
        and its wild cards (the table page needs them, a list of tables does not)."""
        rules = self._rules_words if full else {}
        return {
            "id": self.id, "rules": self.preset, "overrides": self.overrides, **rules,
            "status": self.status, "version": self.version, "public": self.public,
            "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level,
                       "connected": s.kind == "bot" or bool(s.conns), "covered": s.covered}
                      for s in self.seats],
            "turn_timer": self.turn_timer, "buy_timer": self.buy_timer,
            "buy_window": self.buy_window, "hand_pause": self.hand_pause,
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
        will be then (the core's ``after_silence``). None when silence would end the hand or
        the game: the simulation has then dealt the next hand from the game's generator, and
        nothing of that deal (a seat's cards, the upcard) may be shown as a move or a hint
        before the real deal; nobody in this hand decides after such a window."""
        g = self.game
        if g is None or g.phase is not Phase.CALL:
            return None
        if self._window_cache is None or self._window_cache[0] != self.version:
            self._window_cache = (self.version, after_silence(g))
        sim = self._window_cache[1]
        if sim.over or sim.hand_index != g.hand_index:
            return None
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
        """``seat``'s legal moves now and the game they apply to, worked out once a version."""
        if seat is None:
            return [], None
        known = self._legal_memo.at(self.version)
        got = known.get(seat)
        if got is None:
            got = known[seat] = self._list_legal(seat)
        return got

    def _list_legal(self, seat: int) -> tuple[list[Action], Game | None]:
        g = self.game
        if g is None or g.over:
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

    def people_waiting(self) -> list[int]:
        """The people who may still ask for the discard in the open window and have said
        nothing yet (no request, no "no thanks"): a bot's move waits for them, up to the
        table's buy window."""
        g = self.game
        if g is None or g.over or self.buy_window <= 0:
            return []
        return [s.seat for s in self.seats
                if not self.bot_controlled(s.seat) and s.conns and self.intents_for(s.seat)
                and s.seat not in self.requests.wanted and s.seat not in self.requests.declined]

    @property
    def paused(self) -> bool:
        return self._pause_deadline is not None

    def _pause_json(self) -> dict[str, Any] | None:
        """The end-of-hand pause as clients see it: who is ready, who is awaited, time left."""
        if self._pause_deadline is None:
            return None
        now = asyncio.get_running_loop().time()
        return {"kind": "hand_end", "ms_left": max(0, int((self._pause_deadline - now) * 1000)),
                "ready": sorted(self._ready), "waiting": self._awaited()}

    def _awaited(self) -> list[int]:
        """The connected people the end-of-hand pause waits for."""
        return [s.seat for s in self.seats
                if s.kind == "human" and not s.covered and s.conns and s.seat not in self._ready]

    def _deadline(self) -> dict[str, Any] | None:
        # the clock is read only for a deadline that runs: under Python 3.11 each look-up of
        # the running loop is a system call (getpid), and this is built for every update
        if self._buy_deadline is not None and self._buy_key == self.version:
            now = asyncio.get_running_loop().time()
            g = self.game
            kind = "call" if g is not None and g.phase is Phase.CALL else "buy"
            return {"seat": self.decision_seat(), "kind": kind,
                    "ms_left": max(0, int((self._buy_deadline - now) * 1000))}
        if self._turn_deadline is not None and self._turn_seat is not None:
            now = asyncio.get_running_loop().time()
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

    def _update_shared(self, event: dict[str, Any]) -> tuple[str, str, str, str]:
        """What an ``update`` message for ``event`` says to every seat, as text: its start, the
        event, the public part of the view and its end (the clocks), each encoded once per
        broadcast (the public view once per version)."""
        if self._public_text is None or self._public_text[0] != self.version:
            pub = self._public().to_json()
            del pub["seat"], pub["hand"]
            self._public_text = (self.version, dumps_plain(pub)[1:])
        return (f'{{"type":"update","version":{self.version},"event":', dumps(event),
                self._public_text[1],
                f',"deadline":{dumps(self._deadline())},"pause":{dumps(self._pause_json())}}}')

    def _update_text(self, seat: int | None, event: dict[str, Any],
                     shared: tuple[str, str, str, str] | None = None) -> str:
        """The ``update`` message for ``seat``, as text. The public part of the view is the
        same for every seat: it is encoded once per version and only the seat's own hand is
        added per seat (the view is still exactly ``view_for(seat)``); ``shared`` is what
        ``_update_shared`` gave for ``event``, when one broadcast builds several seats'."""
        g = self.game
        assert g is not None
        start, event_text, public, end = shared or self._update_shared(event)
        if event["action"].get("type") == "cut" and event["seat"] != seat:
            event_text = dumps(self._event_for(seat, event))
        if seat is None:
            head = '{"seat":null,"hand":[],'
        else:
            # the seat's hand as its view lists it (``view_for(seat).hand``), without the view
            key = (g.rules.deuces_wild, tuple(g.hands[seat]))
            known = self._hand_text.get(seat)
            if known is None or known[0] != key:
                hand = [card_str(c) for c in sorted_cards(key[1], key[0])]
                known = self._hand_text[seat] = (key, dumps_plain(hand))
            head = f'{{"seat":{seat},"hand":{known[1]},'
        legal, _ = self._legal_for(seat)
        intents = self.intents_for(seat)
        return (f'{start}{event_text},"view":{head}{public},'
                f'"legal":{dumps_plain([a.to_json() for a in legal]) if legal else "[]"},'
                f'"intents":{dumps_plain(intents) if intents else "[]"}{end}')

    def _broadcast_update(self, event: dict[str, Any]) -> None:
        """Send the ``update`` for ``event``: built once per seat (its connections share the
        text), the parts every seat sees built once."""
        by_seat = self._by_seat()
        if not by_seat:
            return
        shared = self._update_shared(event)
        for seat, conns in by_seat.items():
            text = self._update_text(seat, event, shared)
            for c in conns:
                c.send_text(text)

    def _state(self, seat: int | None) -> dict[str, Any]:
        legal, _ = self._legal_for(seat)
        return {"view": self._view_json(seat), "legal": [a.to_json() for a in legal],
                "intents": self.intents_for(seat), "deadline": self._deadline(),
                "pause": self._pause_json()}

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

    # ================================================================ records ===============
    def record(self) -> dict[str, Any]:
        """The game's record, with the bots' incidents when there were any."""
        assert self.game is not None
        rec = game_record(self.game)
        if self.incidents:
            rec["incidents"] = list(self.incidents)
        return rec
