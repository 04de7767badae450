"""A terminal play session, free of any screen: the game, who sits where (one person, the rest
bots), the record file kept up to date after every action, and what each action did.

Domain words: *session* (one game played at this terminal), *human seat*, *bot seat*, *record
file* (docs/rules.md (Records), rewritten atomically after every action so a crash loses nothing),
*seat file* (a small sidecar beside the record naming the human seat, the bots' levels and the
game's id, for ``--resume``), *game id* (names one game for good, whatever file it is saved to:
what the player's profile counts it by), *end listener* (told once when the game is over; what
it returns, a few lines, is shown at the end), *event* (what one decision made happen, told by
the engine's events: its readable lines, written for the person, and the hand it ended or
dealt), *hand result* (who went out, the cards left, the points, the running totals).

The Textual app and the plain line mode both drive a ``Session``; neither touches the engine
except through actions, legal actions, views and the engine's events (docs/engine.md).
"""

from __future__ import annotations

import hashlib
import json
import random
import shlex
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import Action
from ..bots import SEARCH_PREFERS, Bot, BotSpecError, hinter, make_bot, recalled_hint
from ..cards import Card, cards_str
from ..engine import Event as GameEvent
from ..engine import Game, HandEnded, HandStarted, IllegalActionError, SeatView
from ..engine.events import Bought, Called, Drew, GameEnded, Gave, Swapped, Took
from ..match import BotMove, Match
from ..narrate import Narrator
from ..paths import games_dir
from ..paths import write_atomic as write_text_atomic
from ..record import RecordError, ReplayError, game_record, new_game_from_record, steps
from ..rules import RuleSet
from ..solver import PERSON_SEARCH_BUDGET
from .text import action_label, possessive, subject

BOT_NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal")
SEAT_FILE_SUFFIX = ".seats.json"


# one bot decision, prepared to be thought out on a worker thread (liverpool.match)
BotTurn = BotMove


class SessionError(ValueError):
    """A session that cannot start: bad bot list, unreadable or broken record."""


@dataclass
class HandResult:
    number: int  # 1-based position of the hand in the game
    out: list[int]  # seats that went out (none when the stock ran dry or the turn limit hit)
    left: list[list[Card]]  # each seat's cards when the hand ended
    points: list[int]
    totals: list[int]


@dataclass(frozen=True, slots=True)
class Line:
    """One readable line of what happened: ``seat`` did it (None: the table's own event, a
    renewed stock)."""

    seat: int | None
    text: str


@dataclass
class Event:
    """What one decision made happen (``action``, by ``seat``), with what the bots' answers
    and passes settled at once after it."""

    seat: int
    action: Action
    # the readable lines, written for the person ("You draw 7H from the stock", "Bob buys 7H
    # (+1 penalty card)"); none for a pass
    lines: list[Line] = field(default_factory=list)
    hand: HandResult | None = None  # set when a hand ended
    dealt: HandStarted | None = None  # the next hand, when one was dealt
    game_over: bool = False
    end_lines: list[str] = field(default_factory=list)  # the end listener's, at the game's end
    warnings: list[str] = field(default_factory=list)  # "Bob has one card left"
    # the cards that came into the person's hand, each way they came (a new deal's too)
    received: list[Received] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Received:
    """Cards that came into the person's hand, and how (``how``: dealt, drawn, taken,
    bought, penalty, swapped, called, back, given; ``giver``: who gave them)."""

    cards: tuple[Card, ...]
    how: str
    giver: int | None = None


RECEIVED_WORDS = {"drawn": "drawn from the stock", "taken": "taken from the discard pile",
                  "bought": "bought from the discard pile", "penalty": "penalty card",
                  "swapped": "the wild you swapped out of a meld", "called": "called",
                  "back": "your discard, given back"}


def received(e: GameEvent, seat: int) -> list[Received]:
    """The cards the engine's event ``e`` (as ``seat`` sees it: ``e.for_seat(seat)``) put
    into ``seat``'s hand: read from the event, never from comparing hands."""
    if isinstance(e, Drew):
        return [Received((e.card,), "drawn")] if e.seat == seat and e.card is not None else []
    if isinstance(e, Took):
        return [Received((e.card,), "taken")] if e.seat == seat else []
    if isinstance(e, Bought):
        if e.seat != seat:
            return []
        return [Received(e.cards, "bought")] + (
            [Received(e.penalty_cards, "penalty")] if e.penalty_cards else [])
    if isinstance(e, Swapped):
        return [Received((e.wild,), "swapped")] if e.seat == seat else []
    if isinstance(e, Called):
        if e.mode == "bonus" and e.seat == seat:
            return [Received((e.card,), "called")]
        if e.mode == "take_back" and e.to == seat:
            return [Received((e.card,), "back")] + (
                [Received((e.penalty_card,), "penalty")] if e.penalty_card is not None else [])
        return []
    if isinstance(e, Gave):
        return [Received((e.card,), "given", e.seat)] if e.to == seat else []
    return []


def received_words(got: Sequence[Received], players: Sequence[str]) -> str:
    """``Into your hand: 7D (bought from the discard pile); 10C (penalty card).``, cards in the
    record's notation; a dealt hand: ``Dealt to you (11 cards): ...``."""
    if got and got[0].how == "dealt":
        return f"Dealt to you ({len(got[0].cards)} cards): {cards_str(got[0].cards)}."
    parts = []
    for r in got:
        how = f"given by {players[r.giver]}" if r.giver is not None else \
            RECEIVED_WORDS.get(r.how, r.how)
        parts.append(f"{cards_str(r.cards)} ({how})")
    return "Into your hand: " + "; ".join(parts) + "."


def hand_result(e: HandEnded) -> HandResult:
    """The hand that ended, as the engine scored it."""
    end = e.end
    out = [s for s, went in enumerate(end.out) if went]
    return HandResult(end.hand_number, out, [list(h) for h in end.hands], list(e.points),
                      list(e.totals))


def seat_file_for(record_path: Path) -> Path:
    name = record_path.name
    stem = name[:-5] if name.endswith(".json") else name
    return record_path.with_name(stem + SEAT_FILE_SUFFIX)


def default_save_path(seed: int, folder: Path | None = None) -> Path:
    """A new record's file in ``folder`` (default: ``games`` in the user data directory)."""
    if folder is None:
        folder = games_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder / f"{stamp}-seed{seed}.json"


def write_atomic(path: Path, data: Any) -> None:
    """Write JSON so that the file is always either the old or the new whole text."""
    write_text_atomic(path, json.dumps(data, separators=(",", ":")))


def record_id(rec: Any) -> str:
    """An id for a record that came without one (no seat file, or an older one): its content's
    hash, the same every time for a finished game's record."""
    text = json.dumps(rec, sort_keys=True, separators=(",", ":"))
    return "r" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:31]


EndListener = Callable[["Session"], list[str]]

COMMAND = "liverpool"


def command_words(argv0: str | None = None, executable: str | None = None) -> str:
    """How to start this program again, as typed from where the person is: ``liverpool`` when
    that name on the PATH is this very program; else the script's path as it was typed (the
    README's set-up leaves ``.venv/bin/liverpool`` off the PATH); else, when it was run as a
    module, the interpreter's path with ``-m liverpool.cli``."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    script = Path(argv0)
    if script.name in (COMMAND, f"{COMMAND}.exe", f"{COMMAND}-script.py"):
        found = shutil.which(COMMAND)
        if found is not None and Path(found).resolve() == script.resolve():
            return COMMAND
        return shlex.quote(argv0)
    return f"{shlex.quote(executable or sys.executable)} -m liverpool.cli"


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
                 bot_seed: int, bots: Sequence[Bot | None] | None = None,
                 game_id: str | None = None) -> None:
        if not 0 <= human < game.n:
            raise SessionError(f"seat {human} is not at this table of {game.n}")
        self.game = game
        self.human = human
        self.levels = list(levels)
        try:
            seated: list[Bot | None] = list(bots) if bots is not None else [
                None if s == human or lv is None else make_bot(lv)
                for s, lv in enumerate(self.levels)]
        except BotSpecError as e:
            raise SessionError(str(e)) from None
        # the person answers buy and call questions explicitly, before the bots in a first-call
        # round; each bot's generator is seeded from ``bot_seed``, so bot play repeats with it
        self.match = Match(game, seated, ask_people=True, listener=self._heard, seed=bot_seed)
        self.bots = self.match.bots
        self.rngs = self.match.rngs
        self.save_path = save_path
        self.game_id = game_id or uuid.uuid4().hex
        # told once, when the game is over (``finish``); its lines are shown at the end
        self.end_listener: EndListener | None = None
        self.end_lines: list[str] | None = None  # None: not told yet
        self.closed = False
        self.hinter: Bot | None = None
        self.warned: set[int] = set()  # seats already announced on one card this hand
        # the lines for the person: their own moves in the second person, their stock cards
        # named
        self.narrator = Narrator(game.players, reader=human)
        self._news: list[GameEvent] = []  # the match's events since the last Event
        # the hand in progress, as it was dealt (set by ``_heard``; None: the game was over),
        # and the person's cards as dealt (None: a game resumed after its deal)
        self.dealt: HandStarted | None = None
        self.dealt_hand: tuple[Card, ...] | None = None
        # a resumed game's actions before this session, as the engine told them when its
        # record was replayed (for the log: it goes on from there, not from nothing)
        self.past: list[GameEvent] = []
        # "never ask me this hand": the hand (its number) in which the person's buy questions
        # are answered with a pass for them, so the engine still gets the seat's pass
        self.no_buys_hand: int | None = None
        # the same events every host sends (rules with overrides, the bot's seed)
        self.match.start()
        self.match.decision()  # nothing waits on nobody: the game is at a seat's decision
        self._news.clear()

    # ---- starting ------------------------------------------------------------------------
    @classmethod
    def new(cls, rules: RuleSet, players: int, bots: str, name: str, seed: int | None,
            save: str | None, human: int = 0, deals: Sequence[Sequence[Card]] | None = None,
            first_dealer: int = 0, folder: Path | None = None) -> Session:
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
        game = Game(rules, names, seed=seed, deals=deals, first_dealer=first_dealer,
                    search_budget=PERSON_SEARCH_BUDGET)
        path = Path(save) if save else default_save_path(seed, folder)
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
        past: list[GameEvent] = []  # the game so far, as the engine told it
        try:
            game = new_game_from_record(rec, search_budget=PERSON_SEARCH_BUDGET)
            for step in steps(rec, game):
                past.extend(step.events)
        except RecordError as e:
            raise SessionError(f"{file} is not a game record: {e}") from None
        except ReplayError as e:
            raise SessionError(f"{file}: action {e.number} is illegal: {e.reason}") from None
        human, levels, game_id = 0, None, None
        seats_path = seat_file_for(path)
        if seats_path.exists():
            try:
                meta = json.loads(seats_path.read_text(encoding="utf-8"))
                human = int(meta["human"])
                levels = [None if lv is None else str(lv) for lv in meta["bots"]]
                game_id = str(meta["game"]) if meta.get("game") else None
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
        if game_id is None and game.over:
            game_id = record_id(rec)  # the same id however often this record is resumed
        target = Path(save) if save else path
        session = cls(game, human, levels, target, game.seed, game_id=game_id)
        session.dealt_hand = None  # the hand was dealt before the game was saved
        session.past = past
        if target != path or not seats_path.exists() or game_id != session.game_id:
            session.save_seats()
        session.save()
        return session

    # ---- saving --------------------------------------------------------------------------
    def save(self) -> None:
        write_atomic(self.save_path, game_record(self.game))

    def save_seats(self) -> None:
        write_atomic(seat_file_for(self.save_path), {
            "human": self.human, "bots": self.levels, "game": self.game_id,
            "note": "seats of a liverpool play game: the person's seat, each bot's level and "
                    "the game's id"})

    def close(self) -> None:
        """Release the bots (external bots' processes)."""
        if self.closed:
            return
        self.closed = True
        self.match.close()

    # ---- whose decision ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.over

    def view(self, seat: int | None = None) -> SeatView:
        return self.game.view_for(self.human if seat is None else seat)

    def human_to_act(self) -> bool:
        d = self.match.decision()
        return d is not None and d.seat == self.human

    def bot_to_act(self) -> int | None:
        """The bot seat whose decision comes next, or None when the person is asked (or the game
        is over). In a first-call buy round the person, who sees the question, answers first;
        the bots then answer in the order the engine lists them (from the drawer's left)."""
        d = self.match.decision()
        return None if d is None or d.seat == self.human else d.seat

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
        if self.hinter is None:
            self.hinter = hinter()
        bot = self.hinter
        rec = game_record(self.game)  # (read now; the belief is rebuilt from it off this thread)

        def think() -> tuple[Action, str]:
            a, why = recalled_hint(view, legal, bot, rec, self.human)
            if why == SEARCH_PREFERS:
                return a, f"{action_label(a, view.players)}: {why}"
            return a, why
        return think

    def why_illegal(self, action: Action) -> str | None:
        return self.game.why_illegal(action)

    def is_legal(self, action: Action) -> bool:
        return self.game.is_legal(action)

    # ---- acting --------------------------------------------------------------------------
    def act(self, action: Action) -> Event:
        """Apply the person's action (in a buy round or call window: their answer);
        ``IllegalActionError`` (with the engine's reason, nothing changed) when it is not
        allowed."""
        if action.player != self.human:
            raise IllegalActionError("that seat is not yours")
        if not self.human_to_act():
            raise IllegalActionError(self.game.why_illegal(action) or "it is not your decision")
        return self._play(action)

    def bot_turn(self) -> BotTurn | None:
        """The next bot decision, ready to be thought out away from the screen's thread: it
        holds the seat's view and legal actions, never the game."""
        seat = self.bot_to_act()
        return None if seat is None else self.match.prepare(seat)

    def play_bot(self, turn: BotTurn, action: Action) -> Event:
        """Apply a bot's answer to ``turn`` (the basic bot's move instead when the bot's is
        illegal); refused if the game moved on meanwhile."""
        return self._play(self.match.accept(turn, action))

    def step_bot(self) -> Event | None:
        turn = self.bot_turn()
        return None if turn is None else self.play_bot(turn, turn.decide())

    def no_buys(self) -> Event | None:
        """The person asks not to be asked to buy again this hand (it resets with the next
        deal): a buy question waiting now is passed (its event), and so is every one after it
        in this hand, as soon as it is asked."""
        self.no_buys_hand = self.game.hand_number()
        if not self._pass_for_person():
            return None
        return self._play(Action("pass", self.human))

    @property
    def buys_off(self) -> bool:
        """No buy is asked of the person this hand."""
        return self.no_buys_hand is not None and self.no_buys_hand == self.game.hand_number() \
            and not self.game.over

    def _pass_for_person(self) -> bool:
        d = self.match.decision()
        return d is not None and d.seat == self.human and d.kind == "buy" and self.buys_off

    def _play(self, a: Action) -> Event:
        self._news.clear()
        self.match.play(a)  # raises IllegalActionError, the state unchanged
        # an answer is settled at once: the yes that wins, or the pass said, is applied now
        self.match.decision()
        while self._pass_for_person():  # "never ask me this hand": the seat's pass, said now
            self.match.play(Action("pass", self.human))
            self.match.decision()
        self.save()
        return self._event(a)

    def _heard(self, event: GameEvent) -> None:
        """The match's events, in order (every action applied, by anyone, comes through
        here)."""
        self._news.append(event)
        if isinstance(event, HandStarted):
            self.dealt = event
            # the deal is the last thing an action does: the person's hand is as dealt now
            self.dealt_hand = tuple(self.game.view_for(self.human).hand)
            self.warned = set()  # a new hand: nobody has been announced on one card

    def _event(self, a: Action) -> Event:
        g = self.game
        ev = Event(a.player, a)
        for e in self._news:
            if isinstance(e, HandEnded):
                ev.hand = hand_result(e)
            elif isinstance(e, HandStarted):
                ev.dealt = e
                if self.dealt_hand is not None:
                    ev.received.append(Received(self.dealt_hand, "dealt"))
            elif isinstance(e, GameEnded):
                ev.game_over = True
            else:
                seen = e.for_seat(self.human)
                text = self.narrator.line(seen)
                if text is not None:
                    ev.lines.append(Line(e.actor, text))
                ev.received += received(seen, self.human)
        self._news.clear()
        if ev.game_over:
            ev.end_lines = self.finish()  # the record of the last action is saved already
        for inc in self.match.take_incidents():
            # a bot broke down: say so, as every host does
            rest = "for the rest of the game" if inc.get("fallback") == "game" else "this move"
            whose = possessive(g.players[inc["seat"]], start=True)
            ev.warnings.append(f"{whose} bot failed ({inc['kind']}: {inc['message']}); the basic "
                               f"bot plays the seat {rest}")
        if ev.hand is None:
            after = g.view_for(self.human)
            for s in range(g.n):
                # once a hand per seat: a player on one card draws and discards every turn
                if s != self.human and after.hand_sizes[s] == 1 and s not in self.warned:
                    self.warned.add(s)
                    ev.warnings.append(f"{subject(g.players[s], 'has')} one card left")
        return ev

    def past_lines(self, this_hand: bool = False) -> list[Line | HandStarted | HandResult]:
        """A resumed game so far, for the person (their own cards named, nobody else's): a
        line per move, each hand's start and each hand's result, in order; ``this_hand``: only
        since the last deal."""
        out: list[Line | HandStarted | HandResult] = []
        for e in self.past:
            if isinstance(e, HandStarted):
                if this_hand:
                    out.clear()
                out.append(e)
            elif isinstance(e, HandEnded):
                out.append(hand_result(e))
            elif not isinstance(e, GameEnded):
                text = self.narrator.line(e.for_seat(self.human))
                if text is not None:
                    out.append(Line(e.actor, text))
        return out

    # ---- finishing -----------------------------------------------------------------------
    def finish(self) -> list[str]:
        """Tell the end listener that the game is over, once (a resumed finished game too);
        its lines, or none while the game goes on. A listener that fails is a line, not a
        crash: the game's record is saved whatever happens to the rest."""
        if not self.game.over:
            return []
        if self.end_lines is None:
            self.end_lines = []
            if self.end_listener is not None:
                try:
                    self.end_lines = list(self.end_listener(self))
                except Exception as e:  # shown as a line: the record is saved whatever happens
                    self.end_lines = [f"The game could not be added to your history: {e}"]
        return list(self.end_lines)

    def saved_message(self) -> str:
        """Where the game is, and the command that goes on with it (or watches it), as it
        can be typed from here."""
        command = command_words()
        path = shlex.quote(str(self.save_path))
        if self.game.over:
            return f"The game record is in {self.save_path} ({command} replay {path} --watch " \
                   f"steps through it)."
        return f"The game is saved in {self.save_path}; go on with: " \
               f"{command} play --resume {path}"
