"""The decisions of ``liverpool play`` that need a choice: menus chosen by number.

Domain words: *menu* (choices numbered 1, 2, 3..., or a table meld's own number [0], [1]...),
*lay off* (a card onto a meld on the table), *swap* (a card in place of a meld's joker),
*call* (a playable discard onto a meld, out of turn), *borrow* (a card from a table meld into
a new meld of the person's), *buy* (how deep), *give*, *cut*, *discard* (the card at the
cursor).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text

from ..actions import Action
from .pacing import Pacing
from .text import action_label, face, meld_text, possessive
from .widgets import Menu


class Menus(Pacing):
    """The person's decisions that ask which: menus over the board, then the action done."""

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
