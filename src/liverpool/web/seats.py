"""What a web table is made of, below its owner: *seats*, *connections* and *held events*.

Domain words: *seat* (human or bot; a human seat has a secret *token*, stored hashed:
``new_token``, ``hash_token``), *connection* (``Conn``: one websocket client, at a seat or
spectating, with a bounded queue of text to send), *held event* (``Held``: one of the last
changes a table keeps, with the engine's events of an action, to replay to a client that
reconnects), *settings* (the server's grace and
think times, the host's bot commands, its limits and its bots' thread pool).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from .botpool import BotPools
from .guard import Origins
from .limits import Limits

if TYPE_CHECKING:
    from ..engine import Event
    from .ops import Metrics
    from .players import People

# one encoder for every message: ``json.dumps`` with arguments builds a new one per call
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text (what ``json.dumps(obj, separators=(",", ":"))`` gives)."""
    return _ENCODER.encode(obj)


def dumps_plain(obj: Any) -> str:
    """``dumps(obj)``, the same text, ten times faster for what an update carries at every
    version (a view, a hand, legal moves: no floats). orjson writes such objects as ``dumps``
    does except for characters past ASCII and DEL, which ``dumps`` escapes (and floats, which
    it writes in other forms, so this is not for objects that may hold one): text with any of
    them, or an object orjson does not take (a key that is not a string), is written by
    ``dumps``."""
    try:
        data = orjson.dumps(obj)
    except TypeError:
        return _ENCODER.encode(obj)
    if data.isascii() and b"\x7f" not in data:
        return data.decode("ascii")
    return _ENCODER.encode(obj)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def new_secret() -> str:
    """A table's join secret (the share link's ``#join=``)."""
    return secrets.token_urlsafe(18)


_SPEC = re.compile(r"cmd(@[^:]*)?:", re.IGNORECASE)


def bot_spec(command: str) -> str:
    """The bot spec of a host's command: ``cmd@2s:PROGRAM`` as given, ``PROGRAM`` as
    ``cmd:PROGRAM``."""
    command = command.strip()
    return command if _SPEC.match(command) else f"cmd:{command}"


@dataclass
class Settings:
    grace: float = 15.0  # seconds before a dropped human is covered by the basic bot
    bot_think: float = 0.6  # seconds a bot waits before its move (so people can follow)
    # seconds a bot waits before its move while a person may still say "May I?" or call the
    # discard (a table's own buy_window wins), and the end-of-hand pause (hand_pause)
    buy_window: float = 5.0
    hand_pause: float = 30.0
    bot_commands: dict[str, str] = field(default_factory=dict)  # level name -> command line
    limits: Limits = field(default_factory=Limits)
    origins: Origins = field(default_factory=Origins)
    # bots think here, never on the event loop: light and heavy workers, each serving the
    # tables' creators in turn (botpool.py)
    bot_pools: BotPools | None = None
    metrics: Metrics | None = None  # what the owners count (ops.py); None: nothing
    # the players' side (players.py): a finished game's standings and ratings are recorded
    # through it; None (a store without players): games end unrated
    people: People | None = None

    def bots(self) -> BotPools:
        if self.bot_pools is None:
            self.bot_pools = BotPools(self.limits.bot_workers, self.limits.expert_max_ms)
        return self.bot_pools


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
        self.synced: int | None = None  # the version of the last sync a repeated hello got
        self.player_key: tuple[str, str | None] | None = None  # a hello's key and its player
        self.player_name: str | None = None  # that player's name (a spectator chats by it)
        self.client: str | None = None  # the mark of its address (guard.client_mark), if known
        # what waits to be sent (None: close), and the sender's wait for more: a deque and one
        # future, not an ``asyncio.Queue``, whose ``get`` made a coroutine per message and
        # looked the running loop up (a system call under Python 3.11) at each wait
        self.out: deque[str | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.queued_bytes = 0
        self.closed = False
        self.close_code = 1000
        self.close_reason = ""

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        size = len(text)
        if (len(self.out) >= self.limits.send_queue_messages
                or self.queued_bytes + size > self.limits.send_queue_bytes):
            # a client this far behind would only fall further behind: drop it (it resyncs)
            self.close(1008, "too slow")
            return
        self.queued_bytes += size
        self._put(text)

    def _put(self, item: str | None) -> None:
        self.out.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def wait(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
        """A future done when something is queued (the sender's, which awaits it while
        ``out`` is empty)."""
        waiter = self._waiter = loop.create_future()
        if self.out:
            self._waiter = None
            waiter.set_result(None)
        return waiter

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
            self._put(None)


@dataclass
class SeatState:
    seat: int
    kind: str  # human | bot
    level: str | None = None
    name: str | None = None
    token_hash: str | None = None
    client: str | None = None  # the mark of the address the seat was joined from
    player: str | None = None  # the player's id (None: a guest)
    conns: set[Conn] = field(default_factory=set)
    covered: bool = False
    covered_at: int | None = None  # the table's version when a bot began covering the seat
    left: bool = False  # the person left the game for good: placed last


@dataclass
class Held:
    version: int
    kind: str  # action | lobby | start
    events: tuple[Event, ...] = ()  # action: the engine's events
    action: dict[str, Any] | None = None  # action: the action applied (JSON)
    table: dict[str, Any] | None = None  # lobby: the summary after it

