"""A web table's seats and the connections at them.

Domain words: *seat* (human or bot; a human seat holds a player's name and the hash of their
secret *token*), *connection* (a websocket client at a seat or spectating), *covered* (a bot
plays for a person who dropped, after a grace time), *bot-controlled* (a bot seat or a covered
one), *awaited* (the connected people the end-of-hand pause waits for), *removed* (the marks of
players the host removed from a public table), *join secret* (a private table's link; a removal
changes it), *unattended* (since when no seated person is connected), *unwatched* (since when
nobody at all is).
"""

from __future__ import annotations

import hmac
import time
from typing import Any

from .limits import bot_name, displayable
from .seats import Conn, SeatState, hash_token


class Seating:
    """Who sits where, who is connected, and the table's door (public, or a secret link)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.public: bool = bool(config.get("public", "join_secret" not in config))
        self.join_secret: str | None = config.get("join_secret")
        self.removed: set[str] = set()
        # the marks (guard.client_mark) of the creating address and of its network, stored with
        # the table (none in tables of old versions)
        self.creator: str | None = None
        self.network: str | None = None
        self.seats = [SeatState(i, s["kind"], displayable(str(s["level"])) if s.get("level")
                                else None, bot_name(i) if s["kind"] == "bot" else None)
                      for i, s in enumerate(config["seats"])]
        self.conns: set[Conn] = set()
        self.unattended_since: float | None = time.time()
        self.unwatched_since: float | None = None
        self.ready: set[int] = set()  # the people ready for the next hand

    # ---- the stored events of the lobby ---------------------------------------------------
    def seat_person(self, kind: str, d: dict[str, Any]) -> None:
        """A stored ``create`` or ``join``: a person takes a seat."""
        s = self.seats[d["seat"]]
        s.name, s.token_hash = displayable(str(d["name"])), d["token_hash"]
        s.client = d.get("client")
        s.player = d.get("player")
        if kind == "create":
            self.creator, self.network = d.get("client"), d.get("network")

    def unseat(self, d: dict[str, Any]) -> None:
        """A stored ``leave``: the seat is free; a removal keeps the player out."""
        s = self.seats[d["seat"]]
        s.name, s.token_hash, s.client, s.player = None, None, None, None
        if d.get("banned"):
            self.removed.add(str(d["banned"]))
        if d.get("join_secret"):
            self.join_secret = str(d["join_secret"])

    def give_bots(self, bots: dict[str, str]) -> None:
        """The start gives the seats nobody took to bots (``bots``: seat -> level)."""
        for key, level in bots.items():
            s = self.seats[int(key)]
            s.kind, s.level, s.name = "bot", level, bot_name(int(key))

    # ---- who is who ----------------------------------------------------------------------
    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        return None

    def seat_of_player(self, player: str | None) -> int | None:
        """The seat a player holds at this table, if any."""
        if player is None:
            return None
        return next((s.seat for s in self.seats if s.player == player), None)

    def leavers(self) -> list[int]:
        """The people who left the game before its end: those who said so, and those a bot
        covered who had not come back when it ended."""
        return [s.seat for s in self.seats if s.kind == "human" and (s.left or s.covered)]

    def presence(self, note: dict[str, Any]) -> None:
        """A stored presence note: a seat was covered by a bot, came back, or left for good
        (kept so that a table rebuilt after its game ended knows who had left)."""
        seat = note.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            return
        s = self.seats[seat]
        what = note.get("presence")
        if what == "covered":
            s.covered = True
            at = note.get("version")
            s.covered_at = at if isinstance(at, int) and not isinstance(at, bool) else None
        elif what == "back":
            s.covered = False
            s.covered_at = None
        elif what == "left":
            s.covered = s.left = True

    def unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats if s.name}
        if name not in taken:
            return name
        k = 2
        while f"{name} ({k})" in taken:
            k += 1
        return f"{name} ({k})"

    def names(self, bots: dict[str, str]) -> list[str]:
        return [bot_name(s.seat) if str(s.seat) in bots else s.name or f"Seat {s.seat + 1}"
                for s in self.seats]

    def bot_controlled(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "bot" or s.covered

    def people(self) -> list[int]:
        """The seats people play now (not covered)."""
        return [s.seat for s in self.seats if not self.bot_controlled(s.seat)]

    def awaited_people(self) -> bool:
        return any(s.kind == "human" and not s.covered and s.conns for s in self.seats)

    def awaited(self) -> list[int]:
        """The connected people the end-of-hand pause waits for."""
        return [s.seat for s in self.seats
                if s.kind == "human" and not s.covered and s.conns and s.seat not in self.ready]

    def json(self) -> list[dict[str, Any]]:
        return [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level,
                 "connected": s.kind == "bot" or bool(s.conns), "covered": s.covered,
                 "left": s.left, "player": s.player}
                for s in self.seats]

    # ---- connections ---------------------------------------------------------------------
    def by_seat(self) -> dict[int | None, list[Conn]]:
        out: dict[int | None, list[Conn]] = {}
        for c in self.conns:
            out.setdefault(c.seat, []).append(c)
        return out

    def attach(self, conn: Conn, seat: int | None) -> bool:
        """``conn`` is at ``seat`` (None: watching) now; True if the table's seats changed for
        everyone (the seat had nobody, or a bot covered it)."""
        conn.seat, conn.hello = seat, True
        self.conns.add(conn)
        self.unwatched_since = None
        if seat is None:
            return False
        s = self.seats[seat]
        changed = not s.conns
        s.conns.add(conn)
        self.unattended_since = None
        if s.covered and not s.left:  # back before the end (one who left is not seated)
            s.covered = False
            changed = True
        return changed

    def detach(self, conn: Conn, playing: bool) -> bool:
        """Forget a connection; True if its seat has no connection left. ``playing``: the game
        runs (a game nobody watches may sleep)."""
        self.conns.discard(conn)
        if not self.conns and playing and self.unwatched_since is None:
            self.unwatched_since = time.time()
        if conn.seat is None:
            return False
        s = self.seats[conn.seat]
        s.conns.discard(conn)
        if not any(seat.conns for seat in self.seats) and self.unattended_since is None:
            self.unattended_since = time.time()
        return not s.conns

    def broadcast(self, text: str, skip: Conn | None = None) -> None:
        for c in self.conns:
            if c is not skip:
                c.send_text(text)
