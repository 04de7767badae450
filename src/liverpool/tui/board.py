"""The board of ``liverpool play``: the screen's panels and their refresh, in one class that
holds the state every layer of the app shares.

Domain words: *board* (the panels: the top line, players, pile, table, log, hand, compose,
warnings, prompt), *refresh* (every panel drawn again from the seat's view), *top line* (the
hand, its contract, the dealer, the rules, the bots' pace, fitted to the width), *pace* (the
delay between the bots' moves: normal, fast, instant), *compose* (building a go-down meld by
meld from selected cards, or taking the suggested one), *prompt* (the decision asked now and
its keys), *warning* (a line of its own just above the prompt: a player down to one card, a
bot replaced), *log* (one readable line per move), *cursor* (the card of the hand the keys
point at; *selected* cards are marked with space).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..actions import Action
from ..cards import Card, is_wild
from ..engine import SeatView
from .guide import STEPS, Guide, Step
from .session import BotTurn, Session
from .text import (
    JOKER_STYLE,
    face,
    faces,
    fit_parts,
    question,
    rules_label,
    sort_hand,
    subject,
)
from .widgets import (
    ScrollPanel,
    TailLog,
    hand_text,
    meld_lines,
    pile_text,
    players_table,
)

PACES: tuple[tuple[str, float], ...] = (("normal", 0.9), ("fast", 0.25), ("instant", 0.0))


class Board(App[None]):
    """The screen of one game at this terminal and the state the app's layers share.
    ``pace`` (seconds between bot moves) overrides the pace levels; 0 plays the bots at once
    (tests)."""

    TITLE = "Liverpool Rummy"
    CSS = """
    Screen { layout: vertical; }
    #title { height: auto; max-height: 2; background: $primary-background; color: $text;
             padding: 0 1; }
    #top { height: 1fr; }
    #left { width: 3fr; }
    #players { height: auto; border: round $secondary; padding: 0 1; }
    #pile { height: auto; padding: 0 1; }
    #melds-box { height: 1fr; border: round $secondary; padding: 0 1; }
    #log { width: 2fr; border: round $secondary; }
    #hand { height: auto; border: round $accent; padding: 0 1; }
    #compose { height: auto; padding: 0 1; display: none; }
    #compose.on { display: block; }
    #warnings { height: auto; padding: 0 1; display: none; }
    #warnings.on { display: block; }
    #prompt { height: auto; min-height: 3; padding: 0 1; background: $boost; }
    .guide { height: auto; padding: 0 1; display: none; background: $warning 15%; }
    #melds-box > .guide { padding: 0; margin-bottom: 1; }
    .guide.on { display: block; }
    """

    def __init__(self, session: Session, pace: float | None = None,
                 guide: Guide | None = None) -> None:
        super().__init__()
        self.session = session
        self.guide = guide  # the first-game walk-through, while it is on
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
        self.mounted = False  # the widgets are there to draw in
        self.warnings: list[str] = []  # the newest warnings, shown above the prompt
        self.errors: list[str] = []  # every illegal choice's reason, newest last (tests read it)
        self.rng = random.Random(session.game.seed)
        self.drawn: Card | None = None  # the card last drawn from the stock, marked in the hand
        # the hand as last drawn and the card the cursor was on: when the hand changes (a card
        # comes in, a sort), the cursor stays on its card, not on its place
        self.cards_shown: list[Card] = []
        self.cursor_card: Card | None = None
        # keys of a decision pressed while the seat could not act (the bots settling a buy):
        # each with the card the cursor was on, applied in order once the seat may act
        self.kept: list[tuple[str, str | None, Card | None]] = []
        self.meld_lines: list[tuple[int | None, Text]] = []  # the table panel's, by meld

    # ---- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Static(id="players")
                yield Static(id="pile")
                # the walk-through's notes on the pile (just above) and on the table: in the
                # table's panel, which scrolls, so that they never squeeze it to nothing
                box = ScrollPanel(Static(id="guide-pile", classes="guide"),
                                  Static(id="guide-melds", classes="guide"),
                                  Static(id="melds"), id="melds-box", describe=self.table_hint)
                box.can_focus = False  # the arrows move in the hand; PgUp/PgDn scroll it
                yield box
            yield TailLog(id="log")
        yield Static(id="guide-hand", classes="guide")
        yield Static(id="hand")
        yield Static(id="compose")
        yield Static(id="warnings")
        yield Static(id="guide-prompt", classes="guide")
        yield Static(id="prompt")

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
        self.meld_lines = meld_lines(v.players, v.melds, rules.deuces_wild)
        self.query_one("#melds", Static).update(
            Group(*(line for _, line in self.meld_lines)) if self.meld_lines else
            Text("No melds on the table yet.", style="dim"))
        box = self.query_one("#melds-box", ScrollPanel)
        box.call_after_refresh(box.update_hint)
        cards = self.shown_hand()
        if cards != self.cards_shown and self.cursor_card in cards:
            self.cursor = cards.index(self.cursor_card)
        self.cursor = max(0, min(self.cursor, len(cards) - 1))
        self.cards_shown = cards
        self.cursor_card = cards[self.cursor] if cards else None
        self.selected = {i for i in self.selected if i < len(cards)}
        hand = self.query_one("#hand", Static)
        hand.border_title = f"your hand ({len(v.hand)}) · sorted by {self.order}"
        hand.update(hand_text(cards, self.cursor if cards else None, self.selected,
                              rules.deuces_wild, v.taken, self.drawn))
        comp = self.query_one("#compose", Static)
        comp.set_class(self.composing, "on")
        if self.composing:
            comp.update(self.compose_text())
        warn = self.query_one("#warnings", Static)
        warn.set_class(bool(self.warnings), "on")
        warn.update(Text("\n".join(f"⚠ {w}" for w in self.warnings), style="bold red"))
        self.query_one("#prompt", Static).update(self.prompt_text())
        self.show_guide()

    def guide_notes(self) -> list[Step]:
        """The walk-through's notes for the decision on screen (none while going down)."""
        s = self.session
        if self.guide is None or s.over or self.composing or not s.human_to_act():
            return []
        v = self.view()
        return self.guide.notes(v.phase, v.ruleset.buying)

    def show_guide(self) -> None:
        """Each note of the walk-through beside the panel it is about."""
        notes = self.guide_notes()
        for near in ("pile", "melds", "hand", "prompt"):
            here = [n for n in notes if n.near == near]
            w = self.query_one(f"#guide-{near}", Static)
            w.set_class(bool(here), "on")
            t = Text()
            for k, n in enumerate(here):
                if k:
                    t.append("\n")
                t.append(f"First game {STEPS.index(n) + 1}/{len(STEPS)} · ", style="bold")
                t.append(n.text)
            t.append("  (Esc skips the walk-through)", style="dim")
            w.update(t)

    def table_hint(self, box: ScrollPanel) -> str:
        """``+3 more melds below · PgUp/PgDn scroll``: the melds the table panel cannot show
        now (one of whose lines is out of sight), and how to see them."""
        melds = self.query_one("#melds", Static)
        width = melds.size.width
        if width <= 0:
            return ""
        # the rows of the panel's text above the melds (the walk-through's notes) count too
        top = round(box.scroll_y) - melds.virtual_region.y
        height = box.scrollable_content_region.height
        above = below = 0
        row = 0
        for meld, line in self.meld_lines:
            rows = len(line.wrap(self.console, width))
            if meld is not None:
                if row < top:
                    above += 1
                elif row + rows > top + height:
                    below += 1
            row += rows
        said = [f"+{n} more meld{'s' if n != 1 else ''} {where}"
                for n, where in ((above, "above"), (below, "below")) if n]
        return " · ".join([*said, "PgUp/PgDn scroll"]) if said else ""

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
            parts = [f"hand {v.hand_number}{of}: {v.contract[v.me].describe()}",
                     subject(v.players[v.dealer], "deals"),
                     f"{s.game.deal_size()} cards dealt", rules_label(rules),
                     f"bots: {pace}", "r rules · ? keys"]
            if s.buys_off:
                parts.insert(2, "no buys asked this hand")
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
            for line in s.end_lines or ():  # where you placed, your rating's change
                t.append("\n" + line, style="bold")
        elif s.human_to_act():
            v = self.view()
            legal = s.legal()
            t.append(faces(question(v, legal)), style="bold")
            t.append("\n")
            t.append(self.keys_text(v, legal), style="cyan")
        else:
            seats = s.game.to_act()
            who = ", ".join(s.game.players[x] for x in seats)
            t.append(f"Waiting for {who}…", style="dim")
            t.append("  f: faster", style="cyan")
            if self.kept:
                t.append("\nKept for your decision: " + ", ".join(
                    k if c is None else f"{k} ({face(c)})" for k, _, c in self.kept),
                    style="bold")
                t.append("  Esc forgets them", style="cyan")
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
            keys += ["b buy", "p pass", "n no more buys this hand"]
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
            if ph == "play" and not v.down[v.me]:
                keys.append("g go down")
            if "lay_off" in types or v.down[v.me]:
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

    def card_at_cursor(self) -> Card | None:
        cards = self.shown_hand()
        if not cards:
            return None
        return cards[self.cursor]

    def selected_cards(self) -> list[Card]:
        cards = self.shown_hand()
        return [cards[i] for i in sorted(self.selected) if i < len(cards)]

    def suggested(self) -> Action | None:
        for a in self.session.legal():
            if a.type == "go_down":
                return a
        return None
