"""The play phase: going down, laying off, swapping a joker, borrowing (house), discarding;
and the bonus caller's lay-off and discard. Each action's check and what it does, and the
listing of a seat's plays.

Domain words: *go down* (meld the hand's contract from the hand, once per hand), *lay off* (add
a card to a table meld), *joker swap* (a natural takes a wild's place; the wild must then be
played where ``swapped_joker_must_be_played``), *borrow* (take a natural off a meld to start a
new one), *float* (hand emptied without a discard: draw next turn, lay off only), *owed wilds*
(``must_play``), *go-down swaps* (wilds swapped in just before going down).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations, product
from typing import Any

from ..actions import Action
from ..cards import JOKER, Card, card_str, cards_str, is_wild, make_card, sorted_cards
from ..melds import (
    RUN,
    SET,
    Meld,
    arrangements,
    borrow_places,
    lay_off,
    layoff_ends,
    meld_readings,
    swap,
    swap_options,
    why_not_meld,
    without,
)
from ..rules import Contract, RuleSet
from ..solver import GoDown, SearchBudget, best_go_down
from .calls import CallRules
from .state import IllegalActionError, Phase

# What a play's check worked out and its application uses (the check never changes the state).
# go down: rest of the hand, cards used, melds, owed wilds left, all out
_GoDownPlan = tuple[list[Card], Counter[Card], list[Meld], list[Card], bool]
_LayOffPlan = tuple[list[Card], list[Card], str | None]  # rest, owed, end
_SwapPlan = tuple[list[Card], list[Card], int, Card, bool]  # rest, owed, place, wild, at go-down
_BorrowPlan = tuple[list[Card], list[Card], list[Card], list[Meld]]  # rest, from hand, owed, table


class PlayRules(CallRules):
    """The checks of the play and bonus phases and the listing of a seat's plays."""

    def best_go_down(self, seat: int) -> GoDown | None:
        """The solver's best go-down for ``seat`` now, if it may go down."""
        if self.phase is not Phase.PLAY or self.turn != seat or self.down[seat] \
                or self.floating[seat]:
            return None
        return self._best_go_down(seat)

    def _best_go_down(self, seat: int, budget: SearchBudget | None = None, first: bool = False
                      ) -> GoDown | None:
        """The best go-down of ``seat`` now (``first``: the first one the solver finds)."""
        if self.gd_swaps:
            return best_go_down(self.hands[seat], self.contract_for(seat), self.rules,
                                all_out=self._all_out(seat),
                                keep_at_most=_kept_wild(self.hands[seat], self.gd_swaps),
                                first=first, **self._finish_terms(budget))
        return self._go_down_playing(seat, self.hands[seat], self.must_play, budget, first)

    def _go_down_playing(self, seat: int, hand: list[Card], owed: list[Card],
                         budget: SearchBudget | None = None, first: bool = False
                         ) -> GoDown | None:
        """The best go-down from ``hand`` that melds every wild ``owed`` to the table: a player
        who is not down can play such a wild (swapped with ``swap_needs_down`` off) only so.
        The owed wilds are all jokers: ``check()`` refuses the rules that could owe a 2 here."""
        return best_go_down(hand, self.contract_for(seat), self.rules,
                            all_out=self._all_out(seat), keep_at_most=_kept_wild(hand, owed),
                            first=first,
                            **self._finish_terms(budget))

    def _finish_terms(self, budget: SearchBudget | None = None) -> dict[str, Any]:
        """How a go-down must leave the hand so that the turn can still end, and the search's
        budget: ``budget`` (a listing's, shared), else the game's for this search alone."""
        r = self.rules
        return {"empty_ok": r.going_out != "discard",
                "banned": self.taken if r.no_discard_of_taken_card else None,
                "budget": budget if budget is not None
                else None if self.search_budget is None else SearchBudget(self.search_budget)}

    def _all_out(self, seat: int) -> bool:
        return self.rules.all_out(self.contract_no(seat))

    def _check_go_down(self, a: Action) -> _GoDownPlan:
        p = a.player
        r = self.rules
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot go down now")
        if self.down[p]:
            raise IllegalActionError("you are already down this hand")
        contract = self.contract_for(p)
        melds = a.melds or ()
        hand = Counter(self.hands[p])
        used = Counter(c for m in melds for c in m)
        for c, k in used.items():
            if hand[c] < k:
                raise IllegalActionError(f"you do not hold {'that many ' if hand[c] else ''}"
                                         f"{card_str(c)}")
        readings = []
        for m in melds:
            opts = meld_readings(m, p, r)
            if not opts:
                raise IllegalActionError(why_not_meld(m, r))
            readings.append(opts)
        chosen = self._match_contract(readings, contract)
        if chosen is None:
            raise IllegalActionError(f"the contract is {contract.describe()}"
                                     f"{'' if not r.extra_melds_at_go_down else ' or more'}")
        rest = list(self.hands[p])
        for c in used.elements():
            rest.remove(c)
        all_out = self._all_out(p)
        if all_out and rest:
            raise IllegalActionError("in the last hand you must meld every card at once")
        for w in set(self.gd_swaps):
            before = self.hands[p].count(w) - self.gd_swaps.count(w)
            if rest.count(w) > before:
                raise IllegalActionError(f"the {card_str(w)} you swapped must be used in the "
                                         f"go-down")
        must = list(self.must_play)
        for c in used.elements():
            if c in must:
                must.remove(c)  # a wild owed to the table is played by melding it
        if must and not (r.layoff_same_turn and not (r.layoff_needs_second_down
                                                     and sum(self.down) < 1)):
            raise IllegalActionError(
                f"meld the {cards_str(must)} you took from the table in your go-down: you could "
                f"not lay it off this turn")
        if not all_out and not self._can_finish(p, rest, must, False):
            raise IllegalActionError("you must keep a card you may discard")
        return rest, used, chosen, must, all_out

    def _do_go_down(self, a: Action, plan: _GoDownPlan) -> None:
        p = a.player
        rest, used, chosen, must, all_out = plan
        self.hands[p] = rest
        for c in used.elements():
            if self.known[p][c]:
                self.known[p][c] -= 1
        self.melds.extend(chosen)
        self.must_play = must
        self.down[p] = True
        self.went_down_now = True
        self.gd_swaps = []
        if all_out:
            self._player_out(p)
        elif not rest:
            self._hand_emptied(p)

    def _match_contract(self, readings: list[list[Meld]], contract: Contract
                        ) -> list[Meld] | None:
        extra = self.rules.extra_melds_at_go_down

        def rec(i: int, sets: int, runs: int, acc: list[Meld]) -> list[Meld] | None:
            if i == len(readings):
                ok = (sets >= contract.sets and runs >= contract.runs) if extra else \
                    (sets == contract.sets and runs == contract.runs)
                return acc if ok else None
            for m in readings[i]:
                exact = contract.set_size if m.kind == SET else contract.run_size
                if exact is not None and len(m.cards) != exact:
                    continue
                found = rec(i + 1, sets + (m.kind == SET), runs + (m.kind == RUN), [*acc, m])
                if found is not None:
                    return found
            return None
        return rec(0, 0, 0, [])

    def _hand_emptied(self, p: int) -> None:
        """``p`` emptied the hand without a discard (go down, lay off, borrow)."""
        if self.rules.going_out == "empty":
            self._player_out(p)
        else:  # float: the turn ends with no discard; the top of the pile is no longer fresh
            self.floating[p] = True
            self.fresh = False
            self._next_turn()

    def _check_lay_off(self, a: Action) -> _LayOffPlan:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        meld = self._meld_at(a.meld)
        floater = self.floating[p]
        if self.phase is Phase.BONUS and self.bonus_laid:
            raise IllegalActionError("a bonus caller lays off one card at most")
        if floater:
            pass  # a floater must lay off the drawn card wherever it fits
        elif not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        ends = layoff_ends(meld, card, r)
        if not ends:
            raise IllegalActionError(f"{card_str(card)} does not fit meld {a.meld} ({meld})")
        end = ends[0]
        if a.end is not None:
            if meld.kind == SET:
                raise IllegalActionError("a set has no ends: leave out end")
            if a.end not in ends:
                raise IllegalActionError(f"{card_str(card)} does not fit the {a.end} end of "
                                         f"meld {a.meld}")
            end = a.end
        elif len(ends) > 1:
            raise IllegalActionError(f"{card_str(card)} could go at either end of meld {a.meld}: "
                                     f"say low or high")
        rest = list(self.hands[p])
        rest.remove(card)
        must = list(self.must_play)
        if card in must:
            must.remove(card)
        if not floater and not self._can_finish(p, rest, must, False,
                                                room_used=1 if meld.kind == RUN else 0):
            raise IllegalActionError(
                "you would have no card left that you may discard" if r.going_out == "discard"
                or self.phase is Phase.BONUS else "you would be left unable to finish the turn")
        return rest, must, end if meld.kind == RUN else None

    def _do_lay_off(self, a: Action, plan: _LayOffPlan) -> None:
        p = a.player
        card, at = a.card, a.meld
        assert card is not None and at is not None  # as checked
        rest, must, end = plan
        self.hands[p] = rest
        if self.known[p][card]:
            self.known[p][card] -= 1
        self.melds[at] = lay_off(self.melds[at], card, end, self.rules)
        self.must_play = must
        self.need_layoff = False
        if self.phase is Phase.BONUS:
            self.bonus_laid = True
        if not rest:
            self._hand_emptied(p)

    def _check_swap(self, a: Action, budget: SearchBudget | None = None) -> _SwapPlan:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        meld = self._meld_at(a.meld)
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot swap a joker now")
        if r.joker_swap == "none":
            raise IllegalActionError("these rules have no joker swaps")
        if meld.kind == SET and r.joker_swap == "runs":
            raise IllegalActionError("in these rules a joker can only be taken from a run")
        at_go_down = not self.down[p] and r.swap_needs_down
        if at_go_down:
            if r.swap_at_go_down <= len(self.gd_swaps):
                raise IllegalActionError(
                    "you must be down to swap a joker" if not r.swap_at_go_down else
                    f"you may swap only {r.swap_at_go_down} joker(s) while going down")
        elif self.down[p] and not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        opts = swap_options(meld, card, r)
        if not opts:
            raise IllegalActionError(f"{card_str(card)} cannot replace a wild in meld {a.meld} "
                                     f"({meld})")
        if a.wild is not None:
            opts = [o for o in opts if o[1] == a.wild]
            if not opts:
                raise IllegalActionError(f"meld {a.meld} has no {card_str(a.wild)} that "
                                         f"{card_str(card)} can replace")
        elif len(opts) > 1:
            raise IllegalActionError(f"meld {a.meld} holds several kinds of wild: name the one "
                                     f"to take")
        place, wild = opts[0]
        rest = list(self.hands[p])
        rest.remove(card)
        rest.append(wild)
        must = list(self.must_play)
        if card in must:
            must.remove(card)  # a wild taken earlier may itself stand for itself now
        if at_go_down:
            keep = (wild, self.hands[p].count(wild) - self.gd_swaps.count(wild))
            if best_go_down(rest, self.contract_for(p), r, all_out=self._all_out(p),
                            keep_at_most=keep, **self._finish_terms(budget)) is None:
                raise IllegalActionError(f"with that swap you could not go down using the "
                                         f"{card_str(wild)}")
        else:
            if r.swapped_joker_must_be_played:
                must.append(wild)
            if must and not self.down[p]:
                # not down (swap_needs_down off): the wild is played by melding it in this
                # turn's go-down, so that go-down must exist
                if self._go_down_playing(p, rest, must, budget) is None:
                    raise IllegalActionError(
                        f"with that swap you could not go down using the {card_str(wild)}, and "
                        f"you must play it this turn")
            elif not self._can_finish(p, rest, must, self.need_layoff):
                raise IllegalActionError("after that swap you could not finish the turn")
        return rest, must, place, wild, at_go_down

    def _do_swap(self, a: Action, plan: _SwapPlan) -> None:
        p = a.player
        card, at = a.card, a.meld
        assert card is not None and at is not None  # as checked
        rest, must, place, wild, at_go_down = plan
        self.hands[p] = rest
        if self.known[p][card]:
            self.known[p][card] -= 1
        self.known[p][wild] += 1
        self.melds[at] = swap(self.melds[at], place, card, self.rules)
        if at_go_down:
            self.gd_swaps.append(wild)
        else:
            self.must_play = must

    def _check_borrow(self, a: Action) -> _BorrowPlan:
        p = a.player
        r = self.rules
        if not r.borrow:
            raise IllegalActionError("these rules have no borrowing from the table")
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot borrow now")
        if not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        meld = self._meld_at(a.meld)
        card = a.card
        if card is None:
            raise IllegalActionError("name the card to borrow")
        places = borrow_places(meld, card, r)
        if not places:
            raise IllegalActionError(f"{card_str(card)} cannot be taken from meld {a.meld} "
                                     f"({meld}) leaving a valid meld of 3+ cards")
        new = tuple(a.new_meld or ())
        if card not in new:
            raise IllegalActionError(f"the new meld must contain the borrowed {card_str(card)}")
        from_hand = list(new)
        from_hand.remove(card)
        hand = Counter(self.hands[p])
        for c, k in Counter(from_hand).items():
            if hand[c] < k:
                raise IllegalActionError(f"you do not hold {card_str(c)}")
        readings = meld_readings(new, p, r)
        if not readings:
            raise IllegalActionError(why_not_meld(new, r))
        rest = list(self.hands[p])
        for c in from_hand:
            rest.remove(c)
        must = [w for w in self.must_play]
        for c in from_hand:
            if c in must:
                must.remove(c)
        table = list(self.melds)
        table[a.meld] = without(meld, places[0])  # type: ignore[index]
        table.append(readings[0])
        saved, self.melds = self.melds, table  # judge the turn's end on the table after it
        try:
            can_finish = self._can_finish(p, rest, must, self.need_layoff)
        finally:
            self.melds = saved
        if not can_finish:
            raise IllegalActionError("you would be left unable to finish the turn")
        return rest, from_hand, must, table

    def _do_borrow(self, a: Action, plan: _BorrowPlan) -> None:
        p = a.player
        rest, from_hand, must, table = plan
        self.hands[p] = rest
        for c in from_hand:
            if self.known[p][c]:
                self.known[p][c] -= 1
        self.melds = table
        self.must_play = must
        if not rest:
            self._hand_emptied(p)

    def _check_discard(self, a: Action) -> None:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        bonus = self.phase is Phase.BONUS
        if self.floating[p] and self._floater_must_lay_off(p):
            raise IllegalActionError(f"{card_str(card)} fits a meld: a floater must lay it off")
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        if self.must_play:
            raise IllegalActionError(f"play the {cards_str(self.must_play)} you took from the "
                                     f"table first")
        if self.need_layoff:
            raise IllegalActionError("you chose to lay off instead of drawing: lay off a card "
                                     "first")
        if card == self.taken and (bonus or r.no_discard_of_taken_card):
            raise IllegalActionError(f"you may not discard the {card_str(card)} you took this "
                                     f"turn")

    def _do_discard(self, a: Action) -> None:
        p = a.player
        card = a.card
        assert card is not None  # as checked
        self.hands[p].remove(card)
        if self.known[p][card]:
            self.known[p][card] -= 1
        self.discard.append(card)
        self.fresh = True
        self.discarder = p
        if not self.hands[p]:
            self._player_out(p)
            return
        if self.phase is Phase.BONUS:
            self._next_turn()
            return
        self._open_window(p, card)

    def _check_play(self, a: Action, budget: SearchBudget | None = None) -> object:
        """The check of a play (lay-off, swap, borrow, go-down, discard): its plan."""
        kind = a.type
        if kind == "discard":
            self._check_discard(a)
            return None
        if kind == "lay_off":
            return self._check_lay_off(a)
        if kind == "swap_joker":
            return self._check_swap(a, budget)
        if kind == "borrow":
            return self._check_borrow(a)
        return self._check_go_down(a)

    def _floater_must_lay_off(self, p: int) -> bool:
        return any(layoff_ends(m, c, self.rules) for m in self.melds for c in self.hands[p])

    def _legal_play(self, p: int, full: bool, best: bool = True) -> Iterator[Action]:
        """The listing of a seat's plays. Under a search budget its go-down searches (the best
        go-down's and every swap check's) share one budget: the listing's cost is bounded, not
        each search's."""
        budget = None if self.search_budget is None else SearchBudget(self.search_budget)
        hand = self.hands[p]
        distinct = sorted(set(hand))
        if self.phase is Phase.PLAY and not self.down[p] and not self.floating[p]:
            if full:
                yield from self._iter_go_downs(p)
            else:
                gd = self._best_go_down(p, budget, first=not best)
                if gd is not None:
                    yield Action("go_down", p, melds=tuple(m for _, m in gd.melds))
            if self.gd_swaps:
                return
        candidates: list[Action] = []
        floater = self.floating[p]
        may_lay = floater or (self._layoff_gate(p) and not (
            self.phase is Phase.BONUS and self.bonus_laid))
        held = set(hand)
        r = self.rules
        deuces = r.deuces_wild
        wild_held = [c for c in held if is_wild(c, deuces)]
        pairs: list[tuple[Card, int]] = []
        for i, m in enumerate(self.melds) if may_lay else ():
            # only the cards a meld can take are worth checking
            if m.kind == SET:
                wanted = [make_card(m.key, s) for s in range(4)]
            elif len(m.cards) < 13:
                wanted = [make_card(m.lo - 1, m.key) if m.lo > 1 else -1,
                          make_card(m.hi + 1, m.key) if m.hi < 14 else -1]
            else:
                continue
            for c in {*wanted, *wild_held}:
                if c in held:
                    pairs.append((c, i))
        for c, i in sorted(pairs):
            ends = layoff_ends(self.melds[i], c, r)
            if len(ends) == 1:
                candidates.append(Action("lay_off", p, card=c, meld=i))
            elif ends:
                candidates.extend(Action("lay_off", p, card=c, meld=i, end=e) for e in ends)
        if self.phase is Phase.PLAY and r.joker_swap != "none" and not floater:
            swaps: list[tuple[Card, int]] = []
            for i, m in enumerate(self.melds):
                if m.kind == SET and r.joker_swap != "runs_and_sets":
                    continue
                for place, w in enumerate(m.cards):
                    if is_wild(w, deuces):
                        if m.kind == SET:
                            swaps.extend((make_card(m.key, s), i) for s in range(4))
                        else:
                            swaps.append((m.stands_for(place), i))
            for c, i in sorted(set(swaps)):
                if c not in held:
                    continue
                opts = swap_options(self.melds[i], c, r)
                if len(opts) == 1:
                    candidates.append(Action("swap_joker", p, card=c, meld=i))
                else:
                    candidates.extend(Action("swap_joker", p, card=c, meld=i, wild=w)
                                      for _, w in opts)
        if self.phase is Phase.PLAY and self.rules.borrow and may_lay and not floater:
            candidates.extend(self._borrow_candidates(p, full))
        for a in candidates:
            try:
                self._check_play(a, budget)  # the seat is known to be acting
            except IllegalActionError:
                continue
            yield a
        # discards: the same conditions as _check_discard, judged once for the whole hand
        if self.gd_swaps or self.must_play or self.need_layoff or (
                floater and self._floater_must_lay_off(p)):
            return
        banned = self.taken if (self.phase is Phase.BONUS or r.no_discard_of_taken_card) \
            else None
        for c in distinct:
            if c != banned:
                yield Action("discard", p, card=c)

    def _borrow_candidates(self, p: int, full: bool) -> Iterator[Action]:
        """Borrows to check: with 2 cards from the hand, or (``full``) with 2 up to all but one
        of them. The full listing starts from the melds the hand and the borrowed card can make
        (``_meld_candidates``), not from every subset of the hand, which a long hand has
        hundreds of thousands of."""
        hand = self.hands[p]
        for i, m in enumerate(self.melds):
            for c in sorted(set(m.cards)):
                if not borrow_places(m, c, self.rules):
                    continue
                if full:
                    yield from self._borrows_with(p, i, c)
                    continue
                for combo in sorted(set(combinations(sorted(hand), 2))):
                    for new in arrangements((c, *combo), self.rules):
                        yield Action("borrow", p, meld=i, card=c, new_meld=new)

    def _borrows_with(self, p: int, i: int, c: Card) -> Iterator[Action]:
        hand = self.hands[p]
        held = Counter(hand)
        for new in sorted(_meld_candidates([*hand, c], self.rules)):
            if c not in new:
                continue
            from_hand = Counter(new)
            from_hand[c] -= 1
            k = sum(from_hand.values())
            if 2 <= k < len(hand) and all(held[x] >= n for x, n in from_hand.items()):
                yield Action("borrow", p, meld=i, card=c, new_meld=new)

    def _iter_go_downs(self, p: int) -> Iterator[Action]:
        """Every legal go-down, each once, melds in a canonical order and arrangement."""
        seen: set[tuple[tuple[Card, ...], ...]] = set()
        for combo in self._go_down_combinations(p):
            # the order of the melds numbers them on the table: each order is its own action
            for order in dict.fromkeys(permutations(combo.melds or ())):
                if order not in seen:
                    seen.add(order)
                    yield combo.replace(melds=order)

    def _go_down_combinations(self, p: int) -> Iterator[Action]:
        """Every legal go-down's melds once, whatever their order (the check does not depend on
        it), in the order the candidates were found."""
        r = self.rules
        contract = self.contract_for(p)
        hand = self.hands[p]
        seen: set[tuple[tuple[Card, ...], ...]] = set()
        sizes = contract.sets + contract.runs
        groups = _meld_candidates(hand, r)
        needs = [Counter(m) for m in groups]
        pool = Counter(hand)

        def rec(start: int, acc: list[tuple[Card, ...]], pool: Counter[Card]
                ) -> Iterator[list[tuple[Card, ...]]]:
            if len(acc) == sizes or (len(acc) > sizes and r.extra_melds_at_go_down):
                yield list(acc)
            if len(acc) >= sizes and not r.extra_melds_at_go_down:
                return
            for j in range(start, len(groups)):
                m = groups[j]
                need = needs[j]
                if all(pool[c] >= k for c, k in need.items()):
                    pool.subtract(need)
                    acc.append(m)
                    yield from rec(j, acc, pool)
                    acc.pop()
                    pool.update(need)

        for melds in rec(0, [], pool):
            key = tuple(melds)
            if key in seen:
                continue
            seen.add(key)
            a = Action("go_down", p, melds=key)
            if self._passes(self._check_go_down, a):
                yield a


class NextMelds:
    """For a go-down chosen meld by meld: the ``candidates`` (melds the cards left could make,
    each as the candidates arrange it), whether the melds chosen are a legal go-down alone
    (``whole``), and for each candidate, checked when first asked (``follows``), whether one
    legal go-down holds the melds chosen and it. A chooser that only needs one meld per next
    card asks a fraction of the candidates: a long hand has hundreds.

    The check: the solver's best completion of the rest of the contract from the cards left,
    checked as an action; where that fails, every completion is tried until one passes (where
    the solver's terms are not the check's), so the answer is exact, and fast where play is
    ordinary."""

    def __init__(self, game: PlayRules, p: int, melds: Sequence[tuple[Card, ...]],
                 parent: NextMelds | None = None) -> None:
        self.game = game
        self.p = p
        self.done = list(melds)
        self.answers: dict[int, bool] = {}
        pool = Counter(game.hands[p])
        pool.subtract(c for m in melds for c in m)
        self.pool = pool
        self.candidates: list[tuple[Card, ...]] = []
        self.needs: list[Counter[Card]] = []
        if any(k < 0 for k in pool.values()):
            self.whole = False
            return
        r = game.rules
        if parent is None:
            self.candidates = _meld_candidates(list(pool.elements()), r)
            self.needs = [Counter(m) for m in self.candidates]
            self.contract = game.contract_for(p)
            owed = game.gd_swaps or game.must_play
            self.keep = _kept_wild(game.hands[p], owed)
            self.terms = game._finish_terms(None)
            self.all_out = game._all_out(p)
            # the solver's finishing terms are the check's own, except with extra melds, wilds
            # owed to the table, or swapped wilds of two kinds: there a "no" is searched again
            self.exhaustive = r.extra_melds_at_go_down or bool(game.must_play) \
                or len(set(owed)) > 1
        else:
            # the candidates of fewer cards are those of more that the fewer still hold (the
            # enumeration depends on the cards only through what they can supply); the seat's
            # terms are the question before's
            for m, need in zip(parent.candidates, parent.needs, strict=True):
                if all(pool[c] >= k for c, k in need.items()):
                    self.candidates.append(m)
                    self.needs.append(need)
            self.contract, self.keep, self.terms = parent.contract, parent.keep, parent.terms
            self.all_out, self.exhaustive = parent.all_out, parent.exhaustive
        self.whole = self._legal(self.done)

    def then(self, meld: tuple[Card, ...]) -> NextMelds:
        """The same question once ``meld`` is chosen too (its candidates taken from these)."""
        return NextMelds(self.game, self.p, [*self.done, meld], self)

    def following(self) -> list[tuple[Card, ...]]:
        """Every candidate that can follow (each checked)."""
        return [m for j, m in enumerate(self.candidates) if self.follows(j)]

    def follows(self, j: int) -> bool:
        """Whether candidate ``j`` can follow the melds chosen in a legal go-down."""
        known = self.answers.get(j)
        if known is None:
            known = False
            full = len(self.done) >= self.contract.sets + self.contract.runs
            if not full or self.game.rules.extra_melds_at_go_down:
                rest = self.pool.copy()  # every candidate fits the cards left
                rest.subtract(self.needs[j])
                acc = [*self.done, self.candidates[j]]
                known = self._by_solver(acc, rest) or (
                    self.exhaustive and self._by_search(0, acc, rest))
            self.answers[j] = known
        return known

    def _legal(self, acc: list[tuple[Card, ...]]) -> bool:
        game = self.game
        return game._passes(game._check_go_down, Action("go_down", self.p, melds=tuple(acc)))

    def _by_solver(self, acc: list[tuple[Card, ...]], rest: Counter[Card]) -> bool:
        r = self.game.rules
        contract = self.contract
        kinds: list[list[str]] = []
        for m in acc:
            kinds.append(sorted({x.kind for x in meld_readings(m, self.p, r)}))
        left = list(rest.elements())
        for choice in product(*kinds):
            s_left = contract.sets - sum(1 for k in choice if k == SET)
            r_left = contract.runs - sum(1 for k in choice if k == RUN)
            if s_left < 0 or r_left < 0:
                continue
            if s_left == r_left == 0:
                if self._legal(acc):
                    return True
                continue
            gd = best_go_down(left, Contract(s_left, r_left, contract.set_size,
                                             contract.run_size), r, all_out=self.all_out,
                              keep_at_most=self.keep, first=True, **self.terms)
            if gd is not None and self._legal([*acc, *(cards for _, cards in gd.melds)]):
                return True
        return False

    def _by_search(self, start: int, acc: list[tuple[Card, ...]], rest: Counter[Card]) -> bool:
        contract = self.contract
        if len(acc) >= contract.sets + contract.runs and self._legal(acc):
            return True
        if len(acc) >= contract.sets + contract.runs and not self.game.rules.extra_melds_at_go_down:
            return False
        groups, needs = self.candidates, self.needs
        for j in range(start, len(groups)):
            need = needs[j]
            if all(rest[c] >= k for c, k in need.items()):
                rest.subtract(need)
                acc.append(groups[j])
                found = self._by_search(j, acc, rest)
                acc.pop()
                rest.update(need)
                if found:
                    return True
        return False


def _kept_wild(hand: Sequence[Card], owed: Sequence[Card]) -> tuple[Card, int] | None:
    """The solver's ``keep_at_most`` for wilds a go-down must use (swapped in to go down, or
    owed to the table): at most as many of the first such wild may stay as were held besides."""
    if not owed:
        return None
    w = owed[0]
    return (w, hand.count(w) - owed.count(w))


def _meld_candidates(hand: Sequence[Card], rules: RuleSet) -> list[tuple[Card, ...]]:
    """Every distinct valid first-down meld drawn from ``hand``, in a canonical arrangement
    for sets and every arrangement of wilds for runs."""
    deuces = rules.deuces_wild
    wilds = sorted(c for c in hand if is_wild(c, deuces))
    pool = Counter(hand)
    out: set[tuple[Card, ...]] = set()
    nat_counts = Counter(c for c in hand if c not in wilds)
    wild_subsets = {tuple(w) for k in range(len(wilds) + 1) for w in combinations(wilds, k)}
    # sets
    ranks = {c % 13 + 1 for c in hand if c != JOKER}
    least = rules.min_set  # fewer cards read as no set: not built, not read
    for rank in ranks:
        naturals = sorted(c for c in hand if c != JOKER and c % 13 + 1 == rank)
        nat_subsets = {tuple(s) for k in range(1, len(naturals) + 1)
                       for s in combinations(naturals, k)}
        shared = deuces and rank == 2  # wild 2s are naturals here too: a card picked twice
        for ns in nat_subsets:
            for ws in wild_subsets:
                if len(ns) + len(ws) < least:
                    continue
                picked: list[Card] = [*ns, *ws]
                if shared and any(pool[c] < k for c, k in Counter(picked).items()):
                    continue
                m = tuple(sorted_cards(picked, deuces and rank != 2))
                if any(x.kind == SET for x in meld_readings(m, 0, rules)):
                    out.add(m)
    # runs: every window of every suit, naturals where held, wilds elsewhere; a window whose
    # places without their natural outnumber the wilds cannot be filled, nor any longer one
    spare = len(wilds)
    kinds = sorted(set(wilds))
    for suit in range(4):
        for lo in range(1, 14):
            options: list[list[Card]] = []
            gaps = 0
            for r in range(lo, min(lo + 12, 14) + 1):  # 13 places at most, the ace high last
                t = (r - 1) % 13 + suit * 13
                held = bool(nat_counts[t]) or t in wilds
                gaps += not held
                if gaps > spare:
                    break
                options.append([t, *kinds] if held else list(kinds))
                if len(options) >= rules.min_run:
                    _expand_runs(options, 0, [], pool, rules, out)
    return sorted(out)


def _expand_runs(options: list[list[Card]], i: int, acc: list[Card], pool: Counter[Card],
                 rules: RuleSet, out: set[tuple[Card, ...]]) -> None:
    if i == len(options):
        m = tuple(acc)
        if any(x.kind == RUN for x in meld_readings(m, 0, rules)):
            out.add(m)
        return
    for c in options[i]:
        if pool[c] > 0:
            pool[c] -= 1
            acc.append(c)
            _expand_runs(options, i + 1, acc, pool, rules, out)
            acc.pop()
            pool[c] += 1
