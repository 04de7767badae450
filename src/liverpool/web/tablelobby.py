"""A web table's lobby: making it, joining and leaving it, closing it unstarted, starting it.

Domain words: *lobby* (the table before its game starts), *host* (seat 0, who created it),
*join secret* (a private table's link, after ``#`` so that browsers never send it), *removal*
(the host removes a player: a private table's link changes, a public table refuses the removed
player's address), *start* (the seats nobody took go to bots, the game is dealt and the bots
made before the start is stored), *bot level* (a built-in level of the closed list, or a command
from the host's own configuration).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from typing import Any

from ..bots import BasicBot, Bot, make_bot
from ..engine import Game
from .guard import client_mark
from .limits import ApiError, builtin_bot
from .seats import Held, bot_spec, hash_token, new_secret, new_token
from .store import StoredEvent, StoreError
from .tablecore import TableCore
from .tabledrive import Driver
from .tablematch import TableMatch
from .tablemsg import Messages

log = logging.getLogger("liverpool.web")


class Lobby:
    """The lobby's changes of one table (``t``: its facts)."""

    def __init__(self, t: TableCore, msg: Messages, driver: Driver) -> None:
        self.t = t
        self.msg = msg
        self.driver = driver

    def share_url(self, base: str) -> str:
        """The link that lets a friend join (the secret after ``#``: browsers never send it)."""
        seating = self.t.seating
        tail = f"#join={seating.join_secret}" if seating.join_secret and not seating.public \
            else ""
        return f"{base}/t/{self.t.id}{tail}"

    def check_open(self) -> None:
        if self.t.status == "expired":
            raise ApiError(410, "expired", "this table was not started in time and has closed")
        if self.t.status != "open":
            raise ApiError(409, "started", "the game has already started")

    # ---- stored events ---------------------------------------------------------------------
    def replay(self, ev: StoredEvent) -> None:
        """Apply one stored lobby event (create, join, leave, start)."""
        d = ev.data
        if ev.kind in ("create", "join"):
            self.t.seating.seat_person(ev.kind, d)
        elif ev.kind == "leave":
            self.t.seating.unseat(d)
        elif ev.kind == "start":
            self.t.seating.give_bots(d["bots"])
            self.t.begin(TableMatch(self.new_game(d["bots"]), self.make_bots(d["bots"])))
        else:
            raise ValueError(f"unknown stored event kind {ev.kind!r}")

    def new_game(self, bots: dict[str, str]) -> Game:
        """The game as dealt at the start; ``bots``: the seats the start gives to bots."""
        t = self.t
        return TableMatch.new_game(t.rules, t.seating.names(bots), t.seed, t.deals,
                                   t.settings.limits.search_budget)

    def make_bots(self, start_bots: dict[str, str]) -> dict[int, Bot]:
        """Every bot seat's bot at the start (``start_bots``: human seats the start gives)."""
        out: dict[int, Bot] = {}
        for s in self.t.seating.seats:
            level = start_bots.get(str(s.seat), s.level if s.kind == "bot" else None)
            if level:
                out[s.seat] = self._make_bot(level, s.seat)
        return out

    def _make_bot(self, level: str, seat: int) -> Bot:
        """A seat's bot: a command only from the host's own configuration, else a built-in
        level of the closed list. A level this server does not offer is never run: the basic
        bot takes the seat, and the table's incidents say so."""
        settings = self.t.settings
        spec = settings.bot_commands.get(level)
        if spec is not None:
            try:
                return make_bot(bot_spec(spec))
            except ValueError as e:
                self.t.log.note_incident(seat, level, "start", str(e))
                return BasicBot()
        bot = builtin_bot(level, settings.limits)
        if bot is None:
            self.t.log.note_incident(seat, level, "start", "this server does not offer this bot")
            return BasicBot()
        return bot

    # ---- changes ---------------------------------------------------------------------------
    async def _store(self, kind: str, data: dict[str, Any]) -> None:
        t = self.t
        ev = await t.log.store_next(kind, data)
        self.replay(ev)
        t.log.advance(ev.version)
        t.log.hold(Held(t.version, "lobby", table=t.summary()))

    async def join(self, nickname: str, secret: str | None = None,
                   client: str | None = None, player: str | None = None,
                   seat: int | None = None) -> dict[str, Any]:
        """A person takes the first free seat (``client``: their address, by ``client_of``;
        ``player``: their player id, None for a guest). ``seat``: the seat kept for them at a
        rematch (the caller checked who they are; ``secret`` is then not needed)."""
        seating = self.t.seating
        self.check_open()
        if seat is None and not seating.public and not (
                secret is not None and seating.join_secret is not None
                and hmac.compare_digest(secret, seating.join_secret)):
            raise ApiError(403, "bad_secret", "this table is private: join it with the link "
                                              "the host shared")
        mark = None if client is None else client_mark(client)
        if mark is not None and mark in seating.removed:
            raise ApiError(403, "removed", "the host removed you from this table")
        if player is not None and seating.seat_of_player(player) is not None:
            raise ApiError(409, "seated", "you already hold a seat at this table (open it, "
                                          "and your player finds it)")
        free = [s for s in seating.seats if s.kind == "human" and s.name is None
                and (seat is None or s.seat == seat)]
        if not free:
            raise ApiError(409, "full", "every human seat is taken" if seat is None
                           else "the seat kept for you is taken")
        s = free[0]
        token = new_token()
        data = {"seat": s.seat, "name": seating.unique_name(nickname),
                "token_hash": hash_token(token)}
        if mark is not None:
            data["client"] = mark
        if player is not None:
            data["player"] = player
        await self._store("join", data)
        seating.broadcast(self.msg.lobby_text())
        return {"seat": s.seat, "token": token}

    async def remove(self, token: str, seat: int) -> dict[str, Any]:
        """Before the start: the host removes another player, or a player leaves. The seat is
        free again and the token it had no longer works."""
        t, seating = self.t, self.t.seating
        who = seating.seat_of(token)
        if who is None:
            raise ApiError(403, "bad_token", "this token holds no seat at this table")
        self.check_open()
        if who != 0 and who != seat:
            raise ApiError(403, "bad_token", "only the host may remove another player")
        if seat == 0:
            raise ApiError(400, "bad_request", "the host cannot leave the table before the "
                                               "start", "seat")
        if not 0 <= seat < len(seating.seats) or seating.seats[seat].kind != "human" \
                or seating.seats[seat].name is None:
            raise ApiError(409, "not_taken", f"seat {seat} holds no player", "seat")
        data: dict[str, Any] = {"seat": seat}
        if who != seat:
            # a removed player stays out: a private table's link changes (the old secret,
            # which the removed player's own welcome carried, opens nothing), and a public
            # table, which anybody may join, refuses the address they joined from
            data["removed"] = True
            if seating.public:
                if seating.seats[seat].client is not None:
                    data["banned"] = seating.seats[seat].client
            else:
                data["join_secret"] = new_secret()
        gone = list(seating.seats[seat].conns)
        await self._store("leave", data)
        for c in gone:
            c.error("removed", "you left the table" if who == seat
                    else "the host removed you from the table")
            seating.detach(c, playing=False)
            c.close(4001, "removed")
        seating.seats[seat].conns.clear()
        seating.broadcast(self.msg.lobby_text())
        if "join_secret" in data:  # the players still seated get the new link
            for c in seating.conns:
                if c.seat is not None:
                    c.send({"type": "share", "join_secret": seating.join_secret,
                            "share_url": self.share_url(c.link_base)})
        return t.summary()

    async def expire(self) -> bool:
        """A table nobody started in time closes; True if it did."""
        t = self.t
        if t.status != "open":
            return False
        try:
            await t.store.set_status(t.id, "expired")
        except StoreError as e:
            log.warning("table %s: could not expire: %s", t.id, e)
            return False
        t.status = "expired"
        t.seating.broadcast(self.msg.lobby_text())
        for c in list(t.seating.conns):
            c.close(4410, "expired")
        return True

    async def start_game(self, token: str) -> dict[str, Any]:
        t = self.t
        if t.seating.seat_of(token) != 0:
            raise ApiError(403, "bad_token", "only the host (seat 1, who created the table) "
                                             "may start the game")
        self.check_open()
        bots = {str(s.seat): "basic" for s in t.seating.seats
                if s.kind == "human" and s.name is None}
        game = await asyncio.to_thread(self.new_game, bots)  # never a deal on the event loop
        made = await asyncio.to_thread(self.make_bots, bots)  # the bots exist before the start
        ev = await t.log.store_next("start", {"bots": bots}, status="playing")
        t.seating.give_bots(bots)
        t.begin(TableMatch(game, made))
        t.log.advance(ev.version)
        t.log.hold(Held(t.version, "start"))
        for s in t.seating.seats:
            if s.kind == "human" and not s.conns:
                self.driver.start_grace(s.seat)
        if not t.seating.conns:
            t.seating.unwatched_since = time.time()
        await self.driver.tell_bots([game.hand_started()], start=True)
        t.seating.broadcast(self.msg.lobby_text())
        self.driver.schedule()  # the clocks run from the deal: the syncs carry them
        self.msg.broadcast(self.msg.sync)
        await self.driver.drive()
        return t.summary()
