"""A terminal play session, free of any screen: the game, who sits where (one person, the rest
bots), the record file kept up to date after every action, and what each action did.

Domain words: *session* (one game played at this terminal), *human seat*, *bot seat*, *record
file* (docs/rules.md (Records), rewritten atomically after every action so a crash loses nothing),
*seat file* (a small sidecar beside the record naming the human seat and the bots' levels, for
``--resume``), *event* (one applied action with its readable line, and what it ended), *hand
result* (who went out, the cards left, the points, the running totals).

The Textual app and the plain line mode both drive a ``Session``; neither touches the engine
except through actions, legal actions and views.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import Action
from ..bots import Bot, BotSpecError, bot_event, close_bot, hint, make_bot
from ..bots.external import game_end_event, game_start_event, hand_end_event, hand_start_event
from ..cards import Card
from ..engine import Game, IllegalActionError, SeatView
from ..narrate import describe
from ..record import RecordError, replay
from ..rules import RuleSet
from .text import action_label, second_person

BOT_NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal")
SEAT_FILE_SUFFIX = ".seats.json"


@dataclass(frozen=True)
class BotTurn:
    """One bot decision to make: the seat, how many actions the game had when it was asked,
    and either the only answer or what the bot sees and may choose from."""

    seat: int
    at: int
    only: Action | None
    bot: Bot | None
    legal: Sequence[Action]
    view: SeatView | None
    rng: random.Random | None

    def decide(self) -> Action:
        if self.only is not None:
            return self.only
        assert self.bot is not None and self.view is not None and self.rng is not None
        return self.bot.choose(self.view, self.legal, self.rng)


class SessionError(ValueError):
    """A session that cannot start: bad bot list, unreadable or broken record."""


@dataclass
class HandResult:
    number: int  # 1-based position of the hand in the game
    out: list[int]  # seats that went out (none when the stock ran dry or the turn limit hit)
    left: list[list[Card]]  # each seat's cards when the hand ended
    points: list[int]
    totals: list[int]


@dataclass
class Event:
    seat: int
    action: Action
    text: str | None  # the readable line ("Bob buys 7H (+1 penalty card)"), None for a pass
    hand: HandResult | None = None  # set when this action ended a hand
    game_over: bool = False
    warnings: list[str] = field(default_factory=list)  # "Bob has one card left"


def seat_file_for(record_path: Path) -> Path:
    name = record_path.name
    stem = name[:-5] if name.endswith(".json") else name
    return record_path.with_name(stem + SEAT_FILE_SUFFIX)


def default_save_path(seed: int) -> Path:
    import platformdirs
    folder = Path(platformdirs.user_data_dir("liverpool")) / "games"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder / f"{stamp}-seed{seed}.json"


def write_atomic(path: Path, data: Any) -> None:
    """Write JSON so that the file is always either the old or the new whole text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def bot_levels(spec: str, bot_seats: int) -> list[str]:
    """``basic`` (one for all) or ``basic,expert,random`` (one per bot seat)."""
    levels = [b.strip() for b in spec.split(",") if b.strip()]
    if len(levels) == 1:
        levels *= bot_seats
    if len(levels) != bot_seats:
        raise SessionError(f"--bots names {len(levels)} bots for {bot_seats} computer seats "
                           f"(give one level for all, or one per seat)")
    return levels


class Session:
    """One game at this terminal: ``human`` is the person's seat, ``levels[s]`` the bot level of
    every other seat (None for the human)."""

    def __init__(self, game: Game, human: int, levels: Sequence[str | None], save_path: Path,
                 bot_seed: int, bots: Sequence[Bot | None] | None = None) -> None:
        if not 0 <= human < game.n:
            raise SessionError(f"seat {human} is not at this table of {game.n}")
        self.game = game
        self.human = human
        self.levels = list(levels)
        try:
            self.bots: list[Bot | None] = list(bots) if bots is not None else [
                None if s == human or lv is None else make_bot(lv)
                for s, lv in enumerate(self.levels)]
        except BotSpecError as e:
            raise SessionError(str(e)) from None
        # a per-seat generator, seeded from the game seed, so bot play repeats with the seed
        self.rngs = [random.Random(bot_seed * 8 + s) for s in range(game.n)]
        self.save_path = save_path
        self.closed = False
        self.hinter: Bot | None = None
        self.warned_hand = -1
        self.warned: set[int] = set()  # seats already announced on one card this hand
        for s, bot in enumerate(self.bots):
            if bot is not None:
                # the same events every host sends (rules with overrides, the bot's seed)
                bot_event(bot, game_start_event(game, s))
                if not game.over:
                    bot_event(bot, hand_start_event(game))

    # ---- starting ------------------------------------------------------------------------
    @classmethod
    def new(cls, rules: RuleSet, players: int, bots: str, name: str, seed: int | None,
            save: str | None, human: int = 0, deals: Sequence[Sequence[Card]] | None = None,
            first_dealer: int = 0) -> Session:
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        rules.check_players(players)
        levels = bot_levels(bots, players - 1)
        seat_levels: list[str | None] = []
        names = []
        it = iter(levels)
        for s in range(players):
            if s == human:
                seat_levels.append(None)
                names.append(name)
            else:
                seat_levels.append(next(it))
                names.append(BOT_NAMES[s % len(BOT_NAMES)])
        game = Game(rules, names, seed=seed, deals=deals, first_dealer=first_dealer)
        path = Path(save) if save else default_save_path(seed)
        session = cls(game, human, seat_levels, path, seed)
        session.save_seats()
        session.save()
        return session

    @classmethod
    def resume(cls, file: str, save: str | None = None, bots: str | None = None,
               name: str | None = None) -> Session:
        """Rebuild a saved game with ``record.replay`` and go on. The seat file beside the
        record says who is the person and which bots play; without it the seat named ``name``
        (else seat 0) is the person and ``bots`` gives the levels."""
        path = Path(file)
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise SessionError(f"cannot read {file}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise SessionError(f"{file} is not a game record (not JSON: {e})") from None
        try:
            result = replay(rec)
        except RecordError as e:
            raise SessionError(f"{file} is not a game record: {e}") from None
        if result.error is not None:
            raise SessionError(f"{file}: action {result.error['index']} is illegal: "
                               f"{result.error['reason']}")
        game = result.game
        human, levels = 0, None
        seats_path = seat_file_for(path)
        if seats_path.exists():
            try:
                meta = json.loads(seats_path.read_text(encoding="utf-8"))
                human = int(meta["human"])
                levels = [None if lv is None else str(lv) for lv in meta["bots"]]
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise SessionError(f"{seats_path} is not a seat file: {e}") from None
            if len(levels) != game.n:
                raise SessionError(f"{seats_path} names {len(levels)} seats for {game.n}")
        else:
            if name is not None and name in game.players:
                human = game.players.index(name)
            given = bot_levels(bots or "basic", game.n - 1)
            it = iter(given)
            levels = [None if s == human else next(it) for s in range(game.n)]
        target = Path(save) if save else path
        session = cls(game, human, levels, target, game.seed)
        if target != path or not seats_path.exists():
            session.save_seats()
        session.save()
        return session

    # ---- saving --------------------------------------------------------------------------
    def save(self) -> None:
        write_atomic(self.save_path, self.game.record())

    def save_seats(self) -> None:
        write_atomic(seat_file_for(self.save_path), {
            "human": self.human, "bots": self.levels,
            "note": "seats of a liverpool play game: the person's seat and each bot's level"})

    def close(self) -> None:
        """Tell the bots the game is done and release them (external bots' processes)."""
        if self.closed:
            return
        self.closed = True
        for bot in self.bots:
            if bot is not None:
                close_bot(bot)

    # ---- whose decision ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.over

    def view(self, seat: int | None = None) -> SeatView:
        return self.game.view_for(self.human if seat is None else seat)

    def human_to_act(self) -> bool:
        return self.human in self.game.to_act()

    def bot_to_act(self) -> int | None:
        """The bot seat whose decision comes next, or None when the person is asked (or the game
        is over). In a first-call buy round the person, who sees the question, answers first;
        the bots then answer in the order the engine lists them (from the drawer's left)."""
        seats = self.game.to_act()
        if not seats or self.human in seats:
            return None
        return seats[0]

    def legal(self) -> list[Action]:
        return self.game.legal_actions(self.human)

    def hint(self) -> tuple[Action, str] | None:
        """The expert's suggestion, with the basic rule's reason where they agree."""
        think = self.hint_job()
        return None if think is None else think()

    def hint_job(self) -> Callable[[], tuple[Action, str]] | None:
        """``hint`` in two steps: what the seat sees is read now; the returned function does
        the expert's search from that alone, so it may run on another thread."""
        legal = self.legal()
        if not legal:
            return None
        view = self.view()
        basic, why = hint(view, legal)
        if self.hinter is None:
            self.hinter = make_bot("expert")
        hinter = self.hinter
        # seeded by the position, so asking twice gives the same answer
        rng = random.Random(len(self.game.actions))

        def think() -> tuple[Action, str]:
            a = hinter.choose(view, legal, rng)
            if a == basic:
                return a, why
            return a, f"{action_label(a, view.players)}: the expert's search over sampled " \
                      f"deals prefers it"
        return think

    def why_illegal(self, action: Action) -> str | None:
        return self.game.why_illegal(action)

    def is_legal(self, action: Action) -> bool:
        return self.game.is_legal(action)

    # ---- acting --------------------------------------------------------------------------
    def act(self, action: Action) -> Event:
        """Apply the person's action; ``IllegalActionError`` (with the engine's reason, nothing
        changed) when it is not allowed."""
        if action.player != self.human:
            raise IllegalActionError("that seat is not yours")
        return self._apply(action)

    def bot_turn(self) -> BotTurn | None:
        """The next bot decision, ready to be thought out away from the screen's thread: it
        holds the seat's view and legal actions, never the game."""
        seat = self.bot_to_act()
        if seat is None:
            return None
        bot = self.bots[seat]
        legal = self.game.legal_actions(seat)
        if len(legal) == 1 or bot is None:
            return BotTurn(seat, len(self.game.actions), legal[0], None, legal, None, None)
        return BotTurn(seat, len(self.game.actions), None, bot, legal, self.game.view_for(seat),
                       self.rngs[seat])

    def play_bot(self, turn: BotTurn, action: Action) -> Event:
        """Apply a bot's answer to ``turn``; refused if the game moved on meanwhile."""
        if len(self.game.actions) != turn.at:
            raise IllegalActionError("the game moved on while the bot was thinking")
        return self._apply(action)

    def step_bot(self) -> Event | None:
        turn = self.bot_turn()
        return None if turn is None else self.play_bot(turn, turn.decide())

    def _apply(self, a: Action) -> Event:
        g = self.game
        text = describe(g, a) if g.is_legal(a) else None
        if text is not None and a.player == self.human:
            text = second_person(text, g.players[a.player])
        before = [g.view_for(s) for s in range(g.n)]
        hands_before = len(before[0].scores)
        g.apply(a)  # raises IllegalActionError, the state unchanged
        self.save()
        ev = Event(a.player, a, text)
        take = getattr(self.bots[a.player], "take_incidents", None)
        for inc in take() if take is not None else ():
            # an external bot broke the protocol: say so, as every host does
            ev.warnings.append(f"{g.players[a.player]}'s bot failed ({inc['kind']}: "
                               f"{inc['message']}); the basic bot plays the seat for the rest "
                               f"of the game")
        after = g.view_for(self.human)
        if len(after.scores) > hands_before:
            ev.hand = self._hand_result(before, a, after)
            for bot in self.bots:
                if bot is not None:
                    bot_event(bot, hand_end_event(g))
                    if not g.over:
                        bot_event(bot, hand_start_event(g))
        else:
            if after.hand_index != self.warned_hand:
                self.warned_hand, self.warned = after.hand_index, set()
            for s in range(g.n):
                # once a hand per seat: a player on one card draws and discards every turn
                if s != self.human and after.hand_sizes[s] == 1 and s not in self.warned:
                    self.warned.add(s)
                    ev.warnings.append(f"{g.players[s]} has one card left")
        if g.over:
            ev.game_over = True
            for bot in self.bots:
                if bot is not None:
                    bot_event(bot, game_end_event(g))
        return ev

    def _hand_result(self, before: list[SeatView], a: Action, after: SeatView) -> HandResult:
        row = list(after.scores[-1])
        n = len(before)
        # a seat that went out scores only its penalties of the hand (cards score above zero)
        out = [s for s in range(n) if row[s] == before[s].penalties[s]
               and (before[s].out[s] or s == a.player)]
        left = [[] if s in out else list(before[s].hand) for s in range(n)]
        totals = [sum(r[s] for r in after.scores) for s in range(n)]
        return HandResult(len(after.scores), out, left, row, totals)

    # ---- finishing -----------------------------------------------------------------------
    def saved_message(self) -> str:
        if self.game.over:
            return f"The game record is in {self.save_path} (liverpool replay " \
                   f"{self.save_path} --watch steps through it)."
        return f"The game is saved in {self.save_path}; go on with: " \
               f"liverpool play --resume {self.save_path}"
