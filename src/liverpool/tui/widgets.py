"""Pieces of the terminal table shared by play and watch: the players panel, the melds on the
table grouped by owner, the pile, a hand of cards with a cursor and a selection, the score sheet,
the log, and two small modal screens (a menu of choices, a notice to read and close).

Domain words: *panel* (one box of the screen), *cursor* (the card the arrow keys are on),
*selection* (cards marked with space, for a meld), *menu* (numbered choices), *notice* (a
hand's result, the score sheet, the rules, help), *rules panel* (the table's rules sheet, in the
core's words: ``rulestext``), *tail log* (a log that always shows its newest line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList, RichLog, Static
from textual.widgets.option_list import Option

from ..cards import Card
from ..engine import SeatView
from ..melds import Meld
from ..rules import RuleSet
from ..rulestext import PRESET_LINES, rules_sheet
from .session import HandResult
from .text import card_style, card_text, face, meld_text, rules_label


def players_table(view: SeatView, hand_sizes: Sequence[int] | None = None,
                  bots: Sequence[str | None] | None = None) -> Table:
    """Every player's name, cards held, down or not, buys used, running total."""
    t = Table(expand=True, box=None, padding=(0, 1), show_edge=False)
    t.add_column("player", no_wrap=True, overflow="ellipsis", ratio=1)
    t.add_column("cards", justify="right", no_wrap=True)
    t.add_column("down", justify="center", no_wrap=True)
    t.add_column("buys", justify="right", no_wrap=True)
    t.add_column("total", justify="right", no_wrap=True)
    sizes = hand_sizes if hand_sizes is not None else view.hand_sizes
    acting = set(view.to_act)
    for s, name in enumerate(view.players):
        label = Text("▶ " if s in acting else "  ", style="bold yellow")
        label.append(name, style="bold" if s == view.seat else "")
        if s == view.dealer:
            label.append(" (deals)", style="dim")
        if bots is not None and bots[s]:
            label.append(f" {bots[s]}", style="dim italic")
        n = sizes[s]
        count = Text(str(n), style="bold red" if n == 1 else "")
        if n == 1:
            count.append(" one card!", style="bold red")
        down = "✔" if view.down[s] else ("float" if view.floating[s] else "·")
        t.add_row(label, count, down, str(view.buys[s]), str(view.totals[s]))
    return t


def melds_panel(view: SeatView) -> RenderableType:
    """The table's melds grouped by owner, numbered in table order, wilds marked."""
    return melds_of(view.players, view.melds, view.ruleset.deuces_wild)


def melds_of(players: Sequence[str], melds: Sequence[Meld], deuces: bool) -> RenderableType:
    """Melds grouped by owner, numbered in table order, wilds marked (the table now, or as it
    was at a hand's end)."""
    if not melds:
        return Text("No melds on the table yet.", style="dim")
    return Group(*(line for _, line in meld_lines(players, melds, deuces)))


def meld_lines(players: Sequence[str], melds: Sequence[Meld],
               deuces: bool) -> list[tuple[int | None, Text]]:
    """The lines of ``melds_of``, each with the number of the meld it shows (None: an owner's
    name), so that a panel can tell which melds are out of its sight."""
    lines: list[tuple[int | None, Text]] = []
    for owner, name in enumerate(players):
        mine = [(i, m) for i, m in enumerate(melds) if m.owner == owner]
        if not mine:
            continue
        lines.append((None, Text(f"{name}:", style="bold")))
        for i, m in mine:
            line = Text(f"  [{i}] {m.kind:<3} ")
            line.append_text(meld_text(m, deuces))
            lines.append((i, line))
    return lines


def pile_text(view: SeatView) -> Text:
    out = Text("Discard: ")
    if view.discard:
        out.append_text(card_text(view.discard[-1], view.ruleset.deuces_wild))
        if len(view.discard) > 1 and view.ruleset.deep_pickup:
            below = " ".join(face(c) for c in reversed(view.discard[-4:-1]))
            out.append(f" (below: {below})", style="dim")
    else:
        out.append("empty", style="dim")
    out.append(f"    Stock: {view.stock_size}")
    return out


def hand_text(cards: Sequence[Card], cursor: int | None, selected: set[int],
              deuces_wild: bool, taken: Card | None = None, drawn: Card | None = None) -> Text:
    """The hand as a row of cards; the cursor's card reversed, selected cards underlined on
    blue, the card taken from the pile this turn named, and the card last drawn from the stock
    marked ``▸`` and named (one copy of it, where the decks give two)."""
    out = Text()
    if not cards:
        out.append("(no cards)", style="dim")
    marked = cards.index(drawn) if drawn is not None and drawn in cards else None
    for i, c in enumerate(cards):
        style = card_style(c, deuces_wild)
        if i in selected:
            style += " underline on blue"
        if i == cursor:
            style += " reverse"
        out.append("▸" if i == marked else " ", style="bold yellow")
        out.append(f"{face(c)} ", style=style)
        out.append(" ")
    if taken is not None and taken in cards:
        out.append(f"  (took {face(taken)})", style="dim")
    if marked is not None:
        out.append(f"  (▸ drew {face(cards[marked])})", style="dim")
    return out


def score_table(players: Sequence[str], scores: Sequence[Sequence[int]],
                totals: Sequence[int], winners: Sequence[int] = ()) -> Table:
    t = Table(title="Score sheet", expand=False)
    t.add_column("hand", justify="right")
    for s, name in enumerate(players):
        t.add_column(name + (" ★" if s in winners else ""), justify="right")
    for i, row in enumerate(scores, 1):
        t.add_row(str(i), *map(str, row))
    t.add_row("total", *map(str, totals), style="bold")
    return t


def rules_panel(rules: RuleSet, contract_no: int | None = None,
                buys_used: int | None = None, players: int | None = None) -> Group:
    """The table's rules sheet (``rulestext.rules_sheet``: the contracts with this hand's marked,
    what is wild, buying with the buys used, going out, scoring, the table's changes to its
    preset), headed by the preset's line; every word from the core."""
    parts: list[RenderableType] = [Text(rules_label(rules).capitalize(), style="bold")]
    line = PRESET_LINES.get(rules.name)
    if line:
        parts.append(Text(line, style="dim"))
    for heading, lines in rules_sheet(rules, contract_no, buys_used, players):
        parts.append(Text(f"\n{heading}", style="bold cyan"))
        for text in lines:
            # indented, wrapped lines too, under their heading
            parts.append(Padding(Text(text, style="bold" if text.startswith("▶") else ""),
                                 (0, 0, 0, 2)))
    parts.append(Text("\n↑/↓ PgUp/PgDn scroll · Enter or Esc closes", style="dim"))
    return Group(*parts)


def hand_result_view(players: Sequence[str], r: HandResult, deuces_wild: bool) -> Group:
    who = " and ".join(players[s] for s in r.out) if r.out else "No one"
    t = Table(title=f"Hand {r.number} is over: {who} went out", expand=False)
    t.add_column("player")
    t.add_column("cards left")
    t.add_column("points", justify="right")
    t.add_column("total", justify="right")
    for s, name in enumerate(players):
        left = Text()
        for c in r.left[s]:
            left.append_text(card_text(c, deuces_wild))
            left.append(" ")
        if not r.left[s]:
            left.append("out" if s in r.out else "none", style="green")
        t.add_row(name, left, str(r.points[s]), str(r.totals[s]))
    return Group(t)


MENU_KEYS = "the number in brackets picks, arrows and Enter too, Escape cancels"


class Menu(ModalScreen[int | None]):
    """Choices picked by the number shown before each, ``[n]``: a meld's own number (as on the
    table) where the choices are melds, else 1, 2, 3...; numbers of two digits are typed digit
    by digit (Enter picks a number that begins a longer one). Arrows and Enter pick too, Escape
    cancels. Dismissed with the index of the choice in ``labels``."""

    DEFAULT_CSS = """
    Menu { align: center middle; }
    Menu > Vertical { width: 80%; max-width: 100; height: auto; max-height: 80%;
                      border: round $accent; background: $surface; padding: 0 1; }
    Menu OptionList { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, labels: Sequence[str | Text],
                 numbers: Sequence[int] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.labels = list(labels)
        self.numbers = list(numbers) if numbers is not None else \
            list(range(1, len(self.labels) + 1))
        if len(self.numbers) != len(self.labels) or len(set(self.numbers)) != len(self.numbers):
            raise ValueError("a menu needs one distinct number per choice")
        self.typed = ""  # the digits typed so far, while they begin more than one number

    def compose(self) -> ComposeResult:
        width = max(len(str(n)) for n in self.numbers) if self.numbers else 1
        options = []
        for n, label in zip(self.numbers, self.labels, strict=True):
            prompt = Text(f"[{n}]".ljust(width + 3), style="bold")
            prompt.append_text(label if isinstance(label, Text) else Text(label))
            options.append(Option(prompt))
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield OptionList(*options)
            yield Static(Text(MENU_KEYS, style="dim"), id="menu-keys")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0  # so that Down k times then Enter picks choice k
        options.focus()

    def on_key(self, event: events.Key) -> None:
        digit = event.character
        if digit is None or len(digit) != 1 or not digit.isdigit():
            self.typed = ""
            return
        event.stop()
        typed = self.typed + digit
        if not any(str(n).startswith(typed) for n in self.numbers):
            typed = digit  # not the next digit of any number: a number begins again
        begun = [i for i, n in enumerate(self.numbers) if str(n).startswith(typed)]
        exact = [i for i, n in enumerate(self.numbers) if str(n) == typed]
        if not begun:
            self.typed = ""
            self.app.bell()
            return
        if exact and len(begun) == 1:
            self.dismiss(exact[0])
            return
        # e.g. 1 among [1] and [12]: wait for the next digit, or Enter for [1]
        self.typed = typed
        self.query_one(OptionList).highlighted = exact[0] if exact else begun[0]
        more = "Enter picks it, or type the next digit" if exact else "type the next digit"
        self.query_one("#menu-keys", Static).update(Text(f"typed {typed}: {more}", style="dim"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


SCROLL_KEYS = "↑/↓ PgUp/PgDn scroll"


class ScrollPanel(VerticalScroll):
    """A panel whose text may be longer than its box: a scrollbar, and a line on its bottom
    border that says what is out of sight and which keys bring it in (``describe``, given the
    panel, says it in its own words; by default "more below"). Nothing is cut silently."""

    DEFAULT_CSS = """
    ScrollPanel { scrollbar-size-vertical: 1; }
    """

    def __init__(self, *children: Widget, id: str | None = None,
                 describe: Callable[[ScrollPanel], str] | None = None,
                 close: str = "") -> None:
        super().__init__(*children, id=id)
        self.describe = describe
        self.close = close  # how to close it, always said (a notice's)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.update_hint()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.update_hint)

    def out_of_sight(self) -> tuple[bool, bool]:
        """Whether some of the text is above, and below, what the panel shows."""
        return self.scroll_y > 0, self.scroll_y < self.max_scroll_y

    def update_hint(self) -> None:
        above, below = self.out_of_sight()
        if self.describe is not None:
            said = self.describe(self)
        else:
            where = [w for w, yes in (("↑ more above", above), ("↓ more below", below)) if yes]
            said = " · ".join([*where, SCROLL_KEYS]) if where else ""
        self.border_subtitle = " · ".join(x for x in (said, self.close) if x)


class Notice(ModalScreen[bool]):
    """Something to read (a hand's result, the score sheet, the rules, help); the arrows and
    PgUp/PgDn scroll what does not fit, Enter or Escape closes it, ``q`` closes it asking to
    quit."""

    DEFAULT_CSS = """
    Notice { align: center middle; }
    Notice > ScrollPanel { width: 90%; max-width: 110; height: auto; max-height: 90%;
                              border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "close"), Binding("escape", "close", "close"),
        Binding("space", "close", "close"), Binding("tab", "close", "close"),
                Binding("q", "quit_game", "quit")]

    def __init__(self, body: RenderableType) -> None:
        super().__init__()
        self.body = body

    def compose(self) -> ComposeResult:
        with ScrollPanel(close="Enter/Esc close"):
            yield Static(self.body)

    def on_mount(self) -> None:
        panel = self.query_one(ScrollPanel)
        panel.focus()  # so that the arrows scroll a long text
        panel.call_after_refresh(panel.update_hint)

    def action_close(self) -> None:
        self.dismiss(False)

    def action_quit_game(self) -> None:
        self.dismiss(True)


class TailLog(RichLog):
    """A log that always shows its newest line: every write scrolls to the end, and a change of
    size wraps every line again at the new width and scrolls to the end again. (A plain
    ``RichLog`` wraps a line once, at the width it has when written, and keeps its scroll offset
    when it shrinks, so after a resize its newest lines were hidden below the bottom edge.)"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, min_width=1)
        self.can_focus = False
        self.entries: list[Text] = []  # what was written, to wrap again at a new width
        self.wrapped_at = 0  # the width the lines are wrapped at now

    def add(self, content: Text | str) -> None:
        """Write one entry at the bottom and show it."""
        entry = content.copy() if isinstance(content, Text) else Text(content)
        self.entries.append(entry)
        self.write(entry, scroll_end=True)

    def clear(self) -> TailLog:
        self.entries = []
        super().clear()
        return self

    def on_resize(self, event: events.Resize) -> None:
        # RichLog's own handler runs after this one and writes what waited for a first size
        width = self.scrollable_content_region.width
        if self._size_known and width != self.wrapped_at and self.entries:
            entries = self.entries
            super().clear()
            for entry in entries:
                self.write(entry, scroll_end=False)
            self.entries = entries
        self.wrapped_at = width
        self.call_after_refresh(self.scroll_end, animate=False)
