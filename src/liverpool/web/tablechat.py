"""A web table's chat: short lines and quick reactions of the people at the table, the host's
settings for it, and who is watching.

Domain words: *line* (one thing said: text, or a *reaction* from the fixed set ``REACTIONS``;
numbered ``n`` per table and stamped with the table's version when it was said), *speaker*
(who said it, worked out by the server from the connection, never from the message: a seat by
its name, a spectator as "spectator" and their player's name, or a numbered guest; its ``id``
is what a viewer mutes), *settings* (the host's: chat on or off, spectators allowed to speak or
not), *watchers* (the spectators present: their count and names, told to everyone at most once
a second), *allowance* (``Allowances``: ``chat_burst`` lines at once, then one every
``chat_every`` seconds, per connection and per seat or, for a spectator, per address).

Lines and settings are kept as the table's notes (liverpool.web.tablelog's ``incidents_of``
skips them): the last ``chat_kept`` lines in memory and in the store, the last ``chat_sent`` in
a welcome. Nothing here runs on an action: only on what people say, their hellos and closes.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Coroutine, Hashable, Iterable
from typing import Any

from .limits import displayable
from .seats import Conn, dumps
from .store import StoreError
from .tablecore import TableCore

log = logging.getLogger("liverpool.web")

# the quick reactions a client may send (the page shows each as an emoji and its words)
REACTIONS = ("nice", "oops", "thanks", "hurry", "gg", "wow")
PRUNE_EVERY = 100  # lines said between two prunings of the stored lines past ``chat_kept``
WATCHERS_EVERY = 1.0  # seconds, at least, between two watchers messages of a table
WATCHER_NAMES = 50  # names a watchers message lists at most (the count counts them all)
MAX_MARKS = 4  # combining marks kept on one character: more only pile up over other lines
ALLOWANCE_KEYS = 2000  # allowances kept before the full ones are forgotten

# dropped from a line: control characters (a line break becomes a space first), format
# characters (bidi overrides and isolates, zero-width spaces, tags: text that reads otherwise
# than it shows), lone surrogates and private-use characters
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co"})
_MARKS = frozenset({"Mn", "Me"})
ZWJ = "\u200d"  # kept between two characters: emoji sequences are joined by it
_LOOSE_ZWJ = re.compile(r"(?<![^\s\u200d])\u200d|\u200d(?![^\s\u200d])")


def clean_chat(value: str, max_len: int) -> str:
    """A line as the server keeps it: ``ValueError`` (its reason in words) when nothing is left
    of it or it is longer than ``max_len`` characters. What is dropped is said in ``_DROPPED``;
    every run of white space becomes one space, the ends are trimmed, the text is NFC."""
    kept: list[str] = []
    for ch in value:
        if ch.isspace():
            kept.append(" ")
        elif ch == ZWJ or unicodedata.category(ch) not in _DROPPED:
            kept.append(ch)
    text = unicodedata.normalize("NFC", " ".join("".join(kept).split()))
    text = _LOOSE_ZWJ.sub("", text)
    marks = 0
    capped: list[str] = []
    for ch in text:
        marks = marks + 1 if unicodedata.category(ch) in _MARKS else 0
        if marks <= MAX_MARKS:
            capped.append(ch)
    text = "".join(capped).strip()
    if not text:
        raise ValueError("a chat line needs some text")
    if len(text) > max_len:
        raise ValueError(f"a chat line has at most {max_len} characters (this one has "
                         f"{len(text)})")
    return text


class Allowances:
    """How much each key may still say: up to ``burst`` tokens, one back every ``every``
    seconds."""

    def __init__(self, burst: int, every: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.every = every
        self.clock = clock
        self._state: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, when counted)

    def _tokens(self, key: Hashable, now: float) -> float:
        got = self._state.get(key)
        if got is None:
            return float(self.burst)
        tokens, at = got
        refill = (now - at) / self.every if self.every > 0 else float(self.burst)
        return min(float(self.burst), tokens + refill)

    def wait(self, keys: Iterable[Hashable]) -> float:
        """Seconds until every one of ``keys`` has a token (0: now)."""
        if self.burst <= 0:
            return float("inf")
        now = self.clock()
        lack = max((1.0 - self._tokens(k, now) for k in keys), default=0.0)
        return 0.0 if lack <= 0 else lack * self.every

    def take(self, keys: Iterable[Hashable]) -> None:
        now = self.clock()
        for k in keys:
            self._state[k] = (self._tokens(k, now) - 1.0, now)
        if len(self._state) > ALLOWANCE_KEYS:
            full = [k for k in self._state if self._tokens(k, now) >= self.burst]
            for k in full:
                del self._state[k]

    def forget(self, key: Hashable) -> None:
        self._state.pop(key, None)


class TableChat:
    """The chat of one table (``t``: its facts); changed only on the owner's queue."""

    def __init__(self, t: TableCore) -> None:
        self.t = t
        limits = t.settings.limits
        self.max_len = limits.chat_max
        self.kept = limits.chat_kept
        self.sent = limits.chat_sent
        self.on = True  # the host's settings
        self.spectators = False
        self.lines: deque[dict[str, Any]] = deque(maxlen=self.kept)
        self.n = 0  # the number of the last line said
        self.guests: dict[str, int] = {}  # a guest's speaker id -> their number
        self.allowances = Allowances(limits.chat_burst, limits.chat_every)
        # the host's changes of the settings have an allowance of their own: a host who has
        # just chatted may still open the chat to spectators
        self.setting_allowances = Allowances(limits.chat_burst, limits.chat_every)
        self._watchers: dict[str, Any] = {"count": 0, "names": []}  # as last told
        self._watchers_at = float("-inf")
        self._writes: set[asyncio.Task[None]] = set()

    def restore(self, notes: list[dict[str, Any]]) -> None:
        """The lines and settings among a table's stored notes (a rebuild)."""
        for note in notes:
            line = note.get("chat")
            settings = note.get("chat_settings")
            if isinstance(line, dict) and isinstance(line.get("n"), int):
                self.lines.append(line)
                self.n = max(self.n, line["n"])
                said = line.get("from") or {}
                m = re.fullmatch(r"guest (\d+)", str(said.get("name")))
                if m and str(said.get("id", "")).startswith("g"):
                    self.guests[str(said["id"])] = int(m[1])
            elif isinstance(settings, dict):
                self.on = settings.get("chat") is not False
                self.spectators = settings.get("spectators") is True

    # ---- who speaks ------------------------------------------------------------------------
    def _mark(self, kind: str, value: str) -> str:
        # per table: a speaker's id tells nothing about them at any other table
        return hashlib.sha256(f"{self.t.id}|{kind}|{value}".encode()).hexdigest()[:12]

    def _id(self, conn: Conn) -> str:
        if conn.seat is not None:
            return f"s{conn.seat}"
        player = conn.player_key[1] if conn.player_key is not None else None
        if player is not None:
            return "w" + self._mark("player", player)
        return "g" + self._mark("guest", conn.client or f"socket {id(conn)}")

    def speaker(self, conn: Conn) -> dict[str, Any]:
        """Who ``conn`` speaks as: from its seat or its hello, never from what it sends."""
        sid = self._id(conn)
        seat = conn.seat
        if seat is not None:
            name = self.t.seating.seats[seat].name or f"Seat {seat + 1}"
        elif sid.startswith("w"):
            name = f"spectator {displayable(conn.player_name or 'player')}"
        else:
            number = self.guests.get(sid)
            if number is None:
                number = self.guests[sid] = max(self.guests.values(), default=0) + 1
            name = f"guest {number}"
        return {"id": sid, "seat": seat, "name": name}

    def _allowance_keys(self, conn: Conn) -> tuple[Hashable, Hashable]:
        # per connection, and per seat (its several tabs) or a spectator's address (its
        # several sockets)
        who = ("seat", conn.seat) if conn.seat is not None else \
            ("address", conn.client or id(conn))
        return ("socket", id(conn)), who

    def _may_speak(self, conn: Conn) -> bool:
        if not conn.hello:
            conn.error("no_hello", "send hello first")
        elif not self.on:
            conn.error("chat_off", "the host has turned the chat off at this table")
        elif conn.seat is None and not self.spectators:
            conn.error("chat_spectators", "spectators may not chat at this table (the host "
                                          "decides)")
        else:
            return True
        return False

    def _take(self, conn: Conn, settings: bool = False) -> bool:
        """One from the connection's allowances (``settings``: those of the host's changes),
        or False after saying how long to wait."""
        keys = self._allowance_keys(conn)
        pool = self.setting_allowances if settings else self.allowances
        wait = pool.wait(keys)
        if wait > 0:
            limits = self.t.settings.limits
            what = "changes of the chat's settings" if settings else "chat messages"
            conn.error("chat_rate", f"too many {what}: at most {limits.chat_burst} at "
                                    f"once, then one every {limits.chat_every:g} s; wait "
                                    f"{max(1, round(wait))} s (this one was not sent)")
            return False
        pool.take(keys)
        return True

    # ---- the messages ----------------------------------------------------------------------
    async def on_chat(self, conn: Conn, text: str) -> None:
        if not self._may_speak(conn):
            return
        try:
            line = clean_chat(text, self.max_len)
        except ValueError as e:
            conn.error("bad_chat", str(e))
            return
        if self._take(conn):
            self._say(conn, {"text": line})

    async def on_react(self, conn: Conn, reaction: str) -> None:
        if self._may_speak(conn) and self._take(conn):
            self._say(conn, {"reaction": reaction})

    def _say(self, conn: Conn, what: dict[str, Any]) -> None:
        self.n += 1
        line = {"n": self.n, "version": self.t.version, "from": self.speaker(conn), **what}
        self.lines.append(line)
        self.t.seating.broadcast(dumps({"type": "chat", **line}))
        # stored beside the table's queue: the next move waits for no write of a chat line
        self._spawn(self._store_line({"chat": line}))
        if self.n % PRUNE_EVERY == 0 and self.n > self.kept:
            self._spawn(self._prune())

    async def on_settings(self, conn: Conn, on: bool, spectators: bool) -> None:
        """The host turns the chat on or off, and lets spectators speak or not."""
        if not conn.hello:
            conn.error("no_hello", "send hello first")
            return
        if conn.seat != 0:
            conn.error("not_host", "only the host (seat 1, who created the table) may change "
                                   "the chat's settings")
            return
        if (on, spectators) != (self.on, self.spectators):
            if not self._take(conn, settings=True):  # each change is stored: not one a message
                return
            try:
                await self.t.store.add_note(self.t.id, {"chat_settings": {
                    "chat": on, "spectators": spectators}})
            except StoreError as e:
                log.warning("table %s: the chat's settings were not stored: %s", self.t.id, e)
                conn.error("storage", "the database did not store the change; try again")
                return
            self.on, self.spectators = on, spectators
        self.t.seating.broadcast(dumps(self.settings_json()))

    def settings_json(self) -> dict[str, Any]:
        return {"type": "chat_settings", "chat": self.on, "spectators": self.spectators}

    def welcome(self, conn: Conn) -> dict[str, Any]:
        """What a welcome says of the chat: the settings, the last lines, who is watching, and
        the id this connection speaks as (a page offers no mute of its own lines)."""
        recent = list(self.lines)[-self.sent:] if self.sent > 0 else []
        return {"on": self.on, "spectators": self.spectators, "me": self._id(conn),
                "reactions": list(REACTIONS), "lines": recent, "watchers": self.watchers_json()}

    # ---- who is watching -------------------------------------------------------------------
    def watchers_json(self) -> dict[str, Any]:
        """The spectators present: a keyed player once by their name, a guest once per
        address as "guest"."""
        seen: dict[str, str] = {}
        for c in self.t.seating.conns:
            if c.seat is not None or not c.hello:
                continue
            player = c.player_key[1] if c.player_key is not None else None
            if player is not None:
                seen["p" + player] = displayable(c.player_name or "player")
            else:
                seen["a" + (c.client or str(id(c)))] = "guest"
        names = sorted(seen.values(), key=lambda n: (n == "guest", n.casefold()))
        return {"count": len(seen), "names": names[:WATCHER_NAMES]}

    def watchers_changed(self) -> None:
        """A connection came or went: everyone is told who watches, at most once a second
        (people coming and going in a burst make one message)."""
        clocks = self.t.clocks
        if clocks.running("watchers"):
            return
        due = self._watchers_at + WATCHERS_EVERY
        if due <= clocks.now():
            self._tell_watchers()
        else:
            clocks.start("watchers", None, due, self._watchers_due)

    async def _watchers_due(self) -> None:
        self.t.clocks.fired("watchers")
        self._tell_watchers()

    def _tell_watchers(self) -> None:
        now = self.watchers_json()
        if now == self._watchers:
            return
        self._watchers = now
        self._watchers_at = self.t.clocks.now()
        self.t.seating.broadcast(dumps({"type": "watchers", **now}))

    def gone(self, conn: Conn) -> None:
        """A connection closed: its own allowance goes, and the watchers may have changed."""
        self.allowances.forget(("socket", id(conn)))
        self.setting_allowances.forget(("socket", id(conn)))
        self.watchers_changed()

    # ---- the store -------------------------------------------------------------------------
    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._writes.add(task)  # (held until done: a task nobody holds may go)
        task.add_done_callback(self._writes.discard)

    async def _store_line(self, note: dict[str, Any]) -> None:
        try:
            await self.t.store.add_note(self.t.id, note)
        except StoreError as e:  # said and seen; only its later readers miss it
            log.warning("table %s: a chat line was not stored: %s", self.t.id, e)

    async def _prune(self) -> None:
        try:
            await self.t.store.prune_chat(self.t.id, self.kept)
        except Exception as e:  # the lines past the bound are dropped at the next pruning
            log.warning("table %s: old chat lines were not pruned: %s", self.t.id, e)
