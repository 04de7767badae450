"""The Textual app of ``liverpool play``: the table at a glance and every decision with the
keyboard.

Domain words: *pace* (the delay between the bots' moves: normal, fast, instant), *compose*
(building a go-down meld by meld from selected cards, or taking the suggested one), *prompt*
(the decision asked now and its keys), *warning* (a line of its own just above the prompt: a
player down to one card, a bot replaced), *log* (one readable line per move).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from ..actions import Action
from ..cards import Card, card_str, is_wild
from ..engine import IllegalActionError, SeatView
from ..melds import arrangements
from .session import BotTurn, Event, Session
from .text import (
    JOKER_STYLE,
    YOU,
    action_label,
    face,
    fit_parts,
    meld_text,
    possessive,
    question,
    rules_label,
    second_person,
    sort_hand,
    subject,
)
from .widgets import (
    Menu,
    Notice,
    TailLog,
    hand_result_view,
    hand_text,
    melds_panel,
    pile_text,
    players_table,
    rules_panel,
    score_table,
)

WARNINGS_SHOWN = 2  # the newest warnings shown above the prompt; the log keeps them all
PACES: tuple[tuple[str, float], ...] = (("normal", 0.9), ("fast", 0.25), ("instant", 0.0))

HELP = """[b]Any time[/b]
  ← → Home End  move in your hand   space  select a card
  o    sort by rank / by suit        h  hint (the expert's)
  Tab  score sheet                   f  bots faster / instant
  r    the table's rules             ?  this help
  q    quit (saved: --resume)
[b]Start of your turn[/b]
  t  take the discard     d  draw from the stock
  n  lay off instead of drawing (house)
[b]Buy round[/b]  b buy  p pass     [b]Playable discard[/b]  c call  p pass
[b]Your play[/b]
  g  go down              l  lay off the card at the cursor
  j  swap it for a joker  w  borrow (house)   d  discard it
[b]Going down[/b]
  a  accept the suggested go-down, or: select a meld's cards with
     space and press m, meld by meld; n puts the last meld's wilds
     in their next places, u undoes it, Enter goes down, Esc cancels
[b]Give a card[/b]  g or Enter gives the card at the cursor
[b]Cut[/b]  c cuts the deck
[b]Menus[/b]  type the number in brackets: a meld's own number [0], [1]...
  as on the table, else 1, 2...; or arrows and Enter; Esc cancels

A refused choice changes nothing: the engine's reason is shown
under the prompt."""


class PlayApp(App[None]):
    """One game at this terminal. ``pace`` (seconds between bot moves) overrides the pace
    levels; 0 plays the bots at once (tests)."""

    TITLE = "Liverpool Rummy"
    CSS = """
    Screen { layout: vertical; }
    #title { height: auto; max-height: 2; background: $primary-background; color: $text;
             padding: 0 1; }
    #top { height: 1fr; }
    #left { width: 3fr; }
    #players { height: auto; border: round $secondary; padding: 0 1; }
    #pile { height: auto; padding: 0 1; }
    #melds { height: 1fr; border: round $secondary; padding: 0 1; overflow-y: auto; }
    #log { width: 2fr; border: round $secondary; }
    #hand { height: auto; border: round $accent; padding: 0 1; }
    #compose { height: auto; padding: 0 1; display: none; }
    #compose.on { display: block; }
    #warnings { height: auto; padding: 0 1; display: none; }
    #warnings.on { display: block; }
    #prompt { height: auto; min-height: 3; padding: 0 1; background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit_game", "quit", show=False, priority=True),
        Binding("tab", "scores", "score sheet", show=False, priority=True)]

    def __init__(self, session: Session, pace: float | None = None) -> None:
        super().__init__()
        self.session = session
        self.pace_index = 0
        self.fixed_pace = pace
        self.order = "suit"
        self.cursor = 0
        self.selected: set[int] = set()
        self.composing = False
        self.pending: list[list[tuple[Card, ...]]] = []  # per meld: its arrangements
        self.choice: list[int] = []  # the arrangement shown for each pending meld
        self.message: Text = Text()
        self.timer_armed = False
        self.thinking: BotTurn | None = None  # the bot decision being made
        self.answer: Action | None = None  # its answer, once made
        self.tick_due = False  # the pace has run out: the answer may be played
        self.hint_at: int | None = None  # a hint is being thought out for this position
        self.paused = False  # a hand result or the game's end is on screen
        self.last_result: Group | None = None
        self.hand_seen = -1  # the hand whose start the log has shown
        self.mounted = False  # the widgets are there to draw in
        self.warnings: list[str] = []  # the newest warnings, shown above the prompt
        self.errors: list[str] = []  # every illegal choice's reason, newest last (tests read it)
        self.rng = random.Random(session.game.seed)

    # ---- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Static(id="players")
                yield Static(id="pile")
                yield Static(id="melds")
            yield TailLog(id="log")
        yield Static(id="hand")
        yield Static(id="compose")
        yield Static(id="warnings")
        yield Static(id="prompt")

    def on_mount(self) -> None:
        self.query_one("#players", Static).border_title = "players"
        self.query_one("#melds", Static).border_title = "table"
        self.query_one("#log", TailLog).border_title = "log"
        self.query_one("#hand", Static).border_title = "your hand"
        s = self.session
        names = s.game.players
        others = ", ".join(f"{names[i]} ({s.levels[i]})" for i in range(s.game.n)
                           if i != s.human)
        me = names[s.human]
        named = "" if me == YOU else f"You are {me}; "
        self.log_line(Text(f"{named}playing with {others}. ? shows the keys.", style="bold"))
        self.log_line(Text(f"Saved as it goes in {s.save_path}", style="dim"))
        self.mounted = True
        self.refresh_all()
        self.after_change()

    # ---- drawing -------------------------------------------------------------------------
    @property
    def pace(self) -> float:
        return self.fixed_pace if self.fixed_pace is not None else PACES[self.pace_index][1]

    def view(self) -> SeatView:
        return self.session.view()

    def shown_hand(self) -> list[Card]:
        """The hand in display order, less the cards already put in pending go-down melds."""
        v = self.view()
        cards = sort_hand(v.hand, self.order, v.ruleset.deuces_wild)
        if self.composing:
            used: Counter[Card] = Counter()
            for i, opts in enumerate(self.pending):
                used.update(opts[self.choice[i]])
            rest = []
            for c in cards:
                if used[c]:
                    used[c] -= 1
                else:
                    rest.append(c)
            cards = rest
        return cards

    def refresh_all(self) -> None:
        v = self.view()
        s = self.session
        rules = v.ruleset
        self.query_one("#title", Static).update("\n".join(self.title_lines()))
        self.query_one("#players", Static).update(players_table(v, bots=s.levels))
        self.query_one("#pile", Static).update(pile_text(v))
        self.query_one("#melds", Static).update(melds_panel(v))
        cards = self.shown_hand()
        self.cursor = max(0, min(self.cursor, len(cards) - 1))
        self.selected = {i for i in self.selected if i < len(cards)}
        hand = self.query_one("#hand", Static)
        hand.border_title = f"your hand ({len(v.hand)}) · sorted by {self.order}"
        hand.update(hand_text(cards, self.cursor if cards else None, self.selected,
                              rules.deuces_wild, v.taken))
        comp = self.query_one("#compose", Static)
        comp.set_class(self.composing, "on")
        if self.composing:
            comp.update(self.compose_text())
        warn = self.query_one("#warnings", Static)
        warn.set_class(bool(self.warnings), "on")
        warn.update(Text("\n".join(f"⚠ {w}" for w in self.warnings), style="bold red"))
        self.query_one("#prompt", Static).update(self.prompt_text())

    def title_lines(self) -> list[str]:
        """The top line, in one or two lines that fit the screen's width: the hand, its
        contract and the dealer first, then the cards dealt, the rules, the bots' pace."""
        v = self.view()
        s = self.session
        rules = v.ruleset
        total = len(rules.hand_list()) if rules.progression == "all" else None
        of = f" of {total}" if total else ""
        pace = "test" if self.fixed_pace is not None else PACES[self.pace_index][0]
        if s.over:
            g = s.game
            parts = [f"game over after {len(g.scores)} hands",
                     "winner" + ("s" if len(g.winners) > 1 else "") + ": "
                     + " and ".join(g.players[w] for w in g.winners), rules_label(rules)]
        else:
            parts = [f"hand {v.hand_number}{of}: {v.contract[v.seat].describe()}",
                     subject(v.players[v.dealer], "deals"),
                     f"{s.game.deal_size()} cards dealt", rules_label(rules),
                     f"bots: {pace}", "r rules · ? keys"]
        # the title's padding takes a cell each side
        return fit_parts(parts, self.size.width - 2)

    def on_resize(self, event: events.Resize) -> None:
        if self.mounted:  # the top line is fitted to the new width
            self.refresh_all()

    def compose_text(self) -> Text:
        t = Text("Going down: ", style="bold")
        gd = self.suggested()
        if gd is not None and gd.melds:
            t.append("suggested ")
            t.append(" | ".join(" ".join(face(c) for c in m) for m in gd.melds), style="green")
            t.append(" (a accepts)\n")
        else:
            t.append("the solver finds no go-down with these cards\n", style="yellow")
        t.append("your melds: ")
        if not self.pending:
            t.append("none yet (select cards, press m)", style="dim")
        deuces = self.view().ruleset.deuces_wild
        for i, opts in enumerate(self.pending):
            if i:
                t.append(" | ")
            for c in opts[self.choice[i]]:
                t.append(face(c) + " ", style=JOKER_STYLE if is_wild(c, deuces) else "")
        return t

    def prompt_text(self) -> Text:
        s = self.session
        t = Text()
        if s.over:
            g = s.game
            t.append("Game over. Winner" + ("s" if len(g.winners) > 1 else "") + ": "
                     + " and ".join(g.players[w] for w in g.winners) + ". ", style="bold green")
            t.append("tab: score sheet · q: quit")
        elif s.human_to_act():
            v = self.view()
            legal = s.legal()
            t.append(question(v, legal), style="bold")
            t.append("\n")
            t.append(self.keys_text(v, legal), style="cyan")
        else:
            seats = s.game.to_act()
            who = ", ".join(s.game.players[x] for x in seats)
            t.append(f"Waiting for {who}…", style="dim")
            t.append("  f: faster", style="cyan")
        if self.message.plain:
            t.append("\n")
            t.append_text(self.message)
        return t

    def keys_text(self, v: SeatView, legal: Sequence[Action]) -> str:
        types = {a.type for a in legal}
        if self.composing:
            return ("space select · m make a meld · n rearrange last · u undo · a accept "
                    "suggested · Enter go down · Esc cancel")
        ph = v.phase
        keys: list[str] = []
        if ph == "draw":
            if "take_discard" in types:
                keys.append("t take the discard")
            keys.append("d draw from the stock")
            if "no_draw" in types:
                keys.append("n lay off instead")
        elif ph == "buy":
            keys += ["b buy", "p pass"]
        elif ph == "call":
            if "call" in types:
                keys.append("c call")
            keys.append("p pass")
        elif ph == "give":
            keys.append("←/→ then g give the card")
        elif ph == "cut":
            keys.append("c cut")
        elif ph in ("play", "bonus"):
            keys.append("←/→ move")
            if ph == "play" and not v.down[v.seat]:
                keys.append("g go down")
            if "lay_off" in types or v.down[v.seat]:
                keys.append("l lay off")
            if "swap_joker" in types:
                keys.append("j swap joker")
            if "borrow" in types:
                keys.append("space+w borrow")
            keys.append("d discard")
        keys += ["h hint", "r rules", "? help"]
        return " · ".join(keys)

    def log_line(self, text: Text | str) -> None:
        self.query_one("#log", TailLog).add(text)

    def say(self, text: str, style: str = "") -> None:
        self.message = Text(text, style=style)

    # ---- the game moving -----------------------------------------------------------------
    def after_change(self) -> None:
        """After any action: arm the bots' timer when a bot is to act."""
        s = self.session
        v = self.view()
        self.log_hand_start(v)
        if (self.paused or s.over or s.bot_to_act() is None or self.timer_armed
                or self.thinking is not None):
            self.refresh_all()
            return
        if self.pace <= 0:
            self.run_bots()
            return
        # the bot thinks while the pace runs: its move shows after whichever takes longer
        self.tick_due = False
        self.start_thinking()
        self.timer_armed = True
        self.set_timer(self.pace, self.bot_tick)
        self.refresh_all()

    def start_thinking(self) -> None:
        turn = self.session.bot_turn()
        if turn is None:
            return
        self.thinking = turn
        if turn.only is not None:  # nothing to think about
            self.answer = turn.only
            return
        # off the screen's thread, so an expert's search never freezes the keys or the clock
        self.run_worker(turn.decide, name="bot", group="bots", thread=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.SUCCESS:
            return
        result = event.worker.result
        if event.worker.group == "hint" and result is not None:
            self.hint_ready(result)
        elif event.worker.group == "bots" and result is not None:
            self.answer = result
            self.play_answer()

    def bot_tick(self) -> None:
        self.timer_armed = False
        self.tick_due = True
        self.play_answer()

    def play_answer(self) -> None:
        """Play the bot's answer once it is ready and its pace has run out."""
        while True:
            turn, answer = self.thinking, self.answer
            if not self.tick_due or self.paused or turn is None or answer is None:
                return
            self.thinking, self.answer = None, None
            ev = self.session.play_bot(turn, answer)
            self.show_event(ev)
            # a pass says nothing on screen, so waiting after it would only slow the game
            if ev.text is not None or self.paused or self.session.over:
                break
            self.start_thinking()
            if self.thinking is None:
                break
            # an answer already known plays now; a search's answer plays when it is ready
        self.tick_due = False
        self.after_change()

    def run_bots(self) -> None:
        """Instant pace: every bot move up to the person's next decision or a hand's end."""
        while not self.paused and not self.session.over:
            ev = self.session.step_bot()
            if ev is None:
                break
            self.show_event(ev)
        self.after_change_no_bots()

    def after_change_no_bots(self) -> None:
        self.log_hand_start(self.view())
        self.refresh_all()

    def log_hand_start(self, v: SeatView) -> None:
        """A line in the log where a new hand begins (once per hand)."""
        if v.hand_index == self.hand_seen or self.session.over:
            return
        self.hand_seen = v.hand_index
        self.log_line(Text(f"— hand {v.hand_number}: {v.contract[v.seat].describe()}, "
                           f"{subject(v.players[v.dealer], 'deals')} —", style="bold cyan"))

    def show_event(self, ev: Event) -> None:
        if ev.text:
            style = "bold" if ev.seat == self.session.human else ""
            self.log_line(Text(ev.text, style=style))
        for w in ev.warnings:
            self.log_line(Text(f"⚠ {w}", style="bold red"))
            # a line of its own above the prompt, not a toast: a toast covered the question
            self.warnings = [*self.warnings, w][-WARNINGS_SHOWN:]
        if ev.hand is not None:
            self.warnings = []
            g = self.session.game
            r = ev.hand
            who = " and ".join(g.players[x] for x in r.out) if r.out else "no one"
            self.log_line(Text(f"Hand {r.number} over: {who} went out. Points: " + ", ".join(
                f"{g.players[x]} {r.points[x]}" for x in range(g.n)), style="bold green"))
            body = hand_result_view(g.players, r, g.rules.deuces_wild)
            self.last_result = body
            self.open_notice(Group(body, score_table(g.players, g.scores, g.totals),
                                   Text("Enter: go on · q: quit", style="dim")))

    def open_notice(self, body: Group | Text) -> None:
        self.paused = True
        self.refresh_all()
        self.push_screen(Notice(body), self.notice_closed)

    def notice_closed(self, quit_game: bool | None) -> None:
        self.paused = False
        if quit_game:
            self.action_quit_game()
            return
        s = self.session
        if s.over and not getattr(self, "end_shown", False):
            self.end_shown = True
            g = s.game
            words = Text("Game over. Winner" + ("s" if len(g.winners) > 1 else "") + ": "
                         + " and ".join(g.players[w] for w in g.winners), style="bold green")
            self.open_notice(Group(words, score_table(g.players, g.scores, g.totals,
                                                      g.winners),
                                   Text("q: quit · Enter: look at the table", style="dim")))
            return
        self.after_change()

    def do(self, action: Action) -> bool:
        """Apply the person's action; on refusal show the engine's reason and change nothing."""
        try:
            ev = self.session.act(action)
        except IllegalActionError as e:
            self.errors.append(str(e))
            reason = second_person(str(e), self.view().players[self.session.human])
            self.say(f"Not allowed: {reason}", "bold red")
            self.refresh_all()
            return False
        self.message = Text()
        self.warnings = []  # read before the person answered; the log keeps them
        self.selected.clear()
        self.composing = False
        self.pending.clear()
        self.choice.clear()
        self.show_event(ev)
        if self.session.over and not self.paused:
            self.notice_closed(False)
        self.after_change()
        return True

    # ---- keys ----------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        if len(self.screen_stack) > 1:
            return
        key = event.key
        handled = self.handle_key(key, event.character)
        if handled:
            event.stop()
            event.prevent_default()

    def handle_key(self, key: str, char: str | None) -> bool:
        s = self.session
        common: dict[str, Callable[[], None]] = {
            "left": lambda: self.move(-1), "right": lambda: self.move(1),
            "home": lambda: self.move(-999), "end": lambda: self.move(999),
            "space": self.toggle_select, "o": self.toggle_sort, "f": self.cycle_pace,
            "h": self.show_hint, "question_mark": self.show_help, "q": self.action_quit_game,
            "r": self.show_rules,
        }
        if key in common:
            common[key]()
            self.refresh_all()
            return True
        if char == "?":
            self.show_help()
            return True
        if s.over or not s.human_to_act():
            return False
        if self.composing:
            return self.compose_key(key)
        v = self.view()
        me = s.human
        ph = v.phase
        table: dict[str, Callable[[], object]] = {}
        if ph == "draw":
            table = {"t": lambda: self.do(Action("take_discard", me)),
                     "d": lambda: self.do(Action("draw", me)),
                     "n": lambda: self.do(Action("no_draw", me))}
        elif ph == "buy":
            table = {"b": self.buy, "p": lambda: self.do(Action("pass", me))}
        elif ph == "call":
            table = {"c": self.call, "p": lambda: self.do(Action("pass", me))}
        elif ph == "give":
            table = {"g": self.give, "enter": self.give}
        elif ph == "cut":
            table = {"c": self.cut}
        elif ph in ("play", "bonus"):
            table = {"g": self.start_compose, "l": self.lay_off, "j": self.swap,
                     "w": self.borrow, "d": self.discard}
        if key in table:
            table[key]()
            if len(self.screen_stack) == 1:
                self.refresh_all()
            return True
        return False

    def move(self, step: int) -> None:
        n = len(self.shown_hand())
        self.cursor = max(0, min(n - 1, self.cursor + step))

    def toggle_select(self) -> None:
        if self.cursor in self.selected:
            self.selected.discard(self.cursor)
        elif self.shown_hand():
            self.selected.add(self.cursor)

    def toggle_sort(self) -> None:
        self.order = "rank" if self.order == "suit" else "suit"
        self.selected.clear()
        self.say(f"hand sorted by {self.order}")

    def cycle_pace(self) -> None:
        self.pace_index = (self.pace_index + 1) % len(PACES)
        self.say(f"bots' pace: {PACES[self.pace_index][0]}")
        if not self.timer_armed:
            self.after_change()

    def show_hint(self) -> None:
        if self.hint_at is not None:
            self.say("Still thinking about the hint…")
            return
        think = self.session.hint_job()
        if think is None:
            self.say("No decision of yours is waiting.")
            return
        self.hint_at = len(self.session.game.actions)
        self.say("Thinking about a hint…", "dim")
        self.refresh_all()
        self.run_worker(think, name="hint", group="hint", thread=True)

    def hint_ready(self, h: tuple[Action, str]) -> None:
        at, self.hint_at = self.hint_at, None
        if at != len(self.session.game.actions):
            return  # the position changed meanwhile; the hint was for a move already made
        a, why = h
        self.say(f"Hint: {why}", "bold green")
        if a.card is not None:
            cards = self.shown_hand()
            if a.card in cards:
                self.cursor = cards.index(a.card)
        self.refresh_all()

    def show_rules(self) -> None:
        """The table's rules, in the core's words, with this hand's contract marked and the
        person's buys used."""
        s = self.session
        v = self.view()
        contract = None if s.over else s.game.contract_no(s.human)
        self.push_screen(Notice(rules_panel(v.ruleset, contract, v.buys[v.seat])))

    def show_help(self) -> None:
        self.push_screen(Notice(Text.from_markup(HELP)))

    def action_scores(self) -> None:
        if len(self.screen_stack) > 1:
            self.screen.dismiss(False)
            return
        g = self.session.game
        body: list[Text | Group] = []
        if self.last_result is not None:
            body.append(Text("Last hand:", style="bold"))
            body.append(self.last_result)
        self.push_screen(Notice(Group(*body, score_table(g.players, g.scores, g.totals,
                                                          g.winners))))

    def action_quit_game(self) -> None:
        self.exit()

    def card_at_cursor(self) -> Card | None:
        cards = self.shown_hand()
        if not cards:
            return None
        return cards[self.cursor]

    def selected_cards(self) -> list[Card]:
        cards = self.shown_hand()
        return [cards[i] for i in sorted(self.selected) if i < len(cards)]

    def menu(self, title: str, labels: Sequence[str | Text],
             then: Callable[[int], None]) -> None:
        """Choices numbered 1, 2, 3...; ``then`` gets the index of the one picked."""
        def done(i: int | None) -> None:
            if i is not None:
                then(i)
            self.refresh_all()
        self.push_screen(Menu(title, labels), done)

    def meld_menu(self, title: str, fits: set[int], then: Callable[[int], None],
                  only: set[int] | None = None) -> None:
        """The table's melds (``only`` those, else all), each numbered as on the table, so that
        the number typed is the meld's; ``then`` gets the meld's number."""
        v = self.view()
        numbers = [i for i in range(len(v.melds)) if only is None or i in only]
        labels = [self.meld_label(i, i in fits) for i in numbers]

        def done(k: int | None) -> None:
            if k is not None:
                then(numbers[k])
            self.refresh_all()
        self.push_screen(Menu(title, labels, numbers), done)

    # ---- decisions -----------------------------------------------------------------------
    def buy(self) -> None:
        me = self.session.human
        buys = [a for a in self.session.legal() if a.type == "buy"]
        if len(buys) <= 1:
            self.do(Action("buy", me))
            return
        self.menu("Buy how deep?", [action_label(a, self.view().players) for a in buys],
                  lambda i: self.after_menu(buys[i]))

    def after_menu(self, a: Action) -> None:
        self.do(a)

    def call(self) -> None:
        me = self.session.human
        calls = [a for a in self.session.legal() if a.type == "call"]
        if len(calls) <= 1:
            self.do(calls[0] if calls else Action("call", me))
            return
        if any(a.meld is None for a in calls):
            self.menu("Call how?", [action_label(a, self.view().players) for a in calls],
                      lambda i: self.after_menu(calls[i]))
            return

        def chosen(meld: int) -> None:
            here = [a for a in calls if a.meld == meld]
            if len(here) > 1:
                self.menu("Call onto which end?", [f"{a.end} end" for a in here],
                          lambda k: self.after_menu(here[k]))
                return
            self.do(here[0])
        melds = {a.meld for a in calls if a.meld is not None}
        self.meld_menu("Call onto which meld?", melds, chosen, only=melds)

    def give(self) -> None:
        c = self.card_at_cursor()
        if c is not None:
            self.do(Action("give", self.session.human, card=c))

    def cut(self) -> None:
        cuts = [a for a in self.session.legal() if a.type == "cut"]
        if cuts:
            self.do(self.rng.choice(cuts))

    def discard(self) -> None:
        c = self.card_at_cursor()
        if c is None:
            self.say("You have no card to discard.", "bold red")
            return
        self.do(Action("discard", self.session.human, card=c))

    def meld_label(self, i: int, fits: bool) -> Text:
        """``your run: 4♣ 5♣ JK(6♣) 7♣  ✔ fits`` (the menu puts the meld's number before)."""
        v = self.view()
        m = v.melds[i]
        t = Text(f"{possessive(v.players[m.owner])} {m.kind}: ")
        t.append_text(meld_text(m, v.ruleset.deuces_wild))
        if fits:
            t.append("  ✔ fits", style="green")
        return t

    def lay_off(self) -> None:
        c = self.card_at_cursor()
        v = self.view()
        if c is None:
            return
        if not v.melds:
            self.say("There are no melds on the table to lay off on.", "bold red")
            return
        me = self.session.human
        legal = [a for a in self.session.legal() if a.type == "lay_off" and a.card == c]
        fits = {a.meld for a in legal if a.meld is not None}

        def chosen(i: int) -> None:
            ends = [a.end for a in legal if a.meld == i and a.end is not None]
            if len(ends) > 1:
                self.menu(f"Lay {face(c)} at which end?",
                          [f"{e} end" for e in ends],
                          lambda k: self.after_menu(
                              Action("lay_off", me, card=c, meld=i, end=ends[k])))
                return
            self.do(Action("lay_off", me, card=c, meld=i))
        self.meld_menu(f"Lay {face(c)} off on which meld?", fits, chosen)

    def swap(self) -> None:
        c = self.card_at_cursor()
        v = self.view()
        if c is None:
            return
        if not v.melds:
            self.say("There are no melds on the table.", "bold red")
            return
        me = self.session.human
        legal = [a for a in self.session.legal() if a.type == "swap_joker" and a.card == c]
        fits = {a.meld for a in legal if a.meld is not None}

        def chosen(i: int) -> None:
            wilds = [a.wild for a in legal if a.meld == i and a.wild is not None]
            if len(wilds) > 1:
                self.menu("Take which wild?", [face(w) for w in wilds],
                          lambda k: self.after_menu(
                              Action("swap_joker", me, card=c, meld=i, wild=wilds[k])))
                return
            self.do(Action("swap_joker", me, card=c, meld=i))
        self.meld_menu(f"Put {face(c)} in place of a wild in which meld?", fits, chosen)

    def borrow(self) -> None:
        v = self.view()
        mine = self.selected_cards()
        me = self.session.human
        if not v.melds:
            self.say("There are no melds on the table to borrow from.", "bold red")
            return
        if not mine:
            self.say("Select (space) the cards of your hand for the new meld, then press w.",
                     "bold red")
            return

        def meld_chosen(i: int) -> None:
            cards = sorted(set(v.melds[i].cards))

            def card_chosen(k: int) -> None:
                c = cards[k]
                a = self.session.game.arranged(
                    Action("borrow", me, meld=i, card=c, new_meld=(c, *mine)))
                self.do(a)
            self.menu("Borrow which card?", [face(x) for x in cards], card_chosen)
        self.meld_menu("Borrow from which meld?", set(), meld_chosen)

    # ---- going down ----------------------------------------------------------------------
    def suggested(self) -> Action | None:
        for a in self.session.legal():
            if a.type == "go_down":
                return a
        return None

    def start_compose(self) -> None:
        v = self.view()
        if v.down[v.seat]:
            self.say("You are already down this hand: lay off (l) or discard (d).", "bold red")
            return
        self.composing = True
        self.pending.clear()
        self.choice.clear()
        self.selected.clear()
        self.say("")

    def compose_key(self, key: str) -> bool:
        if key == "escape":
            self.composing = False
            self.pending.clear()
            self.choice.clear()
            self.selected.clear()
            self.say("")
        elif key == "a":
            gd = self.suggested()
            if gd is None:
                self.say("The solver finds no go-down with your cards.", "bold red")
            else:
                self.do(gd)
                return True
        elif key == "m":
            cards = self.selected_cards()
            if not cards:
                self.say("Select the meld's cards with space first.", "bold red")
            else:
                # every valid meld these cards make (r shows the next); cards that make
                # none stay as picked, for the engine to say why
                opts = arrangements(cards, self.view().ruleset) or [tuple(cards)]
                self.pending.append(opts)
                self.choice.append(0)
                self.selected.clear()
                self.cursor = 0
                self.say("")
        elif key == "u":
            if self.pending:
                self.pending.pop()
                self.choice.pop()
        elif key == "n":
            if self.pending:
                self.choice[-1] = (self.choice[-1] + 1) % len(self.pending[-1])
        elif key == "enter":
            if not self.pending:
                self.say("Make your melds first (select cards, m), or a for the suggestion.",
                         "bold red")
            else:
                melds = tuple(opts[self.choice[i]] for i, opts in enumerate(self.pending))
                a = self.session.game.arranged(Action("go_down", self.session.human, melds=melds))
                self.do(a)
                return True
        else:
            return False
        self.refresh_all()
        return True


def card_list(cards: Sequence[Card]) -> str:
    return " ".join(card_str(c) for c in cards)
