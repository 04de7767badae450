"""A web table's game, driven by its owner: rebuilt from the store, played by bots and timers.

Domain words: *stored events* (the truth: a table is rebuilt by replaying them; an accepted
change is stored, ``Store.append``, before it is applied in memory and broadcast), *incident*
(what went wrong with a bot: logged, told to the players, stored), *window* (the buy round or
call window is *settled* by the core's rules when the next player acts or the buy timer ends),
*covered* (a bot plays for a human who dropped, after a grace time), *bot-controlled* (a bot
seat or a covered one: its moves come after the bots' think time), *timers* (a bot's move, the
turn timer, the buy timer). The owner's task starts here, since what it runs drives the game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from ..actions import Action
from ..bots import BasicBot, Bot, bot_event, close_bot, make_bot
from ..cards import card_str, sorted_cards
from ..engine import Game, Phase
from ..match import Match
from .limits import bot_name, builtin_bot, displayable
from .replay import apply_narrated
from .seats import Held, SeatState, Settings, bot_spec, dumps
from .store import Store, StoredEvent, StoredTable, StoreError
from .tablestate import TableState

log = logging.getLogger("liverpool.web")

MAX_BOT_STEPS = 200  # a timed-out or covered seat's bot plays at most this many moves in a row
STORE_RETRY = 2.0  # seconds before the table tries again a move the database refused


class TablePlay(TableState):
    """A table's game: rebuilding, bots, moves, windows settled, timers."""

    def __init__(self, stored: StoredTable, store: Store, settings: Settings) -> None:
        super().__init__(stored, store, settings)
        for ev in stored.events:
            self._replay_event(ev)
        if self.game is not None and self.game.over:
            self.status = "over"
            # a finished game's bots never play again: nothing to say about them
            self._unreported = []
            self.incidents = list(stored.notes)

    # ================================================================ rebuilding =============
    def _replay_event(self, ev: StoredEvent) -> None:
        d = ev.data
        if ev.kind in ("create", "join"):
            s = self.seats[d["seat"]]
            s.name, s.token_hash = displayable(str(d["name"])), d["token_hash"]
            s.client = d.get("client")
            if ev.kind == "create":
                self.creator, self.network = d.get("client"), d.get("network")
        elif ev.kind == "leave":
            s = self.seats[d["seat"]]
            s.name, s.token_hash, s.client = None, None, None
            if d.get("banned"):
                self.removed.add(str(d["banned"]))
            if d.get("join_secret"):
                self.join_secret = str(d["join_secret"])
        elif ev.kind == "start":
            self._do_start(d)
        elif ev.kind == "action":
            assert self.game is not None
            a = Action.from_json(d["action"])
            self._apply(a)
        else:
            raise ValueError(f"unknown stored event kind {ev.kind!r}")
        self.version = ev.version

    def _do_start(self, d: dict[str, Any], game: Game | None = None,
                  bots: dict[int, Bot] | None = None) -> None:
        for key, level in d["bots"].items():
            s = self.seats[int(key)]
            s.kind, s.level, s.name = "bot", level, bot_name(int(key))
        self.bots = bots if bots is not None else self._make_bots(d["bots"])
        self.game = game if game is not None else self._new_game(d["bots"])
        self.match = Match(self.game, [self.bots.get(s) for s in range(self.game.n)])
        self.requests = self.match.requests
        self.status = "playing"

    def _new_game(self, bots: dict[str, str]) -> Game:
        """The game as dealt at the start; ``bots``: the seats the start gives to bots."""
        from ..cards import parse_card
        deals = [[parse_card(c) for c in deck] for deck in self.deals] if self.deals else None
        names = [bot_name(s.seat) if str(s.seat) in bots else s.name or f"Seat {s.seat + 1}"
                 for s in self.seats]
        return Game(self.rules, names, seed=self.seed, deals=deals,
                    search_budget=self.settings.limits.search_budget)

    def _make_bots(self, start_bots: dict[str, str]) -> dict[int, Bot]:
        """Every bot seat's bot at the start (``start_bots``: human seats the start gives to
        bots)."""
        out: dict[int, Bot] = {}
        for s in self.seats:
            level = start_bots.get(str(s.seat), s.level if s.kind == "bot" else None)
            if level:
                out[s.seat] = self._make_bot(level, s.seat)
        return out

    def _make_bot(self, level: str, seat: int) -> Bot:
        """A seat's bot: a command only from the host's own configuration, else a built-in
        level of the closed list. A level this server does not offer (stored by an older
        version, or a command the host no longer configures) is never run: the basic bot
        takes the seat, and the table's incidents say so."""
        spec = self.settings.bot_commands.get(level)
        if spec is not None:
            try:
                return make_bot(bot_spec(spec))
            except ValueError as e:
                self._note_incident(seat, level, "start", str(e))
                return BasicBot()
        bot = builtin_bot(level, self.settings.limits)
        if bot is None:
            self._note_incident(seat, level, "start", "this server does not offer this bot")
            return BasicBot()
        return bot

    def _note_incident(self, seat: int | None, bot: str, kind: str, message: str,
                       extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Remember a bot's incident (told to players and written to the store by the owner:
        ``_report_incidents``)."""
        note = {"seat": seat, "bot": bot[:80], "kind": kind, "message": message[:300],
                **(extra or {})}
        if note not in self.incidents:  # a table rebuilt again notes the same thing once
            self.incidents.append(note)
            self._unreported.append(note)
        return note

    def _collect_incidents(self, seat: int, bot: Bot) -> None:
        take = getattr(bot, "take_incidents", None)
        if take is None:
            return
        for inc in take():
            self._note_incident(seat, str(inc.get("name") or inc.get("bot") or "bot"),
                                str(inc.get("kind")), str(inc.get("message")),
                                {"decision": inc.get("decision"), "sent": inc.get("sent")})

    async def _report_incidents(self) -> None:
        """Tell what went wrong with a bot: a warning in the server's log, a line in the
        table's log for the players, a note in the store (the summary and record show it)."""
        while self._unreported:
            note = self._unreported.pop(0)
            seat = note["seat"]
            who = self.seats[seat].name if seat is not None else "a bot"
            log.warning("table %s: bot %s of seat %s: %s: %s", self.id, note["bot"], seat,
                        note["kind"], note["message"])
            instead = ("the basic bot played that move" if note.get("fallback") == "move"
                       else "the basic bot plays the seat for the rest of the game")
            text = f"{who}'s bot ({note['bot']}) failed ({note['kind']}: {note['message']}); " \
                   f"{instead}"
            self.log.append(text)
            notice = dumps({"type": "notice", "text": text})
            for c in self.conns:
                c.send_text(notice)
            try:
                await self.store.add_note(self.id, note)
            except StoreError as e:
                log.warning("table %s: the incident was not stored: %s", self.id, e)

    def _apply(self, a: Action, prepared: Callable[[], None] | None = None
               ) -> tuple[str, bool]:
        """Apply an action (checked: ``prepared`` by ``Game.prepare``); return its log line and
        whether it ended a hand."""
        assert self.game is not None
        text, ended = apply_narrated(self.game, a, prepared)
        self.log.append(text)
        return text, ended

    async def _bot_events(self, *kinds: str) -> None:
        """Tell the bots that listen (external ones) of the game's start, hands and end.
        Built-in bots don't listen; an external one may be slow to answer: in a thread."""
        g = self.game
        if g is None:
            return
        from ..events import (
            game_end_event,
            game_start_event,
            hand_end_event,
            hand_start_event,
        )
        for seat, b in self.bots.items():
            if not callable(getattr(b, "event", None)):
                continue
            for kind in kinds:
                if kind == "game_start":
                    ev = game_start_event(g, seat)
                elif kind == "hand_start":
                    ev = hand_start_event(g)
                elif kind == "hand_end":
                    ev = hand_end_event(g)
                else:
                    ev = game_end_event(g)
                try:
                    await self._think(b, bot_event, b, ev)
                except Exception:
                    log.exception("table %s: the bot of seat %d failed an event", self.id, seat)
                self._collect_incidents(seat, b)
        await self._report_incidents()

    # ================================================================ the owner's loop ======
    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")
        if self.status == "playing":
            self.unwatched_since = time.time()
            for s in self.seats:
                if s.kind == "human" and not s.conns:
                    self._start_grace(s)
            self.post(self._resume)

    async def _resume(self) -> None:
        await self._bot_events("game_start", "hand_start")
        await self._drive()

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
                    self._later(STORE_RETRY, self._retry)
                else:
                    log.exception("table %s: %s failed", self.id, getattr(fn, "__name__", fn))
                continue
            if fut is not None and not fut.done():
                fut.set_result(result)

    async def _retry(self) -> None:
        self._bot_key = None
        if self._turn_seat is not None and self._turn_timer is None:
            self._turn_seat = None  # a timed-out turn that failed: its clock starts again
        await self._drive()

    # ================================================================ applying moves =========
    async def _commit(self, a: Action) -> None:
        """Store, apply and broadcast one legal action."""
        g = self.game
        assert g is not None
        prepared = g.prepare(a)  # the one check: IllegalActionError before anything is stored
        ev = StoredEvent(self.version + 1, "action", {"action": a.to_json()})
        await self.store.append(self.id, ev)
        text, hand_ended = self._apply(a, prepared)
        self.version = ev.version
        event: dict[str, Any] = {"seat": a.player, "action": a.to_json(), "text": text}
        if hand_ended:  # the hand as it was scored: everyone's cards are shown now
            event["hand_end"] = self._hand_end_json()
            if not g.over and self.hand_pause > 0 and self._awaited_people():
                self._start_pause()
        self.held.append(Held(self.version, "action", event=event))
        self._schedule()  # first: a requests message sent now carries the new clock
        if self.requests.sync(g):  # a window ended: its requests are gone, everyone is told
            self._broadcast(self._requests_msg)
        if g.over:
            # before the broadcast: a client told the game is over may ask any server of the
            # service for the record, and one that does not hold the table reads the status
            self.status = "over"
            try:
                await self.store.set_status(self.id, "over")
            except StoreError as e:  # the events are the truth: a reload finds it over
                log.warning("table %s: the status was not written: %s", self.id, e)
        self._broadcast_update(event)
        if hand_ended:
            await self._bot_events("hand_end", "game_end" if g.over else "hand_start")
        if g.over:
            for b in self.bots.values():
                await self._think(b, close_bot, b)
            self._broadcast_lobby()
            self._tell_idle()

    async def _choose(self, seat: int, bot: Bot | None = None) -> Action:
        """A bot's move for ``seat`` (thought out in the bots' pool: an expert or external bot
        may think long), through the match driver: its generator, and the basic bot's move
        instead of one that raised or was illegal (an incident says so)."""
        assert self.match is not None
        move = self.match.prepare(seat, bot or self.bots.get(seat) or self.cover_bot)
        # one legal action: no bot is asked, nothing to think about
        answer = move.only if move.only is not None else await self._think(move.bot,
                                                                            move.decide)
        a = self.match.accept(move, answer)
        for inc in self.match.take_incidents():
            self._note_incident(inc["seat"], str(inc.get("bot") or inc.get("name") or "bot"),
                                str(inc.get("kind")), str(inc.get("message")),
                                {"decision": inc.get("decision"), "sent": inc.get("sent"),
                                 "fallback": inc.get("fallback", "game")})
        await self._report_incidents()
        return a

    async def _think(self, bot: Bot | None, fn: Callable[..., Any], *args: Any) -> Any:
        """Bot work (a choice, an event for an external bot; ``bot`` None: a hint) in the
        bots' workers, in this table's creator's turn (liverpool.web.botpool)."""
        return await self.settings.bots().think(self.creator or self.id, bot, fn, *args)

    async def _resolve_step(self) -> None:
        """One action of a buy round or call window, as the core settles it: a seat's intent,
        its bot's answer (asked here, in the bots' pool), or silence (a pass)."""
        g = self.game
        assert g is not None
        bots = [s for s in range(g.n) if self.bot_controlled(s)]
        while True:
            step = self.requests.next_step(g, answers=bots)
            if step is None:
                return
            if isinstance(step, int):
                self.requests.answer(g, step, await self._choose(step))
                continue
            await self._commit(step)
            return

    async def _close_window(self) -> None:
        g = self.game
        assert g is not None
        while g.phase is Phase.CALL:
            await self._resolve_step()

    async def _drive(self) -> None:
        """Answer what nobody needs to decide by hand, then set the timers for what is next."""
        g = self.game
        if g is None:
            return
        if self.asleep:
            self._cancel_timers()
            return
        while not g.over:
            if g.phase is Phase.BUY:
                await self._resolve_step()
            elif g.phase is Phase.CALL and (not any(
                    not self.bot_controlled(s) for s in self._public().asked)
                    or (self._window() is None and not self.people_waiting())):
                # no person could call: close at once; a window that ends the hand (nobody
                # in this hand decides after it) closes once the people who may call have
                # answered, or when the table's buy window runs out
                await self._resolve_step()
            else:
                break
        self._schedule()

    def _hand_end_json(self) -> dict[str, Any]:
        """The hand just scored, for the end-of-hand screen: who went out, everyone's cards
        left, the melds, each seat's points and the running totals."""
        g = self.game
        assert g is not None and g.last_hand_end is not None
        end = g.last_hand_end
        return {"hand_number": end.hand_number,
                "went_out": [s for s, out in enumerate(end.out) if out],
                "hands": [[card_str(c) for c in sorted_cards(h, self.rules.deuces_wild)]
                          for h in end.hands],
                "melds": [m.to_json() for m in end.melds], "down": list(end.down),
                "points": list(g.scores[-1]), "totals": list(g.totals)}

    # ================================================================ the end-of-hand pause ==
    def _awaited_people(self) -> bool:
        return any(s.kind == "human" and not s.covered and s.conns for s in self.seats)

    def _start_pause(self) -> None:
        """Hold the next hand while the people look at the last one: until each connected
        person says they are ready, or the table's hand_pause runs out."""
        loop = asyncio.get_running_loop()
        self._ready = set()
        self._pause_deadline = loop.time() + self.hand_pause
        if self._pause_timer is not None:
            self._pause_timer.cancel()
        self._pause_timer = self._later(self.hand_pause, self._pause_timeout,
                                        self._pause_deadline)

    async def _pause_timeout(self, deadline: float) -> None:
        if self._pause_deadline == deadline:
            await self.end_pause()

    async def end_pause(self) -> None:
        if self._pause_deadline is None:
            return
        self._pause_deadline = None
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        self._ready = set()
        self._broadcast(lambda seat: {"type": "pause", "version": self.version, "pause": None})
        await self._drive()

    async def on_ready_seat(self, seat: int) -> None:
        """``seat`` is ready for the next hand; the pause ends when nobody is awaited."""
        if self._pause_deadline is None:
            return
        self._ready.add(seat)
        if not self._awaited():
            await self.end_pause()
            return
        self._broadcast(lambda s: {"type": "pause", "version": self.version,
                                   "pause": self._pause_json()})

    def _schedule(self) -> None:
        g = self.game
        if g is None or g.over or self.paused or self.asleep:
            self._cancel_timers()
            return
        seat = self.decision_seat()
        waiting = self.people_waiting()
        # a bot's (or a covered seat's) move after its think time, once no person may still
        # ask for the discard (they get the buy window to say "May I?" or "no thanks")
        key = (self.version, -1 if seat is None else seat)
        if seat is not None and self.bot_controlled(seat) and not waiting:
            if self._bot_key != key:
                if self._bot_timer is not None:
                    self._bot_timer.cancel()
                self._bot_key = key
                # the move is due a think time after it was first due at this version: a
                # person who asks, withdraws and asks again never puts it off
                now = asyncio.get_running_loop().time()
                if self._bot_due is None or self._bot_due[0] != key:
                    self._bot_due = (key, now + self.settings.bot_think)
                self._bot_timer = self._later(self._bot_due[1] - now, self._bot_move, seat,
                                              self.version)
        elif self._bot_timer is not None:
            self._bot_timer.cancel()
            self._bot_timer, self._bot_key = None, None
        # the turn timer runs while one human seat keeps the decision
        human = seat if seat is not None and not self.bot_controlled(seat) else None
        if g.phase is not Phase.BUY and human != self._turn_seat:
            if self._turn_timer is not None:
                self._turn_timer.cancel()
            self._turn_timer, self._turn_deadline, self._turn_seat = None, None, human
            if human is not None and self.turn_timer:
                loop = asyncio.get_running_loop()
                self._turn_deadline = loop.time() + self.turn_timer
                self._turn_timer = self._later(self.turn_timer, self._turn_timeout, human,
                                               self._turn_deadline)
        # the buy timer: how long intents are taken after a discard (the table's buy_timer),
        # or how long a bot waits for the people who may still ask (its buy_window)
        window = self._buy_window_open() or g.phase is Phase.CALL
        # (a window that ends the hand waits for the people as a bot does: nobody else decides)
        bot_waits = bool(waiting) and (self.bot_controlled(seat) if seat is not None
                                       else g.phase is Phase.CALL)
        length = self.buy_timer or (self.buy_window if bot_waits else None)
        if window and length is not None and self._buy_key != self.version \
                and self._window_closed_at != self.version:
            if self._buy_timer is not None:
                self._buy_timer.cancel()
            self._buy_key = self.version
            # a window's deadline is set once, when it first opens: the clock stopped by a
            # request and started again by its withdrawal runs on from where it was
            now = asyncio.get_running_loop().time()
            if self._window_due is None or self._window_due[0] != self.version:
                self._window_due = (self.version, now + length)
            self._buy_deadline = self._window_due[1]
            self._buy_timer = self._later(self._buy_deadline - now, self._buy_timeout,
                                          self.version)
        elif self._buy_timer is not None and (not window or (
                self.buy_timer is None and not bot_waits)):
            # the window closed, or everyone it waited for has answered: the clock goes
            self._buy_timer.cancel()
            self._buy_timer, self._buy_key, self._buy_deadline = None, None, None

    def _cancel_timers(self) -> None:  # (the end-of-hand pause has its own clock)
        for h in (self._bot_timer, self._turn_timer, self._buy_timer):
            if h is not None:
                h.cancel()
        self._bot_timer = self._turn_timer = self._buy_timer = None
        self._bot_key = self._buy_key = None
        self._turn_seat = None
        self._turn_deadline = self._buy_deadline = None

    async def _bot_move(self, seat: int, version: int) -> None:
        if self.version != version or self.decision_seat() != seat or self.asleep \
                or not self.bot_controlled(seat) or self.paused or self.people_waiting():
            return
        self._bot_key = None
        g = self.game
        assert g is not None
        if g.phase is Phase.CALL:
            await self._close_window()
        if not g.over and seat in g.to_act() and g.phase is not Phase.BUY:
            await self._commit(await self._choose(seat))
        await self._drive()

    async def _turn_timeout(self, seat: int, deadline: float) -> None:
        if self._turn_seat != seat or self._turn_deadline != deadline:
            return
        g = self.game
        assert g is not None
        self._turn_timer = None
        steps = 0
        # the basic bot finishes the seat's move (its whole turn, if it is the player on turn)
        while not g.over and self.decision_seat() == seat and steps < MAX_BOT_STEPS \
                and not self.paused:  # (a hand it ends waits for the people, as always)
            if g.phase is Phase.CALL:
                await self._close_window()
                continue
            await self._commit(await self._choose(seat, self.cover_bot))
            steps += 1
            while g.phase is Phase.BUY:
                await self._resolve_step()
        self._turn_seat = None
        self._turn_deadline = None
        await self._drive()

    async def _buy_timeout(self, version: int) -> None:
        if self.version != version or self.asleep:
            return
        self._buy_timer, self._buy_deadline = None, None
        self._window_closed_at = version
        g = self.game
        assert g is not None
        if g.phase is Phase.CALL:
            await self._close_window()
            await self._drive()
            return
        # the buy window closes: the intents announced stand and are resolved when the player
        # draws; new ones are refused (intents_for is empty from now on). Everyone is told,
        # with the clock that now runs (the turn timer of the player deciding, if any), and a
        # bot that waited for the people moves.
        self._schedule()
        self._broadcast(self._requests_msg)

    # ================================================================ sleeping ==============
    async def sleep(self) -> bool:
        """A game nobody has watched for a while stops: no bot moves, no clock runs, until
        somebody connects (a ``hello`` wakes it). True if it fell asleep now."""
        if self.status != "playing" or self.conns or self.asleep:
            return False
        self.asleep = True
        self._cancel_timers()
        log.info("table %s sleeps: nobody has been connected to it", self.id)
        return True

    # ================================================================ covering a seat ======
    def _start_grace(self, s: SeatState) -> None:
        if s.grace is not None or s.covered:
            return
        s.grace = self._later(self.settings.grace, self._cover, s.seat)

    async def _cover(self, seat: int) -> None:
        s = self.seats[seat]
        s.grace = None
        if s.conns or s.covered or self.status != "playing":
            return
        s.covered = True
        self._broadcast_lobby()
        await self._drive()
