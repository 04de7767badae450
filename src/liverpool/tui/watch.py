"""``liverpool replay FILE --watch``: step through a recorded game in the terminal, every hand
face up, one action at a time, forwards and back, with each hand's result where it ends.

Domain words: *step* (the number of actions applied so far), *frame* (one position of the
watch: a step, and at a step that ended a hand, first that hand's result, then the next hand's
deal), *checkpoint* (a copy of the game every few steps, so stepping back is quick), *face up*
(every seat's cards shown: the game is over, or at least recorded, so nothing is secret),
*review* (``--review``: one seat's decisions weighed by ``liverpool.review``), *badge* (a
labelled decision's mark: ?! inaccuracy, ? mistake, ?? blunder), *verdict line* (under the
title, at a frame whose action is a labelled decision: its badge, what was better and why).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..actions import Action
from ..engine import Game, HandEnded, HandStarted
from ..engine.events import GameEnded
from ..narrate import Narrator
from ..record import RecordError, ReplayError, new_game_from_record, steps
from ..review import Decision, SeatReview, action_words, review
from .session import HandResult, Line, hand_result
from .text import YOU, card_text, deal_words, face, faces, fit_parts, rules_label, subject
from .widgets import (
    Notice,
    ScrollPanel,
    TailLog,
    hand_result_view,
    melds_of,
    melds_panel,
    pile_text,
    players_table,
    rules_panel,
    score_table,
)

CHECKPOINT_EVERY = 25
LOG_FRAMES = 80  # the log shows the lines of this many frames back
BADGES = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
BADGE_STYLES = {"inaccuracy": "bold yellow", "mistake": "bold dark_orange", "blunder": "bold red"}


def verdict_words(d: Decision) -> str:
    """A labelled decision in a line: badge, label, what was played, what was better, why."""
    label = d.label or ""
    return (f"{BADGES.get(label, '')} {label} · played: {action_words(d.action)} · "
            f"better: {action_words(d.best)} · {d.why}")


def labelled(seat_review: SeatReview | None) -> dict[int, Decision]:
    """The seat's labelled decisions by the record's action index."""
    if seat_review is None:
        return {}
    return {d.index: d for d in seat_review.decisions if d.label is not None}


def review_heading(seat_review: SeatReview) -> str:
    labels = seat_review.labels()
    return (f"review of {seat_review.name}: accuracy {seat_review.accuracy:.1f}, "
            f"{len(seat_review.decisions)} decisions, mean loss {seat_review.mean_loss:.1f} · "
            + ", ".join(f"{labels[lab]} {PLURALS[lab] if labels[lab] != 1 else lab} "
                        f"({BADGES[lab]})" for lab in BADGES))


@dataclass(frozen=True, slots=True)
class Frame:
    """One position of the watch: ``step`` actions applied; ``result`` set where the step's
    action ended a hand and that hand's result is shown (the next frame, at the same step, shows
    the next hand's deal)."""

    step: int
    result: HandResult | None = None


class Replayer:
    """The game after any number of the record's actions, replayed by ``record.steps``;
    ``error`` is the first bad action."""

    def __init__(self, rec: dict[str, Any]) -> None:
        self.rec = rec
        self.start = new_game_from_record(rec)
        raw = rec.get("actions", [])
        self.raw: list[Any] = raw if isinstance(raw, list) else []  # the actions, as JSON
        self.actions: list[Action] = []
        self.lines: list[list[Line]] = []  # what each action did, in words
        self.error: str | None = None
        players = self.start.players
        # the game is shown face up: every card named; the person who played the recorded
        # game is the player named "You", if any, and reads in the second person
        narrator = Narrator(players, players.index(YOU) if YOU in players else None)
        game = self.start.clone()
        self.checkpoints: dict[int, Game] = {0: game.clone()}
        self.hand_starts = [0]  # where each hand begins, for jumping hand by hand
        self.results: dict[int, HandResult] = {}  # by the step whose action ended the hand
        self.ends: dict[int, HandEnded] = {}  # the same hands' ends, as the engine told them
        self.deals: list[HandStarted] = []  # each hand's start
        try:
            for step in steps(rec, game):
                done = step.index + 1  # actions applied
                if step.action is not None:
                    self.actions.append(step.action)
                    self.lines.append([])
                for e in step.events:
                    if isinstance(e, HandStarted):
                        self.deals.append(e)
                    elif isinstance(e, HandEnded):
                        self.results[done] = hand_result(e)
                        self.ends[done] = e
                        self.hand_starts.append(done)
                    elif not isinstance(e, GameEnded):
                        text = narrator.line(e, passes=True)
                        if text is not None:
                            self.lines[-1].append(Line(e.actor, text))
                if done and done % CHECKPOINT_EVERY == 0:
                    self.checkpoints[done] = game.clone()
        except ReplayError as e:
            self.error = f"action {e.number} is illegal: {e.reason}"
        self.final = game
        self.frames = [Frame(0)]
        for step_no in range(1, len(self.actions) + 1):
            if step_no in self.results:
                self.frames.append(Frame(step_no, self.results[step_no]))
                if step_no == len(self.actions):
                    break  # the record ends on a hand's result: nothing of the next was played
            self.frames.append(Frame(step_no))

    def deal_line(self, hand: int) -> str:
        """The start of hand ``hand`` (1-based), in words."""
        return f"— {deal_words(self.deals[hand - 1], self.start.players)} —"

    def at(self, step: int) -> Game:
        base = max(k for k in self.checkpoints if k <= step)
        game = self.checkpoints[base].clone()
        for _ in steps(None, game, self.raw[base:step]):
            pass
        return game

    def log_entries(self, symbols: bool = False,
                    verdicts: dict[int, Decision] | None = None) -> list[tuple[int, Text]]:
        """Every line of the moves log with the frame from which it shows: each action, each
        hand's start and each hand's result; cards in the record's notation (``7H``), or
        with suit symbols (``symbols``: the app's, as its table shows them). An action that
        is a labelled decision of ``verdicts`` (by action index) gets its badge, and a line
        under it with what was better and why."""
        verdicts = verdicts or {}
        words = faces if symbols else str
        players = self.start.players
        out: list[tuple[int, Text]] = [(0, Text(self.deal_line(1), style="bold cyan"))]
        hands = 0
        for k, frame in enumerate(self.frames[1:], 1):
            if self.frames[k - 1].step == frame.step:  # the next hand's deal, after a result
                out.append((k, Text(self.deal_line(hands + 1), style="bold cyan")))
                continue
            said = self.lines[frame.step - 1]
            verdict = verdicts.get(frame.step - 1)
            for j, line in enumerate(said or [Line(None, "")]):
                number = f"{frame.step:>4}" if j == 0 else "    "
                text = Text(f"{number} {words(line.text)}")
                if j == 0 and verdict is not None and verdict.label is not None:
                    text.append(f" {BADGES[verdict.label]}", style=BADGE_STYLES[verdict.label])
                out.append((k, text))
            if verdict is not None and verdict.label is not None:
                better = words(action_words(verdict.best))
                out.append((k, Text(f"     {verdict.label}: better: {better}; "
                                    f"{words(verdict.why)}", style=BADGE_STYLES[verdict.label])))
            if frame.result is not None:
                hands += 1
                r = frame.result
                who = " and ".join(players[x] for x in r.out) if r.out else "no one"
                out.append((k, Text(
                    f"Hand {r.number} over: {who} went out. Points: "
                    + ", ".join(f"{players[x]} {r.points[x]}" for x in range(len(players))),
                    style="bold green")))
        return out


class WatchApp(App[None]):
    TITLE = "Liverpool Rummy · replay"
    CSS = """
    #title { height: auto; max-height: 2; background: $primary-background; padding: 0 1; }
    #verdict { height: auto; max-height: 2; padding: 0 1; background: $boost; }
    #top { height: 1fr; }
    #left { width: 3fr; }
    #players, #hands, #melds-box { border: round $secondary; padding: 0 1; }
    #players { height: auto; }
    #hands { height: auto; }
    #melds-box { height: 1fr; }
    #log { width: 2fr; border: round $secondary; }
    #keys { height: auto; padding: 0 1; background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space,n", "step(1)", "next"), Binding("left,b", "step(-1)", "back"),
        Binding("pagedown,N", "hand(1)", "next hand's end"),
        Binding("pageup,B", "hand(-1)", "previous hand's end"),
        Binding("home", "goto(0)", "start"), Binding("end", "goto(-1)", "end"),
        Binding("a", "auto", "autoplay"), Binding("r", "rules", "rules"),
        Binding("m", "mistake(1)", "next labelled decision"),
        Binding("M", "mistake(-1)", "previous labelled decision"),
        Binding("up", "scroll_table(-1)", "table up", show=False),
        Binding("down", "scroll_table(1)", "table down", show=False),
        Binding("q,escape", "quit", "quit"),
    ]

    def __init__(self, replayer: Replayer, title: str = "",
                 seat_review: SeatReview | None = None) -> None:
        super().__init__()
        self.r = replayer
        self.pos = 0  # the frame shown
        self.auto = False
        self.file_title = title
        self.review = seat_review
        self.verdicts = labelled(seat_review)
        self.entries = replayer.log_entries(symbols=True, verdicts=self.verdicts)
        self.mounted = False

    @property
    def step(self) -> int:
        """The actions applied in the frame shown."""
        return self.r.frames[self.pos].step

    @property
    def frame(self) -> Frame:
        return self.r.frames[self.pos]

    @property
    def verdict(self) -> Decision | None:
        """The labelled decision whose action the frame shown has just applied, if any."""
        return self.verdicts.get(self.step - 1) if self.step else None

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="verdict")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Static(id="players")
                yield Static(id="hands")
                yield Static(id="pile")
                # (the table may be longer than its box: the box says so, ↑/↓ scroll it)
                box = ScrollPanel(Static(id="melds"), id="melds-box", describe=self.table_hint)
                box.can_focus = False  # the arrows and Home/End step through the record
                yield box
            yield TailLog(id="log")
        yield Static(id="keys")

    @staticmethod
    def table_hint(box: ScrollPanel) -> str:
        above, below = box.out_of_sight()
        where = [w for w, yes in (("↑ more above", above), ("↓ more below", below)) if yes]
        return " · ".join([*where, "↑/↓ scroll"]) if where else ""

    def action_scroll_table(self, delta: int) -> None:
        box = self.query_one("#melds-box", ScrollPanel)
        box.scroll_relative(y=delta * max(1, box.scrollable_content_region.height - 1),
                            animate=False)

    def on_mount(self) -> None:
        self.query_one("#hands", Static).border_title = "hands (face up)"
        self.query_one("#log", TailLog).border_title = "moves"
        self.set_interval(0.6, self.tick)
        self.mounted = True
        self.show()

    def on_resize(self, event: events.Resize) -> None:
        if self.mounted:  # the top line is fitted to the new width
            self.show()

    def tick(self) -> None:
        if self.auto:
            if self.pos >= len(self.r.frames) - 1:
                self.auto = False
                self.show()
            else:
                self.action_step(1)

    def title_parts(self, g: Game) -> list[str]:
        """The hand whose moves are shown (at a hand's result, the hand that just ended) and
        where it stands, then the rules and the file."""
        frame = self.frame
        rules = g.rules
        total = len(rules.hand_list()) if rules.progression == "all" else None
        of = f" of {total}" if total else ""
        moves = f"action {self.step}/{len(self.r.actions)}"
        if frame.result is not None:
            r = frame.result
            played = self.r.deals[r.number - 1]  # the hand just played, for its contract
            who = " and ".join(g.players[x] for x in r.out) if r.out else "no one"
            parts = [f"hand {r.number}{of}: {played.contract[0].describe()} · over",
                     f"{who} went out"]
            if g.over:
                parts.append("game over: winner" + ("s" if len(g.winners) > 1 else "") + " "
                             + " and ".join(g.players[w] for w in g.winners))
        else:
            v = g.view_for(None)
            parts = [f"hand {v.hand_number}{of}: {v.contract[0].describe()}",
                     subject(g.players[v.dealer], "deals")]
        parts += [moves, rules_label(rules)]
        if self.auto:
            parts.append("autoplay")
        if self.file_title:
            parts.append(self.file_title)
        return parts

    def show(self) -> None:
        frame = self.frame
        g = self.r.at(frame.step)
        v = g.view_for(0)
        width = self.size.width - 2  # the title's padding takes a cell each side
        self.query_one("#title", Static).update("\n".join(fit_parts(self.title_parts(g), width)))
        self.show_verdict()
        players = self.query_one("#players", Static)
        hands = self.query_one("#hands", Static)
        pile = self.query_one("#pile", Static)
        melds = self.query_one("#melds", Static)
        last = self.pos == len(self.r.frames) - 1
        if frame.result is not None:
            end = self.r.ends[frame.step].end
            # the hand just played: its result, and the table as it was scored; at the game's
            # end the winners and the score sheet come first
            result = hand_result_view(g.players, frame.result, g.rules.deuces_wild)
            table = melds_of(g.players, end.melds, g.rules.deuces_wild)
            hands.display = False
            top = face(end.discard[-1]) if end.discard else "empty"
            pile.update(Text(f"Discard: {top}    Stock: {end.stock_size}"))
            self.query_one("#melds-box", ScrollPanel).border_title = \
                f"table at the end of hand {frame.result.number}"
            if g.over:
                players.border_title = "final result"
                players.update(Group(
                    Text("Winner" + ("s" if len(g.winners) > 1 else "") + ": "
                         + " and ".join(g.players[w] for w in g.winners), style="bold green"),
                    score_table(g.players, g.scores, g.totals, g.winners)))
                melds.update(Group(result, table))
            else:
                players.border_title = "result"
                players.update(result)
                sheet = [score_table(g.players, g.scores, g.totals)] if last else []
                melds.update(Group(*sheet, table))
        else:
            players.border_title = "players"
            players.update(players_table(v))
            lines = []
            for s, name in enumerate(g.players):
                line = Text(f"{name:>8}: ", style="bold")
                for c in g.view_for(s).hand:
                    line.append_text(card_text(c, g.rules.deuces_wild))
                    line.append(" ")
                lines.append(line)
            hands.display = True
            hands.update(Group(*lines))
            pile.update(pile_text(v))
            self.query_one("#melds-box", ScrollPanel).border_title = "table"
            body = [melds_panel(v)]
            if last and g.scores:  # the record stops here: the score sheet so far
                body.append(score_table(g.players, g.scores, g.totals))
            melds.update(Group(*body))
        log = self.query_one("#log", TailLog)
        log.clear()
        for k, text in self.entries:
            if self.pos - LOG_FRAMES <= k <= self.pos:
                log.add(text)
        keys = "→/space next · ← back · PgDn/PgUp next/previous hand's end · Home/End · " \
               "a autoplay · r rules · q quit"
        if self.review is not None:
            keys += " · m/M next/previous labelled decision"
        if self.r.error and last:
            keys = f"[stopped: {faces(self.r.error)}]  " + keys
        self.query_one("#keys", Static).update(keys)

    def show_verdict(self) -> None:
        """The line under the title: the labelled decision just played (its badge, what was
        better and why), else the review's summary; hidden without a review."""
        line = self.query_one("#verdict", Static)
        line.display = self.review is not None
        if self.review is None:
            return
        d = self.verdict
        if d is not None and d.label is not None:
            line.update(Text(faces(verdict_words(d)), style=BADGE_STYLES[d.label]))
        else:
            line.update(Text(review_heading(self.review) + " · m: next labelled decision",
                             style="dim"))

    def action_mistake(self, delta: int) -> None:
        """To the frame of the next (previous) labelled decision; the last (first) frame
        past them."""
        marked = [k for k, f in enumerate(self.r.frames)
                  if f.step and f.step - 1 in self.verdicts
                  and self.r.frames[k - 1].step != f.step]
        if not marked:
            self.notify("no labelled decision in this review")
            return
        if delta > 0:
            later = [k for k in marked if k > self.pos]
            if not later:
                self.notify("no labelled decision after this one")
                return
            self.pos = later[0]
        else:
            earlier = [k for k in marked if k < self.pos]
            if not earlier:
                self.notify("no labelled decision before this one")
                return
            self.pos = earlier[-1]
        self.show()

    def action_step(self, delta: int) -> None:
        self.pos = max(0, min(len(self.r.frames) - 1, self.pos + delta))
        self.show()

    def action_goto(self, where: int) -> None:
        self.pos = len(self.r.frames) - 1 if where < 0 else where
        self.show()

    def action_hand(self, delta: int) -> None:
        """To the next (previous) hand's end, where its result shows; else the last (first)
        frame."""
        ends = [k for k, f in enumerate(self.r.frames) if f.result is not None]
        if delta > 0:
            later = [k for k in ends if k > self.pos]
            self.pos = later[0] if later else len(self.r.frames) - 1
        else:
            earlier = [k for k in ends if k < self.pos]
            self.pos = earlier[-1] if earlier else 0
        self.show()

    def action_rules(self) -> None:
        """The game's rules, with the contract of the hand shown marked."""
        frame = self.frame
        game = self.r.at(frame.step - 1 if frame.result is not None else frame.step)
        contract = None if game.over else game.contract_no(0)
        self.push_screen(Notice(rules_panel(game.rules, contract, players=game.n)))

    def action_auto(self) -> None:
        self.auto = not self.auto
        self.show()


def load(file: str) -> Replayer:
    text = Path(file).read_text(encoding="utf-8")
    rec = json.loads(text)
    if not isinstance(rec, dict):
        raise RecordError("a record is a JSON object")
    return Replayer(rec)


def run_review(replayer: Replayer, seat: int, workers: int,
               worlds: int | None = None) -> SeatReview:
    """The seat's review, with a progress line on standard error while it is weighed."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    name = replayer.start.players[seat]
    extra = {} if worlds is None else {"worlds": worlds}
    with Progress(TextColumn(f"reviewing {name}'s decisions"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True),
                  transient=True) as bar:
        task = bar.add_task("review", total=None)

        def weighed(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
        return review(replayer.rec, [seat], workers=workers, progress=weighed,
                      **extra).seats[0]


def main(args: argparse.Namespace) -> int:
    try:
        replayer = load(args.file)
    except OSError as e:
        print(f"liverpool replay: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        print(f"liverpool replay: {args.file} is not JSON: {e}", file=sys.stderr)
        return 2
    except RecordError as e:
        print(f"liverpool replay: {e}", file=sys.stderr)
        return 2
    seat_review: SeatReview | None = None
    if getattr(args, "review", False):
        seat = getattr(args, "seat", None) or 0
        workers = getattr(args, "workers", None) or 1
        if not 0 <= seat < replayer.start.n:
            print(f"liverpool replay: --seat must be 0 to {replayer.start.n - 1}",
                  file=sys.stderr)
            return 2
        if replayer.error:
            print(f"liverpool replay: cannot review: {replayer.error}", file=sys.stderr)
            return 1
        seat_review = run_review(replayer, seat, max(1, workers),
                                 getattr(args, "worlds", None))
    if not (_is_terminal(sys.stdin) and _is_terminal(sys.stdout)):
        # into a pipe or a file there is nobody to step through it: the moves log as lines
        # (the full-screen app wrote its control codes there, then spun waiting for keys)
        try:
            if seat_review is not None:
                print(review_heading(seat_review))
            for _, line in replayer.log_entries(verdicts=labelled(seat_review)):
                print(line.plain)
            if seat_review is not None:
                print(review_text(seat_review))
            sys.stdout.flush()
        except BrokenPipeError:  # the reader stopped (``| head``): nothing more to say
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1 if replayer.error else 0
        if replayer.error:
            print(f"liverpool replay: {replayer.error}", file=sys.stderr)
        return 1 if replayer.error else 0
    WatchApp(replayer, Path(args.file).name, seat_review).run()
    return 1 if replayer.error else 0


def review_text(seat_review: SeatReview) -> str:
    """The review's summary after the moves: by kind of decision, and the worst three."""
    lines = ["by kind of decision:"]
    for kind, row in seat_review.by_kind().items():
        lines.append(f"  {kind}: {row['decisions']:.0f} decisions, accuracy "
                     f"{row['accuracy']:.1f}, mean loss {row['mean_loss']:.1f}")
    worst = seat_review.worst()
    if worst:
        lines.append("  worst:")
        lines += [f"  {d.index + 1:>4} {verdict_words(d)}" for d in worst]
    return "\n".join(lines)


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
