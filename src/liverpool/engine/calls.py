"""The playable-discard window: after a discard that fits a table meld, the seats asked may
call it (docs/rules.md, playable_discard), and under ``give_cards`` every other player then
gives the discarder a card.

Domain words: *window* (the CALL phase over one discard), *window mode* (``bonus``: the caller
takes the card, lays off at most one card and discards; ``take_back``: the discarder takes it
back with a penalty card; ``give_cards``: the card goes on the meld and the others each give the
discarder a card; ``points``: the discarder owes rummy points), *asked* (the seats still to
answer, in order).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..actions import Action
from ..cards import Card, card_str
from ..melds import lay_off, layoff_ends
from .state import IllegalActionError, Phase
from .turns import Table


class CallRules(Table):
    """Opening the window after a discard, the calls and the gives, and their listing."""

    def _open_window(self, p: int, card: Card) -> None:
        r = self.rules
        mode = r.playable_discard
        if mode == "standard":
            mode = "take_back" if self.down[p] else "bonus"
        if mode == "none" or (mode != "bonus" and not self.down[p]):
            self._next_turn()
            return
        if not self._fitting_melds(p, card):
            self._next_turn()
            return
        asked = []
        for k in range(1, self.n):
            q = (p + k) % self.n
            if self.out[q] or self.floating[q]:
                continue
            if mode == "bonus" and not (self.down[q] and self.hands[q]):
                continue
            asked.append(q)
        if not asked:
            self._next_turn()
            return
        self.window_mode = mode
        self.asked = asked
        self.phase = Phase.CALL

    def _fitting_melds(self, discarder: int, card: Card) -> list[tuple[int, str | None]]:
        out: list[tuple[int, str | None]] = []
        for i, m in enumerate(self.melds):
            if not self.rules.fits_own_melds and m.owner == discarder:
                continue
            for end in layoff_ends(m, card, self.rules):
                out.append((i, end))
        return out

    def _check_call(self, a: Action) -> tuple[int, str | None] | None:
        """The meld (and end) a give-cards call lays the card on; None for other calls."""
        q = a.player
        d = self.discarder
        assert d is not None
        card = self.discard[-1]
        mode = self.window_mode
        if mode == "give_cards":
            opts = self._fitting_melds(d, card)
            if a.meld is None:
                raise IllegalActionError("say on which meld the card goes")
            here = [o for o in opts if o[0] == a.meld]
            if not here:
                raise IllegalActionError(f"{card_str(card)} does not fit meld {a.meld}")
            if a.end is not None:
                here = [o for o in here if o[1] == a.end]
                if not here:
                    raise IllegalActionError(f"{card_str(card)} does not fit the {a.end} end")
            elif len(here) > 1:
                raise IllegalActionError("the card could go at either end: say low or high")
            return here[0]
        if a.meld is not None or a.end is not None:
            raise IllegalActionError("this call names no meld")
        if mode == "bonus" and all(c == card for c in self.hands[q]):
            raise IllegalActionError(f"you could not discard after taking {card_str(card)} (the "
                                     f"discard must be another card)")
        return None

    def _do_call(self, a: Action, target: tuple[int, str | None] | None) -> None:
        q = a.player
        d = self.discarder
        assert d is not None
        card = self.discard[-1]
        mode = self.window_mode
        r = self.rules
        self.asked = []
        if mode == "bonus":
            self.discard.pop()
            self.hands[q].append(card)
            self.known[q][card] += 1
            self.bonus_caller = q
            self.taken = card
            self.bonus_laid = False
            self.must_play = []
            self.need_layoff = False
            self.gd_swaps = []
            self.went_down_now = False
            self.phase = Phase.BONUS
        elif mode == "take_back":
            self.discard.pop()
            self.hands[d].append(card)
            self.known[d][card] += 1
            c = self._draw_stock()  # "plus one penalty card", whatever buys cost
            if c is not None:
                self.hands[d].append(c)
            self.fresh = False
            self._next_turn()
        elif mode == "give_cards":
            assert target is not None
            self.discard.pop()
            i, end = target
            self.melds[i] = lay_off(self.melds[i], card, end, r)
            self.fresh = False
            self.asked = [(d + k) % self.n for k in range(1, self.n)
                          if len(self.hands[(d + k) % self.n]) >= 2]
            if self.asked:
                self.phase = Phase.GIVE
            else:
                self._next_turn()
        else:  # points
            self.penalties[d] += r.rummy_points
            self._next_turn()

    def _check_give(self, a: Action) -> None:
        self._require_card(a.player, a.card)

    def _do_give(self, a: Action) -> None:
        q = a.player
        card = self._require_card(q, a.card)
        d = self.discarder
        assert d is not None
        self.hands[q].remove(card)
        if self.known[q][card]:
            self.known[q][card] -= 1
        self.hands[d].append(card)
        self.known[d][card] += 1
        self.asked.pop(0)
        if not self.asked:
            self._next_turn()

    def _legal_call(self, seat: int) -> Iterator[Action]:
        if self.window_mode == "give_cards":
            assert self.discarder is not None
            opts = self._fitting_melds(self.discarder, self.discard[-1])
            for i, end in opts:
                both = sum(1 for o in opts if o[0] == i) > 1
                yield Action("call", seat, meld=i, end=end if both else None)
        elif self._passes(self._check_call, Action("call", seat)):
            yield Action("call", seat)
        yield Action("pass", seat)

    def _legal_give(self, seat: int) -> Iterator[Action]:
        for c in sorted(set(self.hands[seat])):
            yield Action("give", seat, card=c)

    @staticmethod
    def _passes(check: Any, a: Action) -> bool:
        """Does ``check`` accept ``a`` (for an acting seat, in its phase)?"""
        try:
            check(a)
        except IllegalActionError:
            return False
        return True
