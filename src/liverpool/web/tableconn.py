"""A web table's websocket messages: checked for form here, then answered on the owner's queue.

Domain words: *hello* (a client takes its seat, or watches, and says the version it has),
*action* (a move at the table's version), *leave* (a person leaves the game in play for good),
*intent* (asking, or no longer asking, for the discard: "May I?" or a call; a request of the
core), *ready* (done looking at the end of a hand), *hint*
(the basic bot's advice, worked out once a version and seat), *changes* (a seat may change its
request for one discard at most ``MAX_INTENT_CHANGES`` times: each is told to everyone).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..actions import Action, ActionFormatError
from ..bots import hinter, recalled_hint
from ..engine import IllegalActionError, Phase
from ..outofturn import kind_now
from .seats import Conn
from .store import StoreError
from .tablechat import TableChat
from .tablecore import TableCore
from .tabledrive import Driver
from .tablelobby import Lobby
from .tablematch import SeatMemo
from .tablemsg import Messages

log = logging.getLogger("liverpool.web")

MAX_INTENT_CHANGES = 4


class Handlers:
    """The websocket messages of one table (``t``: its facts)."""

    def __init__(self, t: TableCore, msg: Messages, driver: Driver, lobby: Lobby,
                 chat: TableChat) -> None:
        self.t = t
        self.chat = chat
        self.msg = msg
        self.driver = driver
        self.lobby = lobby
        self._intent_changes: SeatMemo[int] = SeatMemo()
        # a hint being searched or found, per seat, for the table's version
        self._hints: SeatMemo[asyncio.Future[tuple[Action, str]]] = SeatMemo()

    async def on_hello(self, conn: Conn, token: str | None, version: int,
                       player: str | None = None) -> None:
        """``player``: the player whose key the hello carried (checked by then): a player
        seated here finds their seat without its token."""
        t, seating = self.t, self.t.seating
        if conn.closed:  # gone while its key was looked up: it must not hold a seat
            return
        seat: int | None = None
        if token is not None:
            seat = seating.seat_of(token)
            if seat is None:
                conn.error("bad_token", "this token holds no seat at this table")
                return
        elif player is not None:
            seat = seating.seat_of_player(player)
        if seat is not None and seating.seats[seat].left:
            seat = None  # left for good: the person may watch the rest of the game
        if conn.hello and conn.seat == seat:
            # the same socket, the same seat: it was sent every change since its first hello,
            # so it gets no second welcome, and a sync at most once a version
            self.msg.catch_up(conn, version, again=True)
            return
        left = None
        if conn.hello and seating.detach(conn, t.status == "playing"):
            left = conn.seat  # the socket sat elsewhere: that seat may have nobody now
        woke = t.asleep
        t.asleep = False
        back = seat is not None and seating.seats[seat].covered
        away = self.msg.while_away(seat) if back and seat is not None else None
        changed = seating.attach(conn, seat)
        if seat is not None:
            self.driver.end_grace(seat)
        if back and seat is not None and t.status == "playing":
            await t.log.presence(seat, "back")
        conn.send({"type": "welcome", "seat": seat, "table": t.summary(),
                   "join_secret": None if seat is None else seating.join_secret,
                   "share_url": None if seat is None else self.lobby.share_url(conn.link_base),
                   "chat": self.chat.welcome(conn),
                   **({"away": away} if away is not None else {})})
        conn.synced = None
        self.msg.catch_up(conn, version)
        if t.play is not None and any(t.play.announced()):
            conn.send(self.msg.requests(conn.seat))
        self.chat.watchers_changed()
        if left is not None:
            await self._let_go(left)  # as a closed socket: its grace runs, everyone is told
        elif changed:
            seating.broadcast(self.msg.lobby_text(), skip=conn)
        if changed or left is not None or woke:
            await self.driver.drive()

    async def on_close(self, conn: Conn) -> None:
        if not conn.hello:
            return
        conn.hello = False
        gone = self.t.seating.detach(conn, self.t.status == "playing")
        self.chat.gone(conn)
        if gone and conn.seat is not None:
            await self._let_go(conn.seat)

    async def _let_go(self, seat: int) -> None:
        """The last connection of ``seat`` has gone: its grace time runs (then the basic bot
        covers it), and everyone is told."""
        t = self.t
        s = t.seating.seats[seat]
        if t.status == "playing" and s.kind == "human":
            self.driver.start_grace(seat)
        t.seating.broadcast(self.msg.lobby_text())
        # a pause ends when the people still here are all ready; one whose last person has
        # gone runs out on its own clock (a reload comes back to the end-of-hand screen)
        if t.paused and t.seating.awaited_people() and not t.seating.awaited():
            await self.driver.end_pause()

    def _player(self, conn: Conn) -> int | None:
        """The seat a connection may act for, or None after sending the reason."""
        t = self.t
        if not conn.hello:
            conn.error("no_hello", "send hello first")
        elif conn.seat is None:
            conn.error("spectator", "spectators cannot act; join the table to play")
        elif t.play is None:
            conn.error("not_started", "the game has not started yet")
        elif t.play.game.over:
            conn.error("game_over", "the game is over")
        else:
            return conn.seat
        return None

    async def on_action(self, conn: Conn, version: int, obj: dict[str, Any],
                        received: float | None = None) -> None:
        """A player's move (``received``: when it arrived, for the latency metric)."""
        t = self.t
        seat = self._player(conn)
        if seat is None or t.play is None:
            return
        g = t.play.game
        try:
            a = Action.from_json({**obj, "player": obj.get("player", seat)})
        except ActionFormatError as e:
            conn.error("bad_message", f"not an action: {str(e)[:200]}")
            return
        if a.player != seat:
            conn.error("bad_token", f"your token is for seat {seat}, not seat {a.player}")
            return
        if version != t.version:
            conn.error("stale_version", f"the table is at version {t.version}, not "
                                        f"{version}: update first")
            return
        who = t.decision_seat()
        if seat != who:
            waiting = g.players[who] if who is not None else "the table"
            conn.error("not_your_turn", f"it is not your move: waiting for {waiting}")
            return
        if t.paused:  # a person who plays on is done looking at the last hand
            await self.driver.ready(seat)
            if t.paused:
                conn.error("paused", "the table waits for everyone to be ready for the next "
                                     "hand")
                return
        _, board = t.legal_for(seat)
        if a.type in ("go_down", "borrow") and board is not None:
            a = board.arranged(a)  # people pick cards, the core puts them in order
        try:
            if g.phase is Phase.CALL:
                # checked on the table as it will be once the window closes, so that an illegal
                # move leaves the window open; then the window is settled first
                assert board is not None
                reason = board.why_illegal(a)
                if reason is not None:
                    conn.error("illegal", reason)
                    return
                await self.driver.close_window()
                called = t.decision_seat() != seat
                if not called:
                    try:
                        await self.driver.commit(a)
                        self._played(received)
                    except IllegalActionError:  # a call changed the table under the move
                        called = True
                if called:
                    conn.error("not_your_turn", "a call was made first; nothing was played "
                                                "for you")
            else:
                await self.driver.commit(a)
                self._played(received)
        except IllegalActionError as e:
            conn.error("illegal", str(e))
            return
        except StoreError as e:
            # the database's own words stay in the log: they may quote other tables' rows
            log.warning("table %s: %s", t.id, e)
            conn.error("storage", "the database did not store your move, so it was not "
                                  "played; try again")
            self.driver.schedule()
            return
        await self.driver.drive()

    def _played(self, received: float | None) -> None:
        if self.t.settings.metrics is not None:
            self.t.settings.metrics.action_done(received)

    async def on_intent(self, conn: Conn, kind: str, on: bool) -> None:
        t = self.t
        seat = self._player(conn)
        if seat is None or t.play is None:
            return
        g, req = t.play.game, t.play.requests
        before = t.play.announced()
        asked = seat in req.seats("buy" if kind == "buy" else "call")
        may = kind in t.intents_for(seat)
        changes = self._intent_changes.of_version(t.version)
        if on != asked and may and changes.get(seat, 0) >= MAX_INTENT_CHANGES:
            # a person may change their mind, not flip a request on and off for ever
            conn.error("too_many_changes", f"you changed your request {MAX_INTENT_CHANGES} "
                                           f"times for this card: it stays as it is")
            return
        if on:
            if not may:
                what = "buy the discard" if kind == "buy" else "call the discard"
                why = ("the time to ask has run out" if t.play.window_closed_at == t.version
                       else g.why_no_request(seat) if kind == kind_now(g)
                       else f"there is no discard to {kind} now")
                conn.error("illegal", f"you cannot ask to {what} now: {why or 'not now'}")
                return
            if not asked:
                req.ask(g, seat)
        elif asked:
            req.withdraw(g, seat)
        elif may:
            # "no thanks" from a person who had not asked: a bot need not wait for them
            req.answer(g, seat, Action("pass", seat))
        if t.play.announced() != before:
            changes[seat] = changes.get(seat, 0) + 1
            self.driver.schedule()  # first: the requests sent carry the clock that now runs
            self.msg.broadcast_requests()
        await self.driver.drive()  # a window that waited for this person's word may close now

    async def on_leave(self, conn: Conn) -> None:
        """A person leaves the game in play for good (a bot plays their seat to the end)."""
        seat = self._player(conn)
        if seat is not None:
            await self.driver.leave(seat)

    async def on_ready(self, conn: Conn) -> None:
        """A person is ready for the next hand (the end-of-hand screen's button)."""
        seat = self._player(conn)
        if seat is not None:
            await self.driver.ready(seat)

    async def on_hint(self, conn: Conn) -> None:
        t = self.t
        seat = self._player(conn)
        if seat is None:
            return
        legal, board = t.legal_for(seat)
        if not legal or board is None:
            conn.error("not_your_turn", "no decision is waiting for you")
            return
        # once a version and seat, searched or being searched: a client repeating its request
        # would otherwise queue that much work in the bots' pool. The strongest level searches
        # it in the searching bots' lane, its time capped like theirs
        version = t.version
        known = self._hints.of_version(version)
        job = known.get(seat)
        if job is None:
            bot = hinter()
            rec = t.record()  # what the seat heard this hand, rebuilt off the loop with the hint
            job = known[seat] = asyncio.ensure_future(
                self.driver.think(bot, recalled_hint, board.view_for(seat), legal, bot, rec,
                                  seat))
        action, reason = await asyncio.shield(job)
        conn.send({"type": "hint", "version": version, "action": action.to_json(),
                   "reason": reason})
