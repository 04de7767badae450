"""``liverpool replay FILE --watch``: step through a recorded game in the terminal, every hand
face up, one action at a time, forwards and back.

Domain words: *step* (the number of actions applied so far), *checkpoint* (a copy of the game
every few steps, so stepping back is quick), *face up* (every seat's cards shown: the game is
over, or at least recorded, so nothing is secret).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..actions import Action, ActionFormatError
from ..engine import Game, IllegalActionError
from ..narrate import describe
from ..record import RecordError, new_game_from_record
from .text import card_text, second_person
from .widgets import TailLog, melds_panel, pile_text, players_table, score_table

CHECKPOINT_EVERY = 25


class Replayer:
    """The game after any number of the record's actions; ``error`` is the first bad one."""

    def __init__(self, rec: dict[str, Any]) -> None:
        self.start = new_game_from_record(rec)
        raw = rec.get("actions", [])
        self.actions: list[Action] = []
        self.lines: list[str] = []
        self.error: str | None = None
        game = self.start.clone()
        self.checkpoints: dict[int, Game] = {0: game.clone()}
        for i, obj in enumerate(raw if isinstance(raw, list) else []):
            try:
                a = Action.from_json(obj)
                line = describe(game, a) if game.is_legal(a) else None
                game.apply(a)
            except (ActionFormatError, IllegalActionError) as e:
                self.error = f"action {i} is illegal: {e}"
                break
            self.actions.append(a)
            # the person who played the recorded game is the player named "You", if any
            self.lines.append(second_person(line or f"{game.players[a.player]} passes"))
            if (i + 1) % CHECKPOINT_EVERY == 0:
                self.checkpoints[i + 1] = game.clone()
        self.final = game
        # where each hand begins, for jumping hand by hand
        self.hand_starts = [0]
        probe = self.start.clone()
        for i, a in enumerate(self.actions):
            before = len(probe.scores)
            probe.apply(a)
            if len(probe.scores) > before:
                self.hand_starts.append(i + 1)

    def at(self, step: int) -> Game:
        base = max(k for k in self.checkpoints if k <= step)
        game = self.checkpoints[base].clone()
        for a in self.actions[base:step]:
            game.apply(a)
        return game


class WatchApp(App[None]):
    TITLE = "Liverpool Rummy · replay"
    CSS = """
    #title { height: 1; background: $primary-background; padding: 0 1; }
    #top { height: 1fr; }
    #left { width: 3fr; }
    #players, #hands, #melds { border: round $secondary; padding: 0 1; }
    #players { height: auto; }
    #hands { height: auto; }
    #melds { height: 1fr; }
    #log { width: 2fr; border: round $secondary; }
    #keys { height: auto; padding: 0 1; background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space,n", "step(1)", "next"), Binding("left,b", "step(-1)", "back"),
        Binding("pagedown,N", "hand(1)", "next hand"), Binding("pageup,B", "hand(-1)",
                                                              "previous hand"),
        Binding("home", "goto(0)", "start"), Binding("end", "goto(-1)", "end"),
        Binding("a", "auto", "autoplay"), Binding("q,escape", "quit", "quit"),
    ]

    def __init__(self, replayer: Replayer, title: str = "") -> None:
        super().__init__()
        self.r = replayer
        self.step = 0
        self.auto = False
        self.file_title = title

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Static(id="players")
                yield Static(id="hands")
                yield Static(id="pile")
                yield Static(id="melds")
            yield TailLog(id="log")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.query_one("#hands", Static).border_title = "hands (face up)"
        self.query_one("#melds", Static).border_title = "table"
        self.query_one("#log", TailLog).border_title = "moves"
        self.set_interval(0.6, self.tick)
        self.show()

    def tick(self) -> None:
        if self.auto:
            if self.step >= len(self.r.actions):
                self.auto = False
            else:
                self.action_step(1)

    def show(self) -> None:
        g = self.r.at(self.step)
        v = g.view_for(0)
        total = len(self.r.actions)
        state = "game over" if g.over else \
            f"hand {g.hand_number()}: {g.contract_for(0).describe()}"
        self.query_one("#title", Static).update(
            f"{self.file_title} · {g.rules.name} rules · {state} · action {self.step}/{total}"
            + (" · autoplay" if self.auto else ""))
        self.query_one("#players", Static).update(players_table(v))
        hands = []
        for s, name in enumerate(g.players):
            line = Text(f"{name:>8}: ", style="bold")
            for c in g.view_for(s).hand:
                line.append_text(card_text(c, g.rules.deuces_wild))
                line.append(" ")
            hands.append(line)
        self.query_one("#hands", Static).update(Group(*hands))
        self.query_one("#pile", Static).update(pile_text(v))
        if g.over:
            self.query_one("#melds", Static).update(
                Group(Text("Winner(s): " + ", ".join(g.players[w] for w in g.winners),
                           style="bold green"),
                      score_table(g.players, g.scores, g.totals, g.winners)))
        else:
            self.query_one("#melds", Static).update(melds_panel(v))
        log = self.query_one("#log", TailLog)
        log.clear()
        first = max(0, self.step - 60)
        for i in range(first, self.step):
            log.add(Text(f"{i + 1:>4} {self.r.lines[i]}"))
        keys = "→/space next · ← back · PgDn/PgUp next/previous hand · Home/End · a autoplay" \
               " · q quit"
        if self.r.error and self.step == total:
            keys = f"[stopped: {self.r.error}]  " + keys
        self.query_one("#keys", Static).update(keys)

    def action_step(self, delta: int) -> None:
        self.step = max(0, min(len(self.r.actions), self.step + delta))
        self.show()

    def action_goto(self, where: int) -> None:
        self.step = len(self.r.actions) if where < 0 else where
        self.show()

    def action_hand(self, delta: int) -> None:
        starts = [*self.r.hand_starts, len(self.r.actions)]
        if delta > 0:
            later = [x for x in starts if x > self.step]
            self.step = later[0] if later else len(self.r.actions)
        else:
            earlier = [x for x in starts if x < self.step]
            self.step = earlier[-1] if earlier else 0
        self.show()

    def action_auto(self) -> None:
        self.auto = not self.auto
        self.show()


def load(file: str) -> Replayer:
    text = Path(file).read_text(encoding="utf-8")
    rec = json.loads(text)
    if not isinstance(rec, dict):
        raise RecordError("a record is a JSON object")
    return Replayer(rec)


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
    WatchApp(replayer, Path(args.file).name).run()
    return 1 if replayer.error else 0
