"""The Textual app of ``liverpool play``: the table at a glance and every decision with the
keyboard. ``PlayApp`` is the keys on top of layers, one a module, each on the one below:
``board`` (the screen and the shared state), ``pacing`` (the game moving: bots, workers,
notices), then ``menus`` (the decisions that ask which) and ``godown`` (the go-down editor).

Domain words: *keys* (what each key does, by the phase of the game), *cursor* (the card of the
hand the arrows move to), *sort* (the hand by rank or by suit), *help*, *rules* and *score
sheet* (panels over the board that do not pause the game).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType

from ..actions import Action
from .board import PACES
from .godown import GoDownEditor
from .guide import Guide
from .menus import Menus
from .widgets import Notice, ScrollPanel, rules_panel, score_table

HELP = """[b]Any time[/b]
  ← → Home End  move in your hand   space  select a card
  o    sort by rank / by suit        h  hint (the expert's)
  Tab  score sheet                   f  bots faster / instant
  r    the table's rules             ?  this help
  PgUp PgDn  scroll the table's melds (its border says how many are out of sight)
  i    the first-game walk-through (notes beside the table; Esc skips it)
  q    quit (saved: --resume)
[b]Start of your turn[/b]
  t  take the discard     d  draw from the stock
  n  lay off instead of drawing (house)
[b]Buy round[/b]  b buy  p pass  n pass, and no more buys asked this hand
[b]Playable discard[/b]  c call  p pass
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


# the keys that answer a decision (not the ones that look or move the cursor): pressed while
# the seat cannot act, they are kept for its decision
DECISION_KEYS = frozenset("tdnbpcgljw") | {"enter"}


class PlayApp(Menus, GoDownEditor):
    """One game at this terminal: the keys, the hand's cursor and the panels asked for."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit_game", "quit", show=False, priority=True),
        Binding("tab", "scores", "score sheet", show=False, priority=True)]

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
            "pageup": lambda: self.scroll_table(-1), "pagedown": lambda: self.scroll_table(1),
        }
        if key in common:
            common[key]()
            self.refresh_all()
            return True
        if char == "?":
            self.show_help()
            return True
        if key == "i":
            self.start_guide()
            return True
        if key == "escape" and self.guide_notes() and not self.kept:
            self.skip_guide()
            return True
        if s.over:
            return False
        if not s.human_to_act() or self.paused:
            return self.keep_key(key, char)
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
            table = {"b": self.buy, "p": lambda: self.do(Action("pass", me)),
                     "n": self.no_buys}
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

    def start_guide(self) -> None:
        """The walk-through again, on demand."""
        self.guide = Guide(folder=self.guide.folder if self.guide is not None else None)
        self.say("The walk-through: its notes come beside the table as the game gets there; "
                 "Esc skips it.")
        self.refresh_all()

    def skip_guide(self) -> None:
        if self.guide is not None:
            self.guide.finish()
        self.say("Walk-through skipped; i shows it again.")
        self.refresh_all()

    def keep_key(self, key: str, char: str | None) -> bool:
        """A key of a decision pressed while the seat cannot act yet (the bots are settling a
        buy, or it is their turn): kept, with the card at the cursor, and applied once the seat
        may act, never dropped. Esc forgets the keys kept."""
        if key == "escape" and self.kept:
            self.kept.clear()
            self.say("The keys kept were forgotten.")
        elif key in DECISION_KEYS:
            self.kept.append((key, char, self.card_at_cursor()))
        else:
            return False
        self.refresh_all()
        return True

    def apply_kept(self) -> None:
        """The keys kept while waiting, in order, now that the seat may act: each at the card
        the cursor was on when it was pressed; a key this decision has no use for is refused in
        words, and the keys after one that opens a menu wait for no menu: they are dropped,
        and said to be."""
        while self.kept and len(self.screen_stack) == 1 and not self.paused \
                and self.session.human_to_act():
            key, char, card = self.kept.pop(0)
            cards = self.shown_hand()
            if card is not None and card in cards:
                self.cursor = cards.index(card)
                self.cursor_card = card
            if not self.handle_key(key, char):
                self.say(f"Not now: {key}, pressed while waiting, is no key of this decision "
                         f"({self.view().phase}); ? shows the keys.", "bold red")
                self.kept.clear()
            elif len(self.screen_stack) > 1 and self.kept:
                dropped = ", ".join(k for k, _, _ in self.kept)
                self.kept.clear()
                self.say(f"Choose in the menu; the keys kept after it ({dropped}) were not "
                         f"applied.", "bold red")
        self.refresh_all()

    def scroll_table(self, pages: int) -> None:
        box = self.query_one("#melds-box", ScrollPanel)
        if pages < 0:
            box.scroll_page_up(animate=False)
        else:
            box.scroll_page_down(animate=False)

    def move(self, step: int) -> None:
        cards = self.shown_hand()
        self.cursor = max(0, min(len(cards) - 1, self.cursor + step))
        self.cursor_card = cards[self.cursor] if cards else None

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

    def show_rules(self) -> None:
        """The table's rules, in the core's words, with this hand's contract marked and the
        person's buys used."""
        s = self.session
        v = self.view()
        contract = None if s.over else s.game.contract_no(s.human)
        self.push_screen(Notice(rules_panel(v.ruleset, contract, v.buys[v.me], len(v.players))))

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

