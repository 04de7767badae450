"""A web table's driver: the one policy that moves its game on between people's messages.

Domain words: *commit* (store an action, apply it through the match, tell everyone the events),
*settling* (a buy round or call window is settled by the match's requests: bots answer when
asked, people's silence is a pass), *bot-controlled* (a bot seat or a covered one: its moves come
after the bots' think time), *clocks* (a bot's move, a person's turn timer, the window's timer,
the end-of-hand pause, a dropped person's grace; liverpool.web.clocks; the pause itself is
liverpool.web.tablewait), *covering* (after its grace a bot plays a dropped person's seat),
*sleeping* (a game nobody watches stops its bots and clocks), *drive* (answer what needs
nobody's word, then set the clocks for what is next).

Every method runs on the table's owner's queue; the clocks post their callbacks there too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from ..actions import Action
from ..bots import Bot, bot_event, close_bot
from ..engine import Event, Phase
from ..events import game_start_event, protocol_events
from ..match import Decision
from .seats import Held
from .tablecore import TableCore
from .tablemsg import Messages
from .tablewait import Waits

log = logging.getLogger("liverpool.web")

MAX_BOT_STEPS = 200  # a timed-out or covered seat's bot plays at most this many moves in a row


class Driver:
    """The table's game policy: bots, windows, timers, the pause, covering, sleeping."""

    def __init__(self, t: TableCore, msg: Messages, waits: Waits) -> None:
        self.t = t
        self.msg = msg
        self.waits = waits

    # ---- moves -----------------------------------------------------------------------------
    async def commit(self, a: Action) -> None:
        """Store, apply and broadcast one legal action."""
        t = self.t
        play = t.play
        assert play is not None
        g = play.game
        prepared = g.prepare(a)  # the one check: IllegalActionError before anything is stored
        ev = await t.log.store_next("action", {"action": a.to_json()})
        events = play.match.apply(a, prepared)
        t.log.advance(ev.version)
        t.log.played(events)
        ended = any(e.kind == "hand_ended" for e in events)
        if ended and not g.over and t.hand_pause > 0 and t.seating.awaited_people():
            self.waits.start_pause(self.pause_timeout)
        held = Held(t.version, "action", events=events, action=a.to_json())
        t.log.hold(held)
        self.schedule()  # first: a requests message sent now carries the new clock
        if play.match.window_closed:  # its requests are gone: everyone is told
            self.msg.broadcast_requests()
        if g.over:
            # before the broadcast: a client told the game is over may ask any server of the
            # service for the record, and one that does not hold the table reads the status
            await t.finish()
        self.msg.broadcast_update(held)
        await self.tell_bots(events)
        if g.over:
            for b in play.bots.values():
                await self.think(b, close_bot, b)
            t.seating.broadcast(self.msg.lobby_text())
            t.tell_idle()
        if t.settings.metrics is not None:
            t.settings.metrics.action()

    async def choose(self, seat: int, bot: Bot | None = None) -> Action:
        """A bot's move for ``seat``, thought out in the bots' pool, through the match: its
        generator, and the basic bot's move instead of one that raised or was illegal."""
        t = self.t
        assert t.play is not None
        t0 = time.perf_counter()
        play = t.play
        move = play.match.prepare(seat, bot or play.bots.get(seat) or play.cover_bot)
        answer = move.only if move.only is not None else await self.think(move.bot, move.decide)
        a = play.match.accept(move, answer)
        t.log.note_match_incidents(play.match.take_incidents())
        await t.report_incidents()
        if t.settings.metrics is not None:
            t.settings.metrics.bot_decision(time.perf_counter() - t0)
        return a

    async def think(self, bot: Bot | None, fn: Callable[..., Any], *args: Any) -> Any:
        """Bot work in the bots' workers, in this table's creator's turn (web/botpool.py)."""
        t = self.t
        return await t.settings.bots().think(t.seating.creator or t.id, bot, fn, *args)

    async def tell_bots(self, events: tuple[Event, ...] | list[Event], start: bool = False
                        ) -> None:
        """Tell the bots that listen (external ones) the game's start, hands and end, in the
        bots' pool (an external bot may be slow to answer)."""
        t = self.t
        if t.play is None:
            return
        if not t.play.listeners:
            await t.report_incidents()  # (a bot the start could not make, say)
            return
        for seat, b in t.play.listeners.items():
            said = ([game_start_event(t.play.game, seat)] if start else []) \
                + protocol_events(events, seat)
            try:  # one job in the bots' pool for what one step tells this bot
                await self.think(b, _tell_all, b, said)
            except Exception:
                log.exception("table %s: the bot of seat %d failed an event", t.id, seat)
            take = getattr(b, "take_incidents", None)
            if take is not None:
                for inc in take():
                    t.log.note_incident(seat, str(inc.get("name") or inc.get("bot") or "bot"),
                                        str(inc.get("kind")), str(inc.get("message")),
                                        {"decision": inc.get("decision"),
                                         "sent": inc.get("sent")})
        await t.report_incidents()

    async def settle_step(self) -> None:
        """One step of a buy round or call window, as the match settles it: a request that
        wins, a bot's answer (asked in the bots' pool), or silence (a pass)."""
        t = self.t
        assert t.play is not None
        bots = [s for s in range(t.play.game.n) if t.seating.bot_controlled(s)]
        while True:
            step = t.play.match.next_step(answers=bots)
            if isinstance(step, Decision) and step.answer:
                t.play.match.answer(await self.choose(step.seat))
                continue
            if isinstance(step, Action):
                await self.commit(step)
            return

    async def close_window(self) -> None:
        assert self.t.play is not None
        while self.t.play.game.phase is Phase.CALL:
            await self.settle_step()

    async def drive(self) -> None:
        """Answer what nobody needs to decide by hand, then set the clocks for what is next."""
        t = self.t
        if t.play is None:
            return
        if t.asleep:
            self.stop_clocks()
            return
        g = t.play.game
        while not g.over:
            if g.phase is Phase.BUY:
                await self.settle_step()
            elif g.phase is Phase.CALL and (
                    not any(not t.seating.bot_controlled(s) for s in g.to_act())
                    or (t.play.look_ahead(t.version) is None and not t.people_waiting())):
                # no person could call: close at once; a window that ends the hand closes once
                # the people who may call have answered, or when the buy window runs out
                await self.settle_step()
            else:
                break
        self.schedule()
        if t.deadline_mark() != t.deadline_sent:
            # a clock started or stopped with no move to carry it (the next hand's first
            # window once the end-of-hand pause ends, a seat covered): everyone is told
            self.msg.broadcast_requests()

    # ---- the clocks ------------------------------------------------------------------------
    def schedule(self) -> None:
        t, clocks = self.t, self.t.clocks
        play = t.play
        if play is None or play.game.over or self.t.paused or t.asleep:
            self.stop_clocks()
            return
        g = play.game
        seat = t.decision_seat()
        waiting = t.people_waiting()
        bot_seat = seat is not None and t.seating.bot_controlled(seat)
        # a bot's move after its think time, once no person may still ask for the discard; due
        # a think time after it was first due at this version (asking, withdrawing and asking
        # again never puts it off)
        key = (t.version, -1 if seat is None else seat)
        if seat is not None and bot_seat and not waiting:
            if clocks.key("bot") != key:
                due = clocks.due_once("bot", key, t.settings.bot_think)
                clocks.start("bot", key, due, self.bot_move, seat, t.version)
        else:
            clocks.stop("bot")
        # the turn timer runs while one person keeps the decision
        human = seat if seat is not None and not bot_seat else None
        if g.phase is not Phase.BUY and human != clocks.key("turn"):
            clocks.stop("turn")
            if human is not None and t.turn_timer:
                due = clocks.now() + t.turn_timer
                clocks.start("turn", human, due, self.turn_timeout, human, due)
        # the window's timer: how long requests are taken after a discard (the table's
        # buy_timer), or how long a bot waits for the people who may still ask (buy_window)
        window = play.buy_window_open(t.version) or g.phase is Phase.CALL
        bot_waits = bool(waiting) and (bot_seat if seat is not None else g.phase is Phase.CALL)
        length = t.buy_timer or (t.buy_window if bot_waits else None)
        if window and length is not None and clocks.key("window") != t.version \
                and play.window_closed_at != t.version:
            due = clocks.due_once("window", t.version, length)
            clocks.start("window", t.version, due, self.window_timeout, t.version)
        elif clocks.running("window") and (not window or (t.buy_timer is None
                                                          and not bot_waits)):
            clocks.stop("window")  # closed, or everyone it waited for has answered

    def stop_clocks(self) -> None:  # (the end-of-hand pause has its own clock)
        for name in ("bot", "turn", "window"):
            self.t.clocks.stop(name)

    async def bot_move(self, seat: int, version: int) -> None:
        t = self.t
        if t.version != version or t.decision_seat() != seat or t.asleep \
                or not t.seating.bot_controlled(seat) or t.paused or t.people_waiting():
            return
        t.clocks.stop("bot")
        assert t.play is not None
        g = t.play.game
        if g.phase is Phase.CALL:
            await self.close_window()
        if not g.over and seat in g.to_act() and g.phase is not Phase.BUY:
            await self.commit(await self.choose(seat))
        await self.drive()

    async def turn_timeout(self, seat: int, due: float) -> None:
        t = self.t
        if t.clocks.key("turn") != seat or t.clocks.due("turn") != due:
            return
        t.clocks.fired("turn")
        assert t.play is not None
        g = t.play.game
        steps = 0
        # the basic bot finishes the seat's move (its whole turn, if it is the player on turn)
        while not g.over and t.decision_seat() == seat and steps < MAX_BOT_STEPS \
                and not self.t.paused:  # (a hand it ends waits for the people, as always)
            if g.phase is Phase.CALL:
                await self.close_window()
                continue
            await self.commit(await self.choose(seat, t.play.cover_bot))
            steps += 1
            while g.phase is Phase.BUY:
                await self.settle_step()
        t.clocks.stop("turn")
        await self.drive()

    async def window_timeout(self, version: int) -> None:
        t = self.t
        if t.version != version or t.asleep or t.play is None:
            return
        t.clocks.stop("window")
        t.play.window_closed_at = version
        if t.play.game.phase is Phase.CALL:
            await self.close_window()
            await self.drive()
            return
        # the buy window closes: the requests made stand and are settled when the player
        # draws; new ones are refused. Everyone is told, with the clock that now runs, and a bot
        # that waited for the people moves.
        self.schedule()
        self.msg.broadcast_requests()

    async def retry(self) -> None:
        """A move the database refused (nothing changed) is tried again."""
        self.t.clocks.forget("bot")
        if not self.t.clocks.running("turn"):
            self.t.clocks.stop("turn")  # a timed-out turn that failed: its clock starts again
        await self.drive()

    # ---- the end-of-hand pause and covering a seat -----------------------------------------
    async def pause_timeout(self, due: float) -> None:
        if self.waits.end_pause(due):
            await self.drive()

    async def end_pause(self) -> None:
        if self.waits.end_pause():
            await self.drive()

    async def ready(self, seat: int) -> None:
        """``seat`` is ready for the next hand; the game goes on when nobody is awaited."""
        if self.waits.ready(seat):
            await self.drive()

    def start_grace(self, seat: int) -> None:
        """``seat``'s person has gone: after the server's grace time a bot covers it."""
        t = self.t
        if t.clocks.running(f"grace:{seat}") or t.seating.seats[seat].covered:
            return
        t.clocks.start(f"grace:{seat}", seat, t.clocks.now() + t.settings.grace, self.cover,
                       seat)

    def end_grace(self, seat: int) -> None:
        self.t.clocks.stop(f"grace:{seat}")

    async def cover(self, seat: int) -> None:
        t = self.t
        t.clocks.stop(f"grace:{seat}")
        s = t.seating.seats[seat]
        if s.conns or s.covered or t.status != "playing":
            return
        s.covered, s.covered_at = True, t.version
        await t.log.presence(seat, "covered")
        t.seating.broadcast(self.msg.lobby_text())
        await self.drive()

    async def leave(self, seat: int) -> None:
        """``seat``'s person leaves the game for good: a bot plays it to the end, and it is
        placed last."""
        t = self.t
        s = t.seating.seats[seat]
        if t.status != "playing" or s.kind != "human" or s.left:
            return
        t.clocks.stop(f"grace:{seat}")
        s.covered = s.left = True
        await t.log.presence(seat, "left")
        t.seating.broadcast(self.msg.lobby_text())
        await self.drive()


def _tell_all(bot: Bot, said: list[dict[str, Any]]) -> None:
    """Each message of ``said`` to ``bot`` in order (run in the bots' pool)."""
    for message in said:
        bot_event(bot, message)
