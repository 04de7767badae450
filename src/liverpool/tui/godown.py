"""The go-down editor of ``liverpool play``: the person's melds built from selected cards.

Domain words: *compose* (building a go-down meld by meld from selected cards, or taking the
*suggested* one), *pending* melds (made but not yet put down), *arrangement* (one way a
meld's cards lie, wilds in their places: ``melds.arrangements``; n shows the next), *go down*
(the pending melds, as arranged by ``Game.arranged``, put on the table).
"""

from __future__ import annotations

from ..actions import Action
from ..melds import arrangements
from .pacing import Pacing


class GoDownEditor(Pacing):
    """The keys of going down: start, make a meld, rearrange, undo, accept, go down, cancel."""

    def start_compose(self) -> None:
        v = self.view()
        if v.down[v.me]:
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
