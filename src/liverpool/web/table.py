"""One table of the web server and its owner: the single asyncio task that changes it.

Domain words: *table* (a lobby, then a game), *owner* (``TableOwner``: the one sequential task
through whose queue every change goes, so game state needs no locks), *parts* (each with one
owner, each given the parts below it: the table's facts, liverpool.web.tablecore, with its seats,
log, clocks and game; its messages, liverpool.web.tablemsg; the end-of-hand pause,
liverpool.web.tablewait; the driver's policy, liverpool.web.tabledrive; the lobby's changes,
liverpool.web.tablelobby; the chat, liverpool.web.tablechat; the websocket messages,
liverpool.web.tableconn), *rebuild* (a
table read from the store: its lobby events, then its game through the core's one replayer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..actions import Action
from ..bots import close_bot
from ..engine import Game
from ..record import steps
from .clocks import Clocks
from .limits import secret_text
from .players import People
from .seating import Seating
from .seats import Conn, Held, Settings, dumps, hash_token, new_token
from .store import Store, StoredEvent, StoredTable, StoreError
from .tablechat import REACTIONS, TableChat
from .tableconn import Handlers
from .tablecore import TableCore
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
        self.core = TableCore(stored, store, settings, self.post)
        self.msg = Messages(self.core)
        self.waits = Waits(self.core, self.msg)
        self.driver = Driver(self.core, self.msg, self.waits)
        self.lobby = Lobby(self.core, self.msg, self.driver)
        self.chat = TableChat(self.core)
        self.ws = Handlers(self.core, self.msg, self.driver, self.lobby, self.chat)
        self.on_idle: Callable[[TableOwner], None] | None = None  # set by the registry
        self.core.idle_hook = self._idle
        self.stopped = False
        self._queue: asyncio.Queue[tuple[Callable[..., Awaitable[Any]], tuple[Any, ...],
                                         asyncio.Future[Any] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._rebuild(stored)

    @staticmethod
    async def create(store: Store, settings: Settings, table_id: str, config: dict[str, Any],
                     host_name: str, creator: str | None = None, network: str | None = None,
                     player: str | None = None) -> tuple[TableOwner, str]:
        """A new table, stored; ``creator`` and ``network``: the marks of the creating
        address and of its network (capacity.py counts by them); ``player``: the host's
        player id (None: a guest)."""
        token = new_token()
        data = {"seat": 0, "name": host_name, "token_hash": hash_token(token)}
        if creator is not None:
            data.update(client=creator, network=network)
        if player is not None:
            data["player"] = player
        stored = StoredTable(table_id, time.time(), "open", config,
                             [StoredEvent(0, "create", data)])
        await store.create_table(stored)
        owner = TableOwner(stored, store, settings)
        owner.log.hold(Held(0, "lobby", table=owner.summary()))
        return owner, token

    def _rebuild(self, stored: StoredTable) -> None:
        self.chat.restore(stored.notes)
        actions: list[Any] = []
        for ev in stored.events:
            if ev.kind == "action":
                actions.append(ev.data["action"])
            else:
                self.lobby.replay(ev)
            self.log.advance(ev.version)
        play = self.core.play
        if play is None:
            return
        # the game's actions through the one record replayer of the core
        for step in steps(None, play.game, actions):
            if step.action is not None:
                self.log.played(step.events)
        play.requests.sync(play.game)
        for note in stored.notes:  # who a bot covered, who came back, who left for good
            if "presence" in note:
                self.core.seating.presence(note)
        if play.game.over:
            self.core.status = "over"
            self.log.forget_unreported(stored.notes)

    # ---- what the server and its tests read ------------------------------------------------
    @property
    def id(self) -> str:
        return self.core.id

    @property
    def created(self) -> float:
        return self.core.created

    @property
    def settings(self) -> Settings:
        return self.core.settings

    @property
    def status(self) -> str:
        return self.core.status

    @property
    def version(self) -> int:
        return self.core.version

    @property
    def asleep(self) -> bool:
        return self.core.asleep

    @property
    def sockets(self) -> int:
        return self.core.sockets

    @sockets.setter
    def sockets(self, n: int) -> None:
        self.core.sockets = n

    @property
    def log(self) -> TableLog:
        return self.core.log

    @property
    def seating(self) -> Seating:
        return self.core.seating

    @property
    def clocks(self) -> Clocks:
        return self.core.clocks

    @property
    def play(self) -> TableMatch | None:
        return self.core.play

    @property
    def game(self) -> Game | None:
        return None if self.core.play is None else self.core.play.game

    @property
    def bots(self) -> dict[int, Any]:
        return {} if self.core.play is None else self.core.play.bots

    @property
    def incidents(self) -> list[dict[str, Any]]:
        return self.core.log.incidents

    @property
    def conns(self) -> set[Conn]:
        return self.core.seating.conns

    @property
    def public(self) -> bool:
        return self.core.seating.public

    @property
    def join_secret(self) -> str | None:
        return self.core.seating.join_secret

    @property
    def creator(self) -> str | None:
        return self.core.seating.creator

    @property
    def network(self) -> str | None:
        return self.core.seating.network

    @property
    def unattended_since(self) -> float | None:
        return self.core.seating.unattended_since

    @property
    def unwatched_since(self) -> float | None:
        return self.core.seating.unwatched_since

    @property
    def paused(self) -> bool:
        return self.core.paused

    @property
    def finished(self) -> bool:
        return self.core.finished

    def people_waiting(self) -> list[int]:
        return self.core.people_waiting()

    def decision_seat(self) -> int | None:
        return self.core.decision_seat()

    def legal_for(self, seat: int | None) -> tuple[list[Action], Game | None]:
        return self.core.legal_for(seat)

    def summary(self, full: bool = True) -> dict[str, Any]:
        return self.core.summary(full)

    def record(self) -> dict[str, Any]:
        return self.core.record()

    # ---- the owner's queue -----------------------------------------------------------------
    def idle(self) -> bool:
        """A finished table nobody is looking at, with nothing left to do."""
        return (self.finished and self.sockets == 0 and not self.conns
                and self._queue.empty())

    def _idle(self) -> None:
        if self.on_idle is not None:
            self.on_idle(self)

    def detach_socket(self) -> None:
        self.core.sockets -= 1
        self.core.tell_idle()

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
            self.core.seating.unwatched_since = time.time()
            for s in self.core.seating.seats:
                if s.kind == "human" and not s.conns:
                    self.driver.start_grace(s.seat)
            self.post(self._resume)

    async def _resume(self) -> None:
        assert self.core.play is not None
        await self.driver.tell_bots([self.core.play.game.hand_started()], start=True)
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
        self.core.asleep = True
        self.driver.stop_clocks()
        log.info("table %s sleeps: nobody has been connected to it", self.id)
        return True

    # ---- the lobby (HTTP) ------------------------------------------------------------------
    def share_url(self, base: str) -> str:
        return self.lobby.share_url(base)

    def seat_of(self, token: str | None) -> int | None:
        return self.core.seating.seat_of(token)

    async def join(self, nickname: str, secret: str | None = None,
                   client: str | None = None, player: str | None = None,
                   seat: int | None = None) -> dict[str, Any]:
        return await self.lobby.join(nickname, secret, client, player, seat)

    async def remove(self, token: str, seat: int) -> dict[str, Any]:
        return await self.lobby.remove(token, seat)

    async def expire(self) -> bool:
        return await self.lobby.expire()

    async def start_game(self, token: str) -> dict[str, Any]:
        return await self.lobby.start_game(token)

    async def note_rematch(self, table_id: str) -> None:
        """The finished game has a rematch table now: everyone here is told."""
        if self.core.rematch == table_id:
            return
        self.core.rematch = table_id
        self.seating.broadcast(self.msg.lobby_text())

    async def on_close(self, conn: Conn) -> None:
        await self.ws.on_close(conn)


def handle(conn: Conn, owner: TableOwner, text: str) -> None:
    """Check one client message's form; pass it to the table's owner."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:  # also numbers of over 4,300 digits
        conn.error("bad_json", f"the message is not JSON: {str(e)[:200]}")
        return
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        conn.error("bad_message", "a message is a JSON object with a \"type\"")
        return
    ws = owner.ws  # the owner's websocket part; every change is posted to its queue
    kind = obj["type"]
    if kind == "ping":
        conn.send_text(dumps({"type": "pong"}))
    elif kind == "hello":
        token, version = obj.get("token"), obj.get("version", -1)
        key = obj.get("player_key")
        if token is not None and secret_text(token) is None:
            conn.error("bad_message", "hello: token must be a short string or null")
        elif key is not None and secret_text(key) is None:
            conn.error("bad_message", "hello: player_key must be a short string or null")
        elif isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "hello: version must be a whole number (-1: none)")
        else:
            conn.hello_sent = True
            people = owner.settings.people
            if token is None and key is not None and people is not None:
                # the key is looked up off the owner's queue, then the hello goes there
                _keyed_hello(owner, conn, people, key, version)
            else:
                owner.post(ws.on_hello, conn, token, version)
    elif kind == "action":
        version, action = obj.get("version"), obj.get("action")
        if isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "action: version must be the table's current version")
        elif not isinstance(action, dict):
            conn.error("bad_message", "action: \"action\" must be an action object")
        else:
            owner.post(ws.on_action, conn, version, action, time.perf_counter())
    elif kind == "intent":
        what, on = obj.get("kind"), obj.get("on")
        if what not in ("buy", "call") or not isinstance(on, bool):
            conn.error("bad_message", "intent: kind must be \"buy\" or \"call\" and on a "
                                      "boolean")
        else:
            owner.post(ws.on_intent, conn, what, on)
    elif kind == "hint":
        owner.post(ws.on_hint, conn)
    elif kind == "ready":
        owner.post(ws.on_ready, conn)
    elif kind == "leave":
        owner.post(ws.on_leave, conn)
    elif kind in ("chat", "react", "chat_settings"):
        _chat(conn, owner, obj)
    else:
        conn.error("bad_message", f"unknown message type {kind[:40]!r}")


def _chat(conn: Conn, owner: TableOwner, obj: dict[str, Any]) -> None:
    """The chat's messages (tablechat.py): their form here, the rest on the owner's queue."""
    chat, kind = owner.chat, obj["type"]
    if kind == "chat":
        text, most = obj.get("text"), owner.settings.limits.chat_max
        if not isinstance(text, str):
            conn.error("bad_message", "chat: text must be a string")
        elif len(text) > 4 * most + 64:  # refused before any work on it
            conn.error("bad_chat", f"a chat line has at most {most} characters")
        else:
            owner.post(chat.on_chat, conn, text)
    elif kind == "react":
        reaction = obj.get("reaction")
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            conn.error("bad_message", f"react: reaction must be one of {', '.join(REACTIONS)}")
        else:
            owner.post(chat.on_react, conn, reaction)
    else:
        on, spectators = obj.get("chat"), obj.get("spectators")
        if not isinstance(on, bool) or not isinstance(spectators, bool):
            conn.error("bad_message", "chat_settings: chat and spectators must be booleans")
        else:
            owner.post(chat.on_settings, conn, on, spectators)


_KEY_LOOKUPS: set[asyncio.Task[None]] = set()  # (held until done: a task nobody holds may go)


def _keyed_hello(owner: TableOwner, conn: Conn, people: People, key: str, version: int) -> None:
    known = conn.player_key
    if known is not None and known[0] == key:  # a repeated hello asks the database once
        owner.post(owner.ws.on_hello, conn, None, version, known[1])
        return

    async def look_up() -> None:
        found = await people.of_hello(key)
        player = None if found is None else found.id
        conn.player_key = (key, player)
        conn.player_name = None if found is None else found.shown_name()
        owner.post(owner.ws.on_hello, conn, None, version, player)
    task = asyncio.get_running_loop().create_task(look_up())
    _KEY_LOOKUPS.add(task)
    task.add_done_callback(_KEY_LOOKUPS.discard)
