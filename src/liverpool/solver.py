"""The contract solver: can a hand meet a contract, and its best go-down.

Domain words: *go-down* (the melds a player lays down to meet the contract), *left* (the cards
that stay in hand), *span* (the ranks a run covers between its first and last natural card),
*gap* (a place inside a span with no natural card: a wild fills it), *extension* (wilds added
beyond a span's ends), *spare capacity* (how many more wilds the chosen melds could still take).

Best go-down: fewest points left in hand, then most cards melded, then (the fixed tie-break) the
smallest left-over hand compared as a sorted tuple of card codes (suit S H D C, then rank A..K,
jokers last). All three depend only on the cards left, so the search is a memoised
depth-first search over "what is still in hand, how many melds are still owed". Runs are chosen
first by span (their naturals fixed, interior naturals optionally left out for a set), then sets
by rank; wilds beyond the required ones are counted as spare capacity and placed at the end.

A search may be given a *budget* (visits of a search state; none by default): a hand grown far
beyond a deal (a seat that buys every card offered, with many wilds) can have hundreds of
thousands of states, seconds of search, and a server lists legal moves and checks actions with
this search. Out of budget, the search stops where it is and answers with the best go-down
found so far, or None if it has found none: never a go-down that is not one.

``brute_force_go_down`` is the exhaustive oracle the tests check this against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .cards import ACE, JOKER, Card, is_wild, make_card, wild_cards
from .frozen import reduce_frozen
from .melds import RUN, SET, meld_readings
from .rules import Contract, RuleSet

INF = 10**9
# the budget of games where a person waits for the legal moves (the terminal game, a server's
# tables): far above what hands of play use, and a bound on a hand grown by buying everything
PERSON_SEARCH_BUDGET = 20_000
_Key = tuple[int, int, tuple[Card, ...]]  # points left, cards left, the cards left


@dataclass(frozen=True, slots=True)
class GoDown:
    """Melds in the notation's order (runs low to high, wilds in their places) and what is left."""

    melds: tuple[tuple[str, tuple[Card, ...]], ...]
    left: tuple[Card, ...]
    points_left: int

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    @property
    def key(self) -> tuple[int, int, tuple[Card, ...]]:
        return (self.points_left, len(self.left), self.left)


class SearchBudget:
    """Visits of a search state that go-down searches may still make, shared by the searches
    it is given to (a server's listing of one seat's legal actions runs several)."""

    __slots__ = ("left",)

    def __init__(self, visits: int) -> None:
        self.left = visits


@dataclass(slots=True)
class _Spec:
    """A chosen meld before spare wilds are placed."""

    kind: str
    cards: list[Card]  # a run's cards low to high incl. gap wilds; a set's cards
    lo: int  # runs: rank of the first place
    capacity: int  # how many more wilds it may take


class _Search:
    def __init__(self, rules: RuleSet, contract: Contract, all_out: bool,
                 keep_at_most: tuple[Card, int] | None, empty_ok: bool = True,
                 banned: Card | None = None, visits: int = INF, first: bool = False) -> None:
        self.visits_left = visits
        self.first = first  # stop at the first go-down found (whether one exists, not the best)
        self.empty_ok = empty_ok
        self.banned = banned
        self.rules = rules
        self.deuces = rules.deuces_wild
        self.contract = contract
        self.all_out = all_out
        self.keep_at_most = keep_at_most
        self.points = rules.card_points
        self.memo: dict[tuple[object, ...], tuple[tuple[int, int, tuple[Card, ...]] | None,
                                                  tuple[_Spec, ...], int]] = {}
        self.absolute = rules.naturals is not None
        self.run_need = [rules.run_naturals(size) for size in range(15)]

    def pts(self, card: Card) -> int:
        return self.points[0 if card == JOKER else card % 13 + 1]

    # -- leaf: the melds are chosen; place spare wilds, score the cards left --------------------
    def leaf(self, nats: tuple[Card, ...], wilds: tuple[Card, ...], spare: int
             ) -> tuple[tuple[int, int, tuple[Card, ...]] | None, int]:
        """Place as many spare wilds as the melds take (fewer if the player must keep a card)."""
        for placed in range(min(len(wilds), spare), -1, -1):
            left = tuple(sorted(nats + wilds[placed:]))
            if self.all_out:
                if left:
                    return None, 0
            elif not (not left and self.empty_ok) and not any(c != self.banned for c in left):
                continue  # the player could not end the turn with a legal discard
            if self.keep_at_most is not None:
                card, most = self.keep_at_most
                if left.count(card) > most:
                    return None, 0
            return (sum(self.pts(c) for c in left), len(left), left), placed
        return None, 0

    def solve(self, nats: tuple[Card, ...], wilds: tuple[Card, ...], runs: int, sets: int,
              spare: int) -> tuple[_Key | None, tuple[_Spec, ...], int]:
        if self.visits_left <= 0:
            return None, (), 0  # out of budget: no answer here (and none is remembered)
        self.visits_left -= 1
        spare = min(spare, len(wilds))
        mkey = (nats, wilds, runs, sets, spare)
        hit = self.memo.get(mkey)
        if hit is not None:
            return hit
        best: tuple[int, int, tuple[Card, ...]] | None = None
        best_specs: tuple[_Spec, ...] = ()
        best_extra = 0
        if self.all_out and nats and not self._may_hold_all(nats, wilds, runs, sets):
            out: tuple[_Key | None, tuple[_Spec, ...], int] = (None, (), 0)
            self.memo[mkey] = out
            return out
        if runs == 0 and sets == 0:
            best, best_extra = self.leaf(nats, wilds, spare)
        else:
            children = self.run_choices(nats, wilds, runs) if runs \
                else self.set_choices(nats, wilds)
            for spec, rest_nats, rest_wilds in children:
                key, specs, extra = self.solve(rest_nats, rest_wilds, runs - (1 if runs else 0),
                                               sets - (0 if runs else 1), spare + spec.capacity)
                if key is not None and (best is None or key < best):
                    best, best_specs, best_extra = key, (spec, *specs), extra
                    if self.first:
                        break
                if self.visits_left <= 0:
                    break  # out of budget: the best so far, without making the other children
        out = (best, best_specs, best_extra)
        self.memo[mkey] = out
        return out

    def _may_hold_all(self, nats: tuple[Card, ...], wilds: tuple[Card, ...], runs: int,
                      sets: int) -> bool:
        """When every card must be melded: can the melds still owed hold these naturals? A run
        holds one suit, each card at most once, 13 cards at most; a set holds one rank. (Only
        when the owed melds are all of one kind: mixed contracts are left to the search.)"""
        if sets == 0:
            if runs == 0 or len(nats) + len(wilds) > 13 * runs:
                return False
            if len({c // 13 for c in nats}) > runs:
                return False
            return max(Counter(nats).values()) <= runs
        if runs == 0:
            return len({c % 13 for c in nats}) <= sets
        return True

    # -- runs -------------------------------------------------------------------------------
    def run_choices(self, nats: tuple[Card, ...], wilds: tuple[Card, ...], runs_left: int
                    ) -> Iterable[tuple[_Spec, tuple[Card, ...], tuple[Card, ...]]]:
        rules = self.rules
        exact = self.contract.run_size
        min_len = exact or rules.min_run
        n_wilds = len(wilds)
        by_suit: list[dict[int, Card]] = [{}, {}, {}, {}]
        for c in nats:
            have = by_suit[c // 13]
            r = c % 13 + 1
            have[r] = c
            if r == ACE:
                have[14] = c
        for suit in range(4):
            have = by_suit[suit]
            deuce_card = make_card(2, suit)
            deuce_natural = self.deuces and deuce_card in wilds
            if deuce_natural:
                have[2] = deuce_card
            if not have:
                continue
            k = len(have)
            least = self.run_need[min_len]
            if k < least:
                continue  # too few naturals of this suit for any run
            ranks = sorted(have)
            max_len = exact or 13
            need = self.run_need
            for i in range(k - least + 1):
                a = ranks[i]
                for j in range(i + least - 1, k):
                    b = ranks[j]
                    length = b - a + 1
                    if length > max_len or (a == 1 and b == 14):
                        break
                    n_nat = j - i + 1
                    gaps = length - n_nat
                    if gaps > n_wilds:
                        break  # longer spans only have more gaps
                    size = length if length > min_len else min_len
                    if size - n_nat > n_wilds or n_nat < need[size]:
                        continue  # even with every natural in it, this span cannot be a run
                    inside = ranks[i:j + 1]
                    interior = [r for r in inside[1:-1] if r != 2 or not deuce_natural]
                    yield from self._runs_for_span(suit, a, b, inside, interior, gaps, have,
                                                   nats, wilds, min_len, exact, runs_left > 1)

    def _runs_for_span(self, suit: int, a: int, b: int, inside: list[int], interior: list[int],
                       gaps: int, have: dict[int, Card], nats: tuple[Card, ...],
                       wilds: tuple[Card, ...], min_len: int, exact: int | None,
                       more_runs: bool) -> Iterable[tuple[_Spec, tuple[Card, ...],
                                                          tuple[Card, ...]]]:
        rules = self.rules
        length = b - a + 1
        max_out = len(wilds) - gaps
        outs: list[tuple[int, ...]] = [()]
        if (self.contract.sets or more_runs) and max_out > 0 and interior:
            # leaving a natural out of the run (a wild takes its place) only helps if it can
            # join a set of its rank or another run
            set_need = self.rules.set_naturals(self.contract.set_size or self.rules.min_set)
            ranks_held = Counter(c % 13 for c in nats)
            useful = interior if more_runs else \
                [r for r in interior if ranks_held[(r - 1) % 13] >= set_need]
            for k in range(1, min(max_out, len(useful)) + 1):
                outs.extend(combinations(useful, k))
        for left_out in outs:
            used = [r for r in inside if r not in left_out]
            n_nat = len(used)
            in_wild = length - n_nat
            ext = max(0, min_len - length)
            if exact is not None:
                ext = exact - length
            wild_naturals = sum(1 for r in used if is_wild(have[r], True)) if self.deuces else 0
            if ext + length > 13 or in_wild + ext > len(wilds) - wild_naturals:
                continue
            size = length + ext
            if self.absolute:
                if n_nat < rules.run_naturals(size):
                    continue
                capacity = 0 if exact else 13 - size
            else:
                capacity = n_nat - 1 - (in_wild + ext)
                if capacity < 0:
                    continue
                if exact:
                    capacity = 0
                capacity = min(capacity, 13 - size)
            # build the run: naturals in place, wilds in gaps, extension high then low
            rest_nats = list(nats)
            rest_wilds = list(wilds)
            for r in used:
                c = have[r]
                if is_wild(c, self.deuces):
                    rest_wilds.remove(c)
                else:
                    rest_nats.remove(c)
            cards = [have[r] if r in used else rest_wilds.pop(0) for r in range(a, b + 1)]
            lo = a
            for _ in range(ext):
                lo = _extend_run(cards, lo, rest_wilds.pop(0))
            if lo < 1:
                continue
            yield _Spec(RUN, cards, lo, capacity), tuple(rest_nats), tuple(rest_wilds)

    # -- sets -------------------------------------------------------------------------------
    def set_choices(self, nats: tuple[Card, ...], wilds: tuple[Card, ...]
                    ) -> Iterable[tuple[_Spec, tuple[Card, ...], tuple[Card, ...]]]:
        rules = self.rules
        exact = self.contract.set_size
        min_size = exact or rules.min_set
        by_rank: dict[int, list[Card]] = {}
        for c in nats:
            by_rank.setdefault(c % 13 + 1, []).append(c)
        if self.deuces:
            deuces = [w for w in wilds if w != JOKER]
            if deuces:
                by_rank[2] = deuces  # a set of 2s: the 2s stand for themselves
        for rank, group in by_rank.items():
            c = len(group)
            counts = [c] if exact is None else [min(c, exact)]
            if not self.empty_ok and counts[0] - 1 >= self.rules.set_naturals(min_size):
                counts.append(counts[0] - 1)  # keep one back to discard
            if exact is None and c >= 2 * (self.rules.set_naturals(min_size)):
                counts += list(range(self.rules.set_naturals(min_size), c))  # split for 2 sets
            for u in counts:
                use = sorted(group, reverse=True)[:u]
                pool = [w for w in wilds if not (rank == 2 and self.deuces and w != JOKER)] \
                    if rank == 2 and self.deuces else list(wilds)
                need = max(0, min_size - u)
                if need > len(pool):
                    continue
                size = max(u, min_size)
                if self.absolute:
                    if u < rules.set_naturals(size):
                        continue
                    capacity = 0 if exact else INF
                else:
                    capacity = u - 1 - need
                    if capacity < 0:
                        continue
                    if exact:
                        capacity = 0
                rest_nats = list(nats)
                rest_wilds = list(wilds)
                for card in use:
                    if is_wild(card, self.deuces):
                        rest_wilds.remove(card)
                    else:
                        rest_nats.remove(card)
                cards = list(use)
                for _ in range(need):
                    w = pool.pop(0)
                    rest_wilds.remove(w)
                    cards.append(w)
                if rank == 2 and self.deuces:
                    capacity = 0  # surplus wilds go elsewhere: keeps a set of 2s simple
                yield _Spec(SET, cards, 0, capacity), tuple(rest_nats), tuple(rest_wilds)

    # -- building the answer ----------------------------------------------------------------
    def build(self, specs: tuple[_Spec, ...], wilds_left: list[Card], extra: int
              ) -> tuple[tuple[str, tuple[Card, ...]], ...]:
        out = []
        for spec in specs:
            cards = list(spec.cards)
            lo = spec.lo
            take = min(extra, spec.capacity)
            for _ in range(take):
                w = wilds_left.pop(0)
                if spec.kind == SET:
                    cards.append(w)
                else:
                    lo = _extend_run(cards, lo, w)
            extra -= take
            if spec.kind == SET:
                cards.sort(key=lambda c: (is_wild(c, self.deuces) and not _set_of_deuces(cards),
                                          c))
            out.append((spec.kind, tuple(cards)))
        return tuple(out)


def _extend_run(cards: list[Card], lo: int, wild: Card) -> int:
    """Add a surplus wild to a run, at the high end while it is below a high ace, else at the
    low end; return the run's new low rank."""
    if lo + len(cards) <= 14 and not (lo == 1 and lo + len(cards) == 14):
        cards.append(wild)
        return lo
    cards.insert(0, wild)
    return lo - 1


def _set_of_deuces(cards: list[Card]) -> bool:
    return all(is_wild(c, True) for c in cards) and any(c != JOKER for c in cards)


def _split(hand: Iterable[Card], rules: RuleSet) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    deuces = rules.deuces_wild
    nats = tuple(sorted(c for c in hand if not is_wild(c, deuces)))
    pts = rules.card_points
    wilds = tuple(sorted((c for c in hand if is_wild(c, deuces)),
                         key=lambda c: (-pts[0 if c == JOKER else c % 13 + 1], -c)))
    return nats, wilds


def best_go_down(hand: Sequence[Card], contract: Contract, rules: RuleSet, *,
                 all_out: bool = False, keep_at_most: tuple[Card, int] | None = None,
                 empty_ok: bool = True, banned: Card | None = None,
                 budget: SearchBudget | None = None, first: bool = False) -> GoDown | None:
    """The best way ``hand`` meets ``contract`` exactly, or None if it cannot; with a
    ``budget``, the best found within the visits it has left, which this search uses up
    (module docstring); ``first``: the first go-down found, not the best (a question of
    whether there is one, answered far faster for a long hand).

    ``all_out``: every card must be melded. ``keep_at_most=(card, k)``: at most k copies of
    ``card`` may stay in hand (a wild swapped in at go-down must be used). Unless ``all_out``,
    the cards left must be empty (where ``empty_ok``) or hold a card other than ``banned``:
    the player must still be able to end the turn.
    """
    if len(hand) < contract.sets * (contract.set_size or rules.min_set) + \
            contract.runs * (contract.run_size or rules.min_run):
        return None
    nats, wilds = _split(hand, rules)
    if not _may_be_feasible(hand, contract, rules):
        return None
    search = _Search(rules, contract, all_out, keep_at_most, empty_ok, banned,
                     INF if budget is None else budget.left, first)
    key, specs, extra = search.solve(nats, wilds, contract.runs, contract.sets, 0)
    if budget is not None:
        budget.left = max(search.visits_left, 0)
    if key is None:
        return None
    used = Counter(hand)
    for spec in specs:
        used.subtract(spec.cards)
    wilds_left = []
    for w in wilds:  # the wilds not in a chosen meld, in placing order
        if used[w] > 0:
            used[w] -= 1
            wilds_left.append(w)
    melds = search.build(specs, wilds_left, extra)
    return GoDown(melds, key[2], key[0])


def _may_be_feasible(hand: Sequence[Card], contract: Contract, rules: RuleSet) -> bool:
    """Cheap necessary conditions: enough natural cards per suit for the runs, per rank for the
    sets, and in all (a 2 counted as a possible natural where 2s are wild)."""
    run_nat = rules.run_naturals(contract.run_size or rules.min_run)
    set_nat = rules.set_naturals(contract.set_size or rules.min_set)
    per_suit = [0, 0, 0, 0]
    per_rank = [0] * 14
    naturals = 0
    for c in hand:
        if c == JOKER:
            continue
        naturals += 1
        per_suit[c // 13] += 1
        per_rank[c % 13 + 1] += 1
    if naturals < contract.runs * run_nat + contract.sets * set_nat:
        return False
    if contract.runs and sum(k // run_nat for k in per_suit) < contract.runs:
        return False
    if contract.sets and sum(k // set_nat for k in per_rank) < contract.sets:
        return False
    return _wilds_suffice(hand, contract, rules)


def _top_sum(slots: list[int], k: int) -> int:
    slots.sort(reverse=True)
    return sum(slots[:k])


def _add_slots(slots: list[int], count: int, per: int, k: int) -> None:
    """The naturals the 1st..``k``-th meld can take from ``count`` cards, ``per`` at most
    each (``min(i * per, count) - min((i - 1) * per, count)`` for i = 1..k), zeros left out:
    only the largest ``k`` slots are summed."""
    full = min(count // per, k)
    slots.extend([per] * full)
    if full < k and count % per:
        slots.append(count % per)


def _wilds_suffice(hand: Sequence[Card], contract: Contract, rules: RuleSet) -> bool:
    """Whether the hand holds enough wilds to fill the gaps of the contract's melds, counted
    generously. A run of length L with n naturals holds L - n wilds, never fewer than the gaps
    of its best sub-window of the minimum length; k disjoint windows of one suit hold at most
    min(k * best, suit count) naturals. Sets likewise by rank. A 2 where 2s are wild counts both
    as a natural and as a wild, so this only ever rejects hands that truly cannot."""
    deuces = rules.deuces_wild
    wild = wild_cards(deuces)
    wilds = sum(1 for c in hand if c in wild)
    need = 0
    if contract.runs:
        length = contract.run_size or rules.min_run
        masks = [0, 0, 0, 0]
        counts = [0, 0, 0, 0]  # with several decks a suit may hold a rank twice: two runs
        for c in hand:
            if c != JOKER:
                r = c % 13 + 1
                masks[c // 13] |= 1 << r | (1 << 14 if r == 1 else 0)
                counts[c // 13] += 1
        window = (1 << length) - 1
        slots: list[int] = []
        runs = contract.runs
        for m, count in zip(masks, counts, strict=True):
            if not m:
                continue
            best = 0
            for lo in range(1, 16 - length):
                inside = (m >> lo & window).bit_count()
                if inside > best:
                    best = inside
            _add_slots(slots, count, best, runs)
        need += runs * length - _top_sum(slots, runs)
    if contract.sets:
        size = contract.set_size or rules.min_set
        per_rank = [0] * 14
        for c in hand:
            if c != JOKER:
                per_rank[c % 13 + 1] += 1
        slots = []
        for count in per_rank:
            if count:
                _add_slots(slots, count, size, contract.sets)
        need += contract.sets * size - _top_sum(slots, contract.sets)
    return need <= wilds


def can_go_down(hand: Sequence[Card], contract: Contract, rules: RuleSet, *,
                all_out: bool = False) -> bool:
    return best_go_down(hand, contract, rules, all_out=all_out) is not None


# ---- the oracle --------------------------------------------------------------------------------

def _arrangements(cards: tuple[Card, ...], rules: RuleSet) -> list[tuple[str, tuple[Card, ...]]]:
    """Every valid first-down meld these cards (a multiset) can be arranged into, up to the
    placement of surplus wilds: a set, and a run for each low rank that fits."""
    out: list[tuple[str, tuple[Card, ...]]] = []
    deuces = rules.deuces_wild
    n = len(cards)
    if n >= rules.min_set:
        srt = tuple(sorted(cards))
        if meld_readings(srt, 0, rules):
            for m in meld_readings(srt, 0, rules):
                if m.kind == SET:
                    out.append((SET, srt))
    if rules.min_run <= n <= 13:
        for suit in range(4):
            for lo in range(1, 16 - n):
                pool = list(cards)
                placed: list[Card | None] = []
                ok = True
                for r in range(lo, lo + n):
                    target = make_card(r, suit)
                    if target in pool:
                        pool.remove(target)
                        placed.append(target)
                    else:
                        placed.append(None)
                if any(not is_wild(c, deuces) for c in pool):
                    ok = False
                if not ok:
                    continue
                filled = tuple(c if c is not None else pool.pop() for c in placed)
                if any(m.kind == RUN for m in meld_readings(filled, 0, rules)):
                    out.append((RUN, filled))
    return out


def brute_force_go_down(hand: Sequence[Card], contract: Contract, rules: RuleSet, *,
                        all_out: bool = False) -> GoDown | None:
    """Exhaustive search over every sub-multiset for every meld (slow; for tests)."""
    pts = rules.card_points

    def sub_multisets(pool: Counter[Card]) -> Iterable[tuple[Card, ...]]:
        items = sorted(pool.items())

        def rec(i: int) -> Iterable[tuple[Card, ...]]:
            if i == len(items):
                yield ()
                return
            card, count = items[i]
            for rest in rec(i + 1):
                for k in range(count + 1):
                    yield (card,) * k + rest
        return rec(0)

    deuces = rules.deuces_wild
    best: GoDown | None = None
    kinds = [RUN] * contract.runs + [SET] * contract.sets

    def rec(i: int, pool: Counter[Card], chosen: list[tuple[str, tuple[Card, ...]]]) -> None:
        nonlocal best
        if i == len(kinds):
            left = tuple(sorted(pool.elements()))
            if all_out and left:
                return
            cand = GoDown(tuple(chosen), left, sum(pts[0 if c == JOKER else c % 13 + 1]
                                                   for c in left))
            if best is None or cand.key < best.key:
                best = cand
            return
        kind = kinds[i]
        exact = contract.run_size if kind == RUN else contract.set_size
        wild_pool: Counter[Card] = Counter({c: k for c, k in pool.items() if is_wild(c, deuces)})
        groups: dict[int, Counter[Card]] = {}
        for c, k in pool.items():
            # by suit for a run, by rank for a set; a wild 2 too, as it may stand for itself
            g = (c // 13 if kind == RUN else c % 13 + 1) if c != JOKER else -1
            if g >= 0:
                groups.setdefault(g, Counter())[c] += k
        seen: set[tuple[Card, ...]] = set()
        for group in groups.values():
            for natural_part in sub_multisets(group):
                if not natural_part:
                    continue
                rest_wild = wild_pool.copy()
                rest_wild.subtract(c for c in natural_part if is_wild(c, deuces))
                rest_wild = +rest_wild
                for wild_part in sub_multisets(rest_wild):
                    cards = tuple(sorted(natural_part + wild_part))
                    if cards in seen or (exact is not None and len(cards) != exact):
                        continue
                    seen.add(cards)
                    for meld_kind, arranged in _arrangements(cards, rules):
                        if meld_kind != kind:
                            continue
                        rest = pool.copy()
                        rest.subtract(cards)
                        rec(i + 1, +rest, [*chosen, (kind, arranged)])
                        break

    rec(0, Counter(hand), [])
    return best
