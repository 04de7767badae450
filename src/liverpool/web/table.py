"""One table of the web server and its owner: the single asyncio task that changes it.

Domain words: *table* (a lobby, then a game), *owner* (``TableOwner``: the one sequential task
through whose queue every change goes, so game state needs no locks), *parts* (each with one
owner: the seats and connections, liverpool.web.seating; the stored log and what is held of it,
liverpool.web.tablelog; the clocks, liverpool.web.clocks; the game on the match driver,
liverpool.web.tablematch; the driver's policy, liverpool.web.tabledrive; the waits for people,
liverpool.web.tablewait; the messages,
liverpool.web.tablemsg; the lobby's changes, liverpool.web.tablelobby; the websocket messages,
liverpool.web.tableconn).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from ..actions import Action
from ..bots import close_bot
from ..cards import card_str, wild_cards
from ..engine import Game
from ..record import game_record, steps
from ..rules import RuleSet
from ..rulestext import rules_sheet
from .clocks import Clocks
from .seating import Seating
from .seats import Conn, Settings
from .store import Store, StoredTable, StoreError
from .tableconn import Handlers, handle
from .tabledrive import Driver
from .tablelobby import Lobby
from .tablelog import TableLog
from .tablematch import TableMatch
from .tablemsg import Messages
from .tablewait import Waits

log = logging.getLogger("liverpool.web")

STORE_RETRY = 2.0  # seconds before the table tries again a move the database refused

__all__ = ["TableOwner", "handle"]


class TableOwner:
    """The one sequential owner of a table, made of its parts."""

    def __init__(self, stored: StoredTable, store: Store, settings: Settings) -> None:
        cfg = stored.config
        self.id = stored.id
        self.created = stored.created
        self.status = "expired" if stored.status == "expired" else "open"
        self.store = store
        self.settings = settings
        self.preset: str = cfg["rules"]
        self.overrides: dict[str, Any] = cfg.get("overrides") or {}
        self.rules = RuleSet.preset(self.preset, self.overrides)
        # the rule set in force, its sheet and its wild cards, worked out once
        self._rules_words: dict[str, Any] = {
            "knobs": self.rules.to_json(),
            "rules_sheet": [[heading, lines] for heading, lines in rules_sheet(self.rules)],
            "wild_cards": [card_str(c) for c in sorted(wild_cards(self.rules.deuces_wild))]}
        self.seed: int = cfg["seed"]
        self.deals: list[list[str]] | None = cfg.get("deals")
        self.turn_timer: float | None = cfg.get("turn_timer")
        self.buy_timer: float | None = cfg.get("buy_timer")
        window, pause = cfg.get("buy_window"), cfg.get("hand_pause")
        self.buy_window: float = settings.buy_window if window is None else float(window)
        self.hand_pause: float = settings.hand_pause if pause is None else float(pause)
        self.seating = Seating(cfg)
        self.log = TableLog(stored.id, store, stored.notes)
        self.clocks = Clocks(self.post)
        self.play: TableMatch | None = None
        self.driver = Driver(self)
        self.waits = Waits(self)
        self.msg = Messages(self)
        self.lobby = Lobby(self)
        self.ws = Handlers(self)
        self.asleep = False
        # websockets holding this owner (counted from the moment they got it, before their
        # hello): a finished table is evicted from memory only when none is left
        self.sockets = 0
        self.on_idle: Callable[[TableOwner], None] | None = None  # set by the registry
        self.stopped = False
        self._queue: asyncio.Queue[tuple[Callable[..., Awaitable[Any]], tuple[Any, ...],
                                         asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._rebuild(stored)

    # ---- rebuilding from the store -------------------------------------------------------
    def _rebuild(self, stored: StoredTable) -> None:
        actions: list[Any] = []
        for ev in stored.events:
            if ev.kind == "action":
                actions.append(ev.data["action"])
            else:
                self.lobby.replay(ev)
            self.log.advance(ev.version)
        if self.play is None:
            return
        # the game's actions through the one record replayer of the core
        for step in steps(None, self.play.game, actions):
            if step.action is not None:
                self.log.played(step.events)
        self.play.requests.sync(self.play.game)
        if self.play.game.over:
            self.status = "over"
            self.log.forget_unreported(stored.notes)

    def begin(self, play: TableMatch) -> None:
        self.play = play
        self.status = "playing"

    # ---- what the parts share --------------------------------------------------------------
    @property
    def version(self) -> int:
        return self.log.version

    @property
    def game(self) -> Game | None:
        return None if self.play is None else self.play.game

    @property
    def bots(self) -> dict[int, Any]:
        return {} if self.play is None else self.play.bots

    @property
    def incidents(self) -> list[dict[str, Any]]:
        return self.log.incidents

    @property
    def conns(self) -> set[Conn]:
        return self.seating.conns

    @property
    def seats(self) -> list[Any]:
        return self.seating.seats

    @property
    def public(self) -> bool:
        return self.seating.public

    @property
    def join_secret(self) -> str | None:
        return self.seating.join_secret

    @property
    def creator(self) -> str | None:
        return self.seating.creator

    @property
    def network(self) -> str | None:
        return self.seating.network

    @property
    def unattended_since(self) -> float | None:
        return self.seating.unattended_since

    @property
    def unwatched_since(self) -> float | None:
        return self.seating.unwatched_since

    @property
    def paused(self) -> bool:
        return self.waits.paused

    def people_waiting(self) -> list[int]:
        return self.driver.people_waiting()

    def decision_seat(self) -> int | None:
        return None if self.play is None else self.play.decision_seat(self.version)

    def legal_for(self, seat: int | None) -> tuple[list[Action], Game | None]:
        return ([], None) if self.play is None else self.play.legal_for(seat, self.version)

    def intents_for(self, seat: int | None) -> list[str]:
        return [] if self.play is None else self.play.intents_for(seat, self.version)

    def summary(self, full: bool = True) -> dict[str, Any]:
        """The table as clients see it; ``full`` adds the rule set in force, its rules sheet
        and its wild cards (the table page needs them, a list of tables does not)."""
        rules = self._rules_words if full else {}
        return {
            "id": self.id, "rules": self.preset, "overrides": self.overrides, **rules,
            "status": self.status, "version": self.version, "public": self.public,
            "seats": self.seating.json(),
            "turn_timer": self.turn_timer, "buy_timer": self.buy_timer,
            "buy_window": self.buy_window, "hand_pause": self.hand_pause,
            "incidents": len(self.log.incidents),
            "created": datetime.fromtimestamp(self.created, UTC).isoformat().replace(
                "+00:00", "Z"),
        }

    def record(self) -> dict[str, Any]:
        """The game's record, with the bots' incidents when there were any."""
        assert self.play is not None
        rec = game_record(self.play.game)
        if self.log.incidents:
            rec["incidents"] = list(self.log.incidents)
        return rec

    async def report_incidents(self) -> None:
        names = [s.name for s in self.seating.seats]
        await self.log.report(names, self.seating.broadcast)

    async def finish(self) -> None:
        self.status = "over"
        try:
            await self.store.set_status(self.id, "over")
        except StoreError as e:  # the events are the truth: a reload finds it over
            log.warning("table %s: the status was not written: %s", self.id, e)

    # ---- the owner's queue -----------------------------------------------------------------
    def idle(self) -> bool:
        """A finished table nobody is looking at, with nothing left to do."""
        return (self.finished and self.sockets == 0 and not self.conns
                and self._queue.empty())

    @property
    def finished(self) -> bool:
        """Over, or closed before it started: nothing more happens at this table."""
        return self.status in ("over", "expired")

    def tell_idle(self) -> None:
        if self.on_idle is not None and self.finished and self.sockets == 0:
            self.on_idle(self)

    def detach_socket(self) -> None:
        self.sockets -= 1
        self.tell_idle()

    def post(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Queue a change for the owner (fire and forget)."""
        self._queue.put_nowait((fn, args, None))

    async def call(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Queue a change for the owner and wait for its result."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, args, fut))
        return await fut

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")
        if self.status == "playing":
            self.seating.unwatched_since = time.time()
            for s in self.seating.seats:
                if s.kind == "human" and not s.conns:
                    self.waits.start_grace(s.seat)
            self.post(self._resume)

    async def _resume(self) -> None:
        assert self.play is not None
        await self.driver.tell_bots([self.play.game.hand_started()], start=True)
        await self.driver.drive()

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
                    self.clocks.start("retry", None, self.clocks.now() + STORE_RETRY,
                                      self.driver.retry)
                else:
                    log.exception("table %s: %s failed", self.id, getattr(fn, "__name__", fn))
                continue
            if fut is not None and not fut.done():
                fut.set_result(result)

    async def stop(self) -> None:
        self.stopped = True
        self.clocks.stop_all()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for c in list(self.conns):
            c.close()
        for b in self.bots.values():
            close_bot(b)

    async def sleep(self) -> bool:
        """A game nobody has watched for a while stops: no bot moves, no clock runs, until
        somebody connects (a ``hello`` wakes it). True if it fell asleep now."""
        if self.status != "playing" or self.conns or self.asleep:
            return False
        self.asleep = True
        self.driver.stop_clocks()
        log.info("table %s sleeps: nobody has been connected to it", self.id)
        return True

    # ---- the lobby (HTTP), through its part ------------------------------------------------
    @staticmethod
    async def create(store: Store, settings: Settings, table_id: str, config: dict[str, Any],
                     host_name: str, creator: str | None = None, network: str | None = None
                     ) -> tuple[TableOwner, str]:
        return await Lobby.create(store, settings, table_id, config, host_name, creator,
                                  network)

    def share_url(self, base: str) -> str:
        return self.lobby.share_url(base)

    def seat_of(self, token: str | None) -> int | None:
        return self.seating.seat_of(token)

    async def join(self, nickname: str, secret: str | None = None,
                   client: str | None = None) -> dict[str, Any]:
        return await self.lobby.join(nickname, secret, client)

    async def remove(self, token: str, seat: int) -> dict[str, Any]:
        return await self.lobby.remove(token, seat)

    async def expire(self) -> bool:
        return await self.lobby.expire()

    async def start_game(self, token: str) -> dict[str, Any]:
        return await self.lobby.start_game(token)

    async def on_close(self, conn: Conn) -> None:
        await self.ws.on_close(conn)

