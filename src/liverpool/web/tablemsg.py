"""What a web table tells its clients: each seat's ``update``, ``sync``, ``requests`` and
``lobby`` messages (docs/web-protocol.md).

Domain words: *update* (one stored change: the engine's events as the reader may see them, each
with its narrated line, then the reader's view, legal moves, intents and the clocks), *sync* (the
whole state, for a client that connects or fell too far behind), *reader* (the seat a message is
built for, None for a spectator: the engine's per-seat forms and the narrator decide what it
sees), *shared part* (what every reader's update says alike, encoded once per broadcast).
"""

from __future__ import annotations

from typing import Any

from ..cards import card_str, sorted_cards
from ..engine import Event
from ..narrate import Narrator
from .seats import Conn, Held, dumps, dumps_plain
from .tablecore import TableCore


def action_json(action: dict[str, Any] | None, reader: int | None) -> dict[str, Any] | None:
    """The action applied as ``reader`` may see it: a cut's count stays with the cutter."""
    if action is not None and action.get("type") == "cut" and action.get("player") != reader:
        return {k: v for k, v in action.items() if k != "count"}
    return action


def events_json(events: tuple[Event, ...], players: tuple[str, ...], reader: int | None
                ) -> list[dict[str, Any]]:
    """``events`` as ``reader`` may see them, each with its line for that reader."""
    return Narrator(players, reader).json(events)


def concerned(e: Event) -> frozenset[int]:
    """The seats that read ``e`` otherwise than everyone else: who did it (their own card, "You
    ..."), the seat it names (a meld's owner, a card's receiver) and the winners."""
    seats = {getattr(e, name, None) for name in ("seat", "owner", "to")}
    seats.update(getattr(e, "winners", ()))
    return frozenset(s for s in seats if isinstance(s, int))


class ChangeText:
    """The ``"action": ..., "events": [...]`` part of the updates of one change, as JSON text
    for each reader. Every reader the change does not concern reads it as a spectator does, so
    within one broadcast it is narrated and encoded once for all of them, and once for each
    seat it concerns (kept for that broadcast only)."""

    def __init__(self, held: Held, players: tuple[str, ...]) -> None:
        self.held = held
        self.players = players
        seats: set[int] = set()
        for e in held.events:
            seats |= concerned(e)
        if held.action is not None:
            seats.add(held.action["player"])
        self.concerns = frozenset(seats)
        self._texts: dict[int, str] = {}

    def text(self, reader: int | None) -> str:
        key = reader if reader is not None and reader in self.concerns else -1
        got = self._texts.get(key)
        if got is None:
            who = None if key == -1 else reader
            held = self.held
            got = self._texts[key] = (
                f'"action":{dumps_plain(action_json(held.action, who))},'
                f'"events":{dumps_plain(events_json(held.events, self.players, who))}')
        return got


class Messages:
    """The messages of one table, built from its facts (``t``)."""

    def __init__(self, t: TableCore) -> None:
        self.t = t
        # each seat's hand as an update lists it, with the cards it was made from: a hand that
        # did not change (every seat but the one that moved) is not sorted and encoded again
        self._hand_text: dict[int, tuple[tuple[bool, tuple[int, ...]], str]] = {}
        self._public_text: tuple[int, str] | None = None

    def _players(self) -> tuple[str, ...]:
        play = self.t.play
        return play.game.players if play is not None else ()

    def view_json(self, seat: int | None) -> dict[str, Any] | None:
        play = self.t.play
        if play is None:
            return None
        if seat is None:
            return play.public_view(self.t.version).to_json()
        return play.game.view_for(seat).to_json()

    def state(self, seat: int | None) -> dict[str, Any]:
        t = self.t
        legal, _ = t.legal_for(seat)
        return {"view": self.view_json(seat), "legal": [a.to_json() for a in legal],
                "intents": t.intents_for(seat), "deadline": t.deadline_json(),
                "pause": t.pause_json()}

    def log_json(self, seat: int | None) -> list[dict[str, Any]]:
        """The game's log as ``seat`` reads it: each action's events, and the notices."""
        out: list[dict[str, Any]] = []
        players = self._players()
        for _, entry in self.t.log:
            if isinstance(entry, str):
                out.append({"type": "notice", "text": entry})
            else:
                out.extend(events_json(entry, players, seat))
        return out

    def while_away(self, seat: int) -> dict[str, Any] | None:
        """What happened at ``seat`` while a bot covered it, for the person coming back: the
        events of the seat's own moves (as its log reads them), the hands that ended, and
        since which version (None: the table does not know when the bot began)."""
        s = self.t.seating.seats[seat]
        if not s.covered or s.covered_at is None:
            return None
        players = self._players()
        events: list[dict[str, Any]] = []
        for version, entry in self.t.log:
            if version <= s.covered_at or isinstance(entry, str):
                continue
            mine = tuple(e for e in entry
                         if getattr(e, "seat", None) == seat or e.kind == "hand_ended")
            events.extend(e for e in events_json(mine, players, seat) if e.get("text"))
        # (the log keeps its last entries: a long absence is summed up from the newest ones)
        return {"since": s.covered_at, "version": self.t.version, "events": events}

    def sync(self, seat: int | None) -> dict[str, Any]:
        t = self.t
        return {"type": "sync", "version": t.version, "table": t.summary(),
                **self.state(seat), "log": self.log_json(seat)}

    def requests(self, seat: int | None) -> dict[str, Any]:
        """The requests announced so far, and what ``seat`` may announce now with the clock
        that runs (they change together: a window that closes takes no more requests)."""
        t = self.t
        buy, call = t.play.announced() if t.play is not None else ([], [])
        return {"type": "requests", "buy": buy, "call": call, "intents": t.intents_for(seat),
                "deadline": t.deadline_json()}

    def broadcast_requests(self) -> None:
        """Tell everyone the requests and the clock that runs now."""
        self.t.deadline_sent = self.t.deadline_mark()
        self.broadcast(self.requests)

    def lobby_text(self) -> str:
        t = self.t
        return dumps({"type": "lobby", "version": t.version, "table": t.summary()})

    # ---- updates -------------------------------------------------------------------------
    def _shared(self) -> tuple[str, str, str]:
        """What every reader's update says alike: its start, the public part of the view (once
        per version) and its end (the clocks)."""
        t = self.t
        assert t.play is not None
        if self._public_text is None or self._public_text[0] != t.version:
            pub = t.play.public_view(t.version).to_json()
            del pub["seat"], pub["hand"]
            self._public_text = (t.version, dumps_plain(pub)[1:])
        t.deadline_sent = t.deadline_mark()
        return (f'{{"type":"update","version":{t.version},', self._public_text[1],
                f',"deadline":{dumps(t.deadline_json())},'
                f'"pause":{dumps(t.pause_json())}}}')

    def update_text(self, seat: int | None, held: Held,
                    shared: tuple[str, str, str] | None = None,
                    change: ChangeText | None = None) -> str:
        """The ``update`` for ``seat``, as text: the view is exactly ``view_for(seat)``, its
        public part encoded once a version and only the seat's hand added per seat."""
        t = self.t
        assert t.play is not None
        g = t.play.game
        start, public, end = shared or self._shared()
        if seat is None:
            head = '{"seat":null,"hand":[],'
        else:
            key = (g.rules.deuces_wild, g.held(seat))
            known = self._hand_text.get(seat)
            if known is None or known[0] != key:
                hand = [card_str(c) for c in sorted_cards(key[1], key[0])]
                known = self._hand_text[seat] = (key, dumps_plain(hand))
            head = f'{{"seat":{seat},"hand":{known[1]},'
        # (the game's own parts, not the table's: this runs for every seat of every update)
        play, version = t.play, t.version
        legal = play.legal_for(seat, version)[0] if seat is not None else []
        intents = play.intents_for(seat, version)
        said = (change or ChangeText(held, g.players)).text(seat)
        return (f'{start}{said},"view":{head}{public},'
                f'"legal":{dumps_plain([a.to_json() for a in legal]) if legal else "[]"},'
                f'"intents":{dumps_plain(intents) if intents else "[]"}{end}')

    def broadcast_update(self, held: Held) -> None:
        """Send the ``update`` for the change ``held``: built once per seat (its connections
        share the text), the parts every seat sees built once."""
        by_seat = self.t.seating.by_seat()
        if not by_seat:
            return
        shared = self._shared()
        assert self.t.play is not None
        change = ChangeText(held, self.t.play.game.players)
        for seat, conns in by_seat.items():
            text = self.update_text(seat, held, shared, change)
            for c in conns:
                c.send_text(text)

    def broadcast(self, build: Any, skip: Conn | None = None) -> None:
        """Send each seat's message ``build(seat)``, encoded once per seat."""
        for seat, conns in self.t.seating.by_seat().items():
            text = dumps(build(seat))
            for c in conns:
                if c is not skip:
                    c.send_text(text)

    def catch_up(self, conn: Conn, version: int, again: bool = False) -> None:
        """Send what the client missed since ``version``; ``again``: a repeated hello on the
        same socket, answered with a sync at most once a version."""
        t = self.t
        if version == t.version:
            return
        missed = t.log.missed(version)
        whole = (0 <= version < t.version and len(missed) == t.version - version
                 and not any(h.kind == "start" for h in missed))
        if not whole:
            if again:
                if conn.synced == t.version:
                    return  # it was sent this version's state already
                conn.synced = t.version
            conn.send(self.sync(conn.seat))
            return
        last_action = max((i for i, h in enumerate(missed) if h.kind == "action"), default=-1)
        for i, h in enumerate(missed):
            if h.kind == "lobby":
                conn.send({"type": "lobby", "version": h.version, "table": h.table})
                continue
            msg: dict[str, Any] = {"type": "update", "version": h.version,
                                   "action": action_json(h.action, conn.seat),
                                   "events": events_json(h.events, self._players(), conn.seat)}
            if i == last_action:
                msg.update(self.state(conn.seat))
            else:
                msg.update({"view": None, "legal": [], "intents": [], "deadline": None,
                            "pause": None})
            conn.send(msg)

