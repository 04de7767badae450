"""A web table's log: the stored events that are its truth, the events held for clients that
reconnect, the game's log for newcomers, and the bots' incidents.

Domain words: *stored event* (``StoredEvent``: create, join, leave, start, action; a table is
rebuilt by replaying them, and an accepted change is stored before it is applied in memory),
*version* (the table's event counter: the version of the last stored event), *held event*
(``Held``: one of the last 200 changes, replayed to a client that reconnects), *log entry* (the
engine's events of one action, or a notice, kept for a client's first sync), *incident* (what
went wrong with a bot: logged, told to the players, stored as a note), *presence note* (a
seat covered by a bot, back, or left for good: stored as a note too), *chat note* (a line said
at the table, or the host's chat settings: notes of liverpool.web.tablechat, no incident).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator
from typing import Any

from ..engine import Event
from .seats import Held, dumps
from .store import Store, StoredEvent, StoreError

log = logging.getLogger("liverpool.web")

HELD_EVENTS = 200
LOG_ENTRIES = 100


class TableLog:
    """The table's version, its stored log and what it keeps in memory of it."""

    def __init__(self, table_id: str, store: Store, notes: list[dict[str, Any]]) -> None:
        self.id = table_id
        self.store = store
        self.version = -1
        self.held: deque[Held] = deque(maxlen=HELD_EVENTS)
        # the game's log: each action's events (with its version), or a notice's text
        self.entries: deque[tuple[int, tuple[Event, ...] | str]] = deque(maxlen=LOG_ENTRIES)
        self.incidents: list[dict[str, Any]] = incidents_of(notes)
        self.unreported: list[dict[str, Any]] = []  # noted, not yet logged, told or stored

    async def store_next(self, kind: str, data: dict[str, Any], status: str | None = None
                         ) -> StoredEvent:
        """Store the next event (``StoreError``: nothing stored, nothing changes); the caller
        applies it, then ``advance``."""
        ev = StoredEvent(self.version + 1, kind, data)
        if status is None:
            await self.store.append(self.id, ev)
        else:
            await self.store.append(self.id, ev, status=status)
        return ev

    def advance(self, version: int) -> None:
        self.version = version

    def hold(self, held: Held) -> None:
        self.held.append(held)

    def missed(self, version: int) -> list[Held]:
        return [h for h in self.held if h.version > version]

    def played(self, events: tuple[Event, ...]) -> None:
        self.entries.append((self.version, events))

    def notice(self, text: str) -> None:
        self.entries.append((self.version, text))

    def __iter__(self) -> Iterator[tuple[int, tuple[Event, ...] | str]]:
        return iter(self.entries)

    # ---- incidents -------------------------------------------------------------------------
    def note_incident(self, seat: int | None, bot: str, kind: str, message: str,
                      extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Remember a bot's incident (told and stored by ``report``)."""
        note = {"seat": seat, "bot": bot[:80], "kind": kind, "message": message[:300],
                **(extra or {})}
        if note not in self.incidents:  # a table rebuilt again notes the same thing once
            self.incidents.append(note)
            self.unreported.append(note)
        return note

    def note_match_incidents(self, found: list[dict[str, Any]]) -> None:
        for inc in found:
            self.note_incident(inc["seat"], str(inc.get("bot") or inc.get("name") or "bot"),
                               str(inc.get("kind")), str(inc.get("message")),
                               {"decision": inc.get("decision"), "sent": inc.get("sent"),
                                "fallback": inc.get("fallback", "game")})

    def forget_unreported(self, notes: list[dict[str, Any]]) -> None:
        """A finished game's bots never play again: nothing to say about them."""
        self.unreported = []
        self.incidents = incidents_of(notes)

    async def presence(self, seat: int, what: str) -> None:
        """Keep a note that a seat was covered by a bot (``covered``), came back (``back``)
        or left for good (``left``), at this version: a table rebuilt once its game is over
        knows who left, and one rebuilt while a bot covers a seat can still tell the person
        what the bot did for them."""
        try:
            await self.store.add_note(self.id, {"presence": what, "seat": seat,
                                                "version": self.version})
        except StoreError as e:
            log.warning("table %s: a presence note was not stored: %s", self.id, e)

    async def report(self, names: list[str | None], send: Any) -> None:
        """Tell what went wrong with a bot: a warning in the server's log, a notice in the
        table's log for the players (``send``: to every connection), a note in the store."""
        while self.unreported:
            note = self.unreported.pop(0)
            seat = note["seat"]
            who = names[seat] if seat is not None else "a bot"
            log.warning("table %s: bot %s of seat %s: %s: %s", self.id, note["bot"], seat,
                        note["kind"], note["message"])
            instead = ("the basic bot played that move" if note.get("fallback") == "move"
                       else "the basic bot plays the seat for the rest of the game")
            text = f"{who}'s bot ({note['bot']}) failed ({note['kind']}: {note['message']}); " \
                   f"{instead}"
            self.notice(text)
            send(dumps({"type": "notice", "text": text}))
            try:
                await self.store.add_note(self.id, note)
            except StoreError as e:
                log.warning("table %s: the incident was not stored: %s", self.id, e)


# the other notes a table keeps: who was covered, came back or left; what was said at the
# table and the host's settings of its chat (tablechat.py)
OTHER_NOTES = ("presence", "chat", "chat_settings")


def incidents_of(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bots' incidents among a table's stored notes (``OTHER_NOTES`` are not)."""
    return [n for n in notes if not any(k in n for k in OTHER_NOTES)]
