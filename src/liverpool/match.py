"""The match driver: one game played between people and bots, driven the same way by every front
end (the simulator, the demo, the benchmark, the soak run, random play, the terminal and, through
the same primitives, the web table).

Domain words: *match* (a ``Game`` with a bot or a person at each seat), *bot seat* and *person's
seat* (``bots[seat]`` is None: the person decides through the front end), *bot generator* (the
one recipe for a bot's own randomness, ``bot_rng``: seeded from the game's seed and the seat,
hashed so that it does not reveal the deal), *decision* (who must decide next, and whether it is
a *move* on its turn or an *answer* in a buy round or call window), *request* and *answer* (the
out-of-turn words of ``liverpool.outofturn``; buy rounds and call windows are settled only
through its ``Requests``, people before bots in a first-call round), *bot move* (a bot's
decision prepared so it can be thought out on another thread), *fallback* (the basic bot
plays a move for a bot that raised or answered illegally), *incident* (such a failure, or an
external bot's, recorded with the seat and the record's action index; ``"fallback"`` says whether
the basic bot played that ``"move"`` or plays the seat for the rest of the ``"game"``, as after
an external bot's incident), *event* (the engine's, engine.events: what each applied action
made happen; bots hear the hand and game events as the bot protocol's ``hand_start``,
``hand_end``, ``game_end``, and a bot that reads the engine's events, ``observe``, is told each as
its seat may see it), *listener* (a callback told of every event in order).

Everything here is synchronous: an asyncio owner calls ``decision``, ``play``, ``request`` and
``withdraw`` on its own thread and runs ``BotMove.decide`` (the only slow part, which never
touches the game) in a worker thread, then ``accept``.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .actions import Action
from .bots.base import Bot, bot_event, bot_observe
from .bots.basic import BasicBot
from .engine import Event, Game, IllegalActionError, Phase, SeatView
from .events import bot_rng, bot_seed, game_start_event, protocol_events
from .outofturn import RequestKind, Requests, settling

DecisionKind = Literal["move", "buy", "call"]
Listener = Callable[[Event], None]


# ---- decisions ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide next: ``seat``, whether a bot plays it, and ``kind``: ``"move"`` (an
    ordinary decision of the seat to act) or ``"buy"``/``"call"`` (its answer when asked in a
    buy round or call window: the request kind, or a pass)."""

    seat: int
    bot: bool
    kind: DecisionKind

    @property
    def answer(self) -> bool:
        return self.kind != "move"


@dataclass(slots=True)
class BotMove:
    """A bot's decision prepared to be thought out anywhere (another thread): the seat's view,
    its legal actions and the bot's generator, never the game. ``only`` is the one legal action
    (no bot is asked). ``decide`` replaces a bot that raises by the basic bot and notes why in
    ``failure``; ``Match.accept`` then checks the answer against the game."""

    seat: int
    at: int  # the match's version when prepared: a move for a game that moved on is refused
    kind: DecisionKind
    only: Action | None
    bot: Bot | None
    legal: Sequence[Action]
    view: SeatView | None
    rng: random.Random | None
    failure: str | None = None

    def decide(self) -> Action:
        if self.only is not None:
            return self.only
        assert self.bot is not None and self.view is not None and self.rng is not None
        try:
            return self.bot.choose(self.view, self.legal, self.rng)
        except Exception as e:  # a broken bot costs its move, never the game
            self.failure = f"{type(e).__name__}: {e}"
            return _fallback().choose(self.view, self.legal, self.rng)


def _fallback() -> Bot:
    return BasicBot()


def _tell(bot: object, event: dict[str, Any]) -> None:
    bot_event(bot, event)


# ---- the match ---------------------------------------------------------------------------------

class Match:
    """One game between the seats' bots and people (``bots[seat]`` None), with each bot's
    generator (``bot_rng``) and the out-of-turn requests of the current window.

    ``ask_people``: people are asked in buy rounds and call windows and answer explicitly, like
    bots (the terminal); otherwise only their requests count and their silence is a pass (the
    web table). Either way people are asked before bots in a first-call round. ``listener`` is
    told every engine event in order (engine.events; narration is ``narrate.Narrator`` of
    them). ``index`` is the game's number in a series (bots' ``game_start``, incidents);
    ``seed`` seeds the bot generators (default: the game's seed)."""

    def __init__(self, game: Game, bots: Sequence[Bot | None], *, index: int = 0,
                 ask_people: bool = False, listener: Listener | None = None,
                 seed: int | None = None, bots_hear: bool = True) -> None:
        if len(bots) != game.n:
            raise ValueError(f"{len(bots)} seats given for a table of {game.n}")
        self.game = game
        self.bots: list[Bot | None] = list(bots)
        self.seed = game.seed if seed is None else seed
        self.rngs = [bot_rng(self.seed, s) for s in range(game.n)]
        self.requests = Requests()
        self.window_closed = False
        self.index = index
        self.ask_people = ask_people
        # whether the match tells the bots the game's events itself; a host whose bots may be
        # slow to listen (an external program) tells them off its loop, ``protocol_events``
        self.bots_hear = bots_hear
        self.listener = listener
        self.incidents: list[dict[str, Any]] = []
        self.version = 0  # counts every change: actions, requests and answers
        self.started = False
        self._taken = 0  # incidents handed out by take_incidents
        self._decisions = [0] * game.n  # bot decisions asked of each seat
        self.requests.sync(game)

    # ---- seats ---------------------------------------------------------------------------
    def people(self) -> list[int]:
        return [s for s, b in enumerate(self.bots) if b is None]

    def answers(self) -> list[int]:
        """The seats asked for their answer in a buy round or call window."""
        return [s for s, b in enumerate(self.bots) if b is not None or self.ask_people]

    # ---- the game's start and end ----------------------------------------------------------
    def start(self) -> list[Event]:
        """Tell the bots the game begins (``game_start``, and the hand in progress); the first
        call only, and done by ``decision`` and ``play`` when not called before. Returns the
        ``hand_started`` event of the hand in progress (also given to the listener)."""
        if self.started:
            return []
        self.started = True
        events: list[Event] = [] if self.game.over else [self.game.hand_started()]
        self._observe(events)
        for s, bot in enumerate(self.bots):
            if bot is not None:
                self._tell_bot(s, game_start_event(self.game, s, self.index,
                                                   bot_seed(self.seed, s)))
                for told in protocol_events(events, s):
                    self._tell_bot(s, told)
        self._publish(events)
        return events

    def close(self) -> None:
        """Release every bot (an external bot's process), each even if another fails."""
        from .bots.base import close_bot
        with contextlib.ExitStack() as closing:
            for bot in self.bots:
                if bot is not None:
                    closing.callback(close_bot, bot)

    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- who decides -----------------------------------------------------------------------
    def decision(self) -> Decision | None:
        """Who must decide next (None once the game is over). In a buy round or call window the
        requests and answers settle it (``Requests.next_step``): each action that needs nobody's
        word (a request that wins, a pass) is applied here, events and all, so the decision
        returned is always a seat's."""
        while True:
            step = self.next_step()
            if not isinstance(step, Action):
                return step
            self._apply(step)

    def next_step(self, answers: Collection[int] | None = None) -> Action | Decision | None:
        """What comes next, applying nothing: an action that needs nobody's word (a request
        that wins, a pass: the host applies it with ``apply``, as a server that stores each
        action first does), a seat's decision, or None once the game is over. ``answers``: the
        seats asked for their answer in a buy round or call window (default ``answers()``; a
        host whose people's silence is a pass gives the seats bots play now)."""
        self.start()
        game = self.game
        if game.over:
            return None
        if settling(game):
            asked = self.answers() if answers is None else answers
            step = self.requests.next_step(game, asked, self.people())
            if isinstance(step, Action):
                return step
            assert step is not None
            kind: DecisionKind = "buy" if game.phase is Phase.BUY else "call"
            return Decision(step, self.bots[step] is not None, kind)
        seat = game.to_act()[0]
        return Decision(seat, self.bots[seat] is not None, "move")

    def answer(self, action: Action) -> None:
        """Record a seat's answer (buy, call or pass) in the open buy round or call window;
        ``IllegalActionError`` when it may not answer so."""
        self._answer(action)

    def apply(self, action: Action, prepared: Callable[[], tuple[Event, ...]] | None = None
              ) -> tuple[Event, ...]:
        """Apply ``action`` now, whatever the window (a step ``next_step`` gave, or a move);
        ``prepared``: what ``Game.prepare`` returned for it, when it was checked before (a
        server stores the action in between). Returns the engine's events."""
        self.start()
        return self._apply(action, prepared)

    # ---- bots ------------------------------------------------------------------------------
    def prepare(self, seat: int, bot: Bot | None = None) -> BotMove:
        """``seat``'s next decision ready for its bot (``bot`` instead, e.g. a person's seat
        covered while they are away; a person's seat without one gets the basic bot)."""
        game = self.game
        kind: DecisionKind = "move"
        if settling(game):
            kind = "buy" if game.phase is Phase.BUY else "call"
        legal = game.legal_actions(seat)
        if not legal:
            raise IllegalActionError(f"no decision is waiting for seat {seat}")
        if len(legal) == 1:
            return BotMove(seat, self.version, kind, legal[0], None, legal, None, None)
        player = bot or self.bots[seat] or _fallback()
        return BotMove(seat, self.version, kind, None, player, legal, game.view_for(seat),
                       self.rngs[seat])

    def accept(self, move: BotMove, action: Action) -> Action:
        """The action to play for ``move``, answered ``action``: the bot's own when it is
        legal, else the basic bot's (an incident says why). ``IllegalActionError`` when the
        match moved on while the bot thought."""
        if move.at != self.version:
            raise IllegalActionError("the game moved on while the bot was thinking")
        if move.only is not None:
            return move.only
        s = move.seat
        self._decisions[s] += 1
        assert move.view is not None and move.rng is not None
        if move.failure is not None:
            self._incident(s, move.bot, "crash", f"the bot raised {move.failure}")
        elif action.player != s or not (action in move.legal or self.game.is_legal(action)):
            why = (f"it answered for seat {action.player}" if action.player != s
                   else self.game.why_illegal(action))
            self._incident(s, move.bot, "illegal", f"illegal action: {why}",
                           sent=json.dumps(action.to_json()))
            action = _fallback().choose(move.view, move.legal, move.rng)
        self._collect(s)
        return action

    def bot_action(self, seat: int, bot: Bot | None = None) -> Action:
        """The bot's choice for ``seat`` from its view and legal actions, with its generator
        (``prepare``, ``BotMove.decide`` and ``accept`` in one call, on this thread)."""
        move = self.prepare(seat, bot)
        return self.accept(move, move.decide())

    # ---- acting ----------------------------------------------------------------------------
    def play(self, action: Action) -> tuple[Event, ...]:
        """Play ``action`` (a person's or a bot's) and return the engine's events for it, in
        order (each also given to the listener; bots hear the hand and game events). In a buy
        round or call window a seat's buy, call or pass is its answer: it is recorded, and the
        next ``decision`` settles it (nothing is applied yet, no events). ``IllegalActionError``
        with the engine's reason, nothing changed, when it may not."""
        self.start()
        if settling(self.game) and action.type in ("buy", "call", "pass"):
            self._answer(action)
            return ()
        return self._apply(action)

    def request(self, seat: int, kind: RequestKind,
                action: Action | None = None) -> Action:
        """``seat`` asks to buy or call the top discard (``Requests.ask``); the reason in an
        ``IllegalActionError`` when it may not."""
        wanted = self.requests.ask(self.game, seat, action if action is not None
                                   else Action(kind, seat))
        self.version += 1
        return wanted

    def withdraw(self, seat: int) -> bool:
        """``seat`` takes its request back; True when it had one."""
        gone = self.requests.withdraw(self.game, seat)
        if gone:
            self.version += 1
        return gone

    def run(self) -> Game:
        """Play an all-bot game to its end."""
        while (d := self.decision()) is not None:
            if not d.bot:
                raise ValueError(f"seat {d.seat} is a person's: run() plays bots only")
            self.play(self.bot_action(d.seat))
        return self.game

    # ---- incidents -------------------------------------------------------------------------
    def take_incidents(self) -> list[dict[str, Any]]:
        """The incidents recorded since the last call."""
        out = self.incidents[self._taken:]
        self._taken = len(self.incidents)
        return out

    # ---- inside ----------------------------------------------------------------------------
    def _answer(self, action: Action) -> None:
        game = self.game
        seat = action.player
        if seat in game.to_act():
            reason = game.why_illegal(action)
            if reason is not None:
                raise IllegalActionError(reason)
        elif not game.request_kinds(seat) or action.type not in ("buy", "call", "pass"):
            # not asked in this buy round or call window (the engine's ``why_no_request``)
            raise IllegalActionError(game.why_illegal(action) or "not possible now")
        self.requests.answer(game, seat, action)
        self.version += 1

    def _apply(self, action: Action, prepared: Callable[[], tuple[Event, ...]] | None = None
               ) -> tuple[Event, ...]:
        game = self.game
        # IllegalActionError, the state unchanged; ``prepared``: checked already (Game.prepare)
        events = prepared() if prepared is not None else game.apply(action)
        self.version += 1
        # whether the action closed the window the requests were for (they are gone now)
        self.window_closed = self.requests.sync(game)
        self._observe(events)
        if self.bots_hear:
            for s, bot in enumerate(self.bots):
                if callable(getattr(bot, "event", None)):  # (built-in bots do not listen)
                    for event in protocol_events(events, s):
                        self._tell_bot(s, event)
        self._publish(events)
        return events

    def _observe(self, events: Sequence[Event]) -> None:
        """Each bot that reads the engine's events (``bot_observe``) is told them as its seat
        sees them, hosts or not: noting one is cheap and never waits on the bot."""
        for s, bot in enumerate(self.bots):
            if bot is not None and callable(getattr(bot, "observe", None)):
                for event in events:
                    bot_observe(bot, event.for_seat(s))

    def _publish(self, events: Sequence[Event]) -> None:
        if self.listener is not None:
            for event in events:
                self.listener(event)

    def _tell_bot(self, seat: int, event: dict[str, Any]) -> None:
        if not self.bots_hear:
            return
        _tell(self.bots[seat], event)
        self._collect(seat)

    def _collect(self, seat: int) -> None:
        """An external bot's own incidents (it broke the protocol and plays on as basic)."""
        take = getattr(self.bots[seat], "take_incidents", None)
        if callable(take):
            for found in take():
                self.incidents.append({**found, "seat": seat, "game": self.index,
                                       "action": len(self.game.actions), "fallback": "game"})

    def _incident(self, seat: int, bot: Bot | None, kind: str, message: str,
                  sent: str | None = None) -> None:
        self.incidents.append({
            "bot": getattr(bot, "name", "bot"), "seat": seat, "game": self.index,
            "decision": self._decisions[seat], "action": len(self.game.actions),
            "kind": kind, "message": message, "sent": sent, "fallback": "move"})


__all__ = ["BotMove", "Decision", "DecisionKind", "Listener", "Match"]
