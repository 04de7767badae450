"""The race hand: how far a hand is from going out, and the discard that gets there soonest.

Domain words: *race hand* (a hand of a runs-only contract whose go-down melds every card the
seat holds, as the last hand of `arena`, `classic` and `standard`: going down is going out, so
the hand is a race and the loser pays all it holds), *plan* (the contract's runs laid over the
ranks of a suit each, lengths adding up to the cards the seat will meld), *distance* (the fewest
places of the best plan that the seat's cards do not fill, wilds filling any place: mahjong's
shanten), *acceptance* (the unseen copies of the cards that would bring the distance down if
drawn: mahjong's ukeire).

The race discard keeps the plan closest to going out and, among equals, the hand that the most
unseen cards would bring nearer; then it throws the card worth the most points (the loser of
the race pays what it holds). A search that scores playouts cut short by the points held weighs
the opposite way, and against basic players it lost more races than this rule does (measured in
docs/bots.md, "The last hand as a race").
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..actions import Action
from ..cards import Card, wild_cards
from ..engine import SeatView, unseen_cards
from ..rules import Contract, RuleSet

RACE_REASON = ("in this race to go out it keeps your hand nearest to going out, with the most "
               "unseen cards to bring it nearer")  # a hint's reason
ACE_LOW = 1 << 1  # a suit's ranks as bits 1..14; the ace sits at both ends
ACE_HIGH = 1 << 14

# the spans of ``length`` ranks (bits lo..lo+length-1, lo from 1): a run's places in a suit
_SPANS: dict[int, tuple[int, ...]] = {
    length: tuple(((1 << length) - 1) << lo for lo in range(1, 16 - length))
    for length in range(1, 15)}

_COVER: dict[tuple[int, int, int, int, tuple[int, ...]], int] = {}
_COVER_MOST = 200_000


def suit_cover(counts: Sequence[int], lengths: tuple[int, ...]) -> int:
    """The most natural cards of one suit (``counts`` by rank, index 0 the ace .. 12 the king)
    that runs of these lengths in that suit can hold, each physical card used once."""
    if not lengths:
        return 0
    masks = [0, 0, 0]  # bit r: at least 1, 2, 3 copies of rank r (ranks as ``_SPANS`` bits)
    for i in range(1, 13):
        c = counts[i]
        for k in range(min(c, 3)):
            masks[k] |= 1 << (i + 1)
    aces = counts[0]
    key = (masks[0], masks[1], masks[2], aces, lengths)
    got = _COVER.get(key)
    if got is None:
        got = _cover(masks[0], masks[1], masks[2], aces, lengths)
        if len(_COVER) >= _COVER_MOST:
            _COVER.clear()
        _COVER[key] = got
    return got


def _cover(m1: int, m2: int, m3: int, aces: int, lengths: tuple[int, ...]) -> int:
    best = 0
    for spans in itertools.product(*(_SPANS[n] for n in lengths)):
        one = two = three = 0  # ranks covered by at least 1, 2, 3 of the runs
        ace_places = 0
        for s in spans:
            three |= two & s
            two |= one & s
            one |= s
            ace_places += (s & ACE_LOW != 0) + (s & ACE_HIGH != 0)
        held = ((m1 & one).bit_count() + (m2 & two).bit_count() + (m3 & three).bit_count()
                + min(aces, ace_places))
        if held > best:
            best = held
    return best


_PLANS: dict[tuple[int, ...], tuple[tuple[tuple[int, ...], ...], ...]] = {}


def _plans(lengths: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every way to lay runs of these lengths over the four suits: per suit, its runs'
    lengths (sorted), each way once."""
    got = _PLANS.get(lengths)
    if got is None:
        ways: set[tuple[tuple[int, ...], ...]] = set()
        for suits in itertools.product(range(4), repeat=len(lengths)):
            per: list[list[int]] = [[], [], [], []]
            for n, s in zip(lengths, suits, strict=True):
                per[s].append(n)
            ways.add(tuple(tuple(sorted(p)) for p in per))
        got = _PLANS[lengths] = tuple(sorted(ways))
    return got


def run_lengths(contract: Contract, rules: RuleSet, size: int) -> list[tuple[int, ...]]:
    """The lengths (sorted) the contract's runs may take to meld ``size`` cards in all; the
    contract's least lengths where ``size`` is fewer (the missing cards must still come)."""
    least = contract.run_size or rules.min_run
    if contract.run_size is not None:
        return [(least,) * contract.runs]
    size = max(size, least * contract.runs)
    return [ls for ls in itertools.combinations_with_replacement(range(least, 14), contract.runs)
            if sum(ls) == size]


def distance(hand: Sequence[Card], contract: Contract, rules: RuleSet, size: int) -> int:
    """The fewest places of the best plan of ``size`` cards in the contract's runs that
    ``hand`` leaves empty (wilds fill any place)."""
    wilds = wild_cards(rules.deuces_wild)
    counts = [[0] * 13 for _ in range(4)]
    free = 0
    for c in hand:
        if c in wilds:  # jokers too
            free += 1
        else:
            counts[c // 13][c % 13] += 1
    options = run_lengths(contract, rules, size)
    if not options:  # more cards than the contract's runs can hold: no plan
        return max(size, len(hand))
    places = sum(options[0])
    best = 0
    for lengths in options:
        for plan in _plans(lengths):
            held = 0
            for s in range(4):
                if plan[s]:
                    held += suit_cover(counts[s], plan[s])
            best = max(best, min(places, held + free))
    return places - best


def race_size(view: SeatView) -> int:
    """The cards the seat will meld when it goes out, if this hand is a race for it (a
    runs-only contract whose go-down takes every card it holds), else 0."""
    seat = view.me
    rules = view.ruleset
    contract = view.contract[seat]
    if contract.sets or not contract.runs or view.down[seat]:
        return 0
    number = rules.contract_number(view.hand_index, view.progress[seat])
    # what it holds once this turn's discard is made; it goes out after its next draw
    held = len(view.hand) - (1 if view.phase == "play" else 0)
    melds = held if rules.going_out == "discard" else held + 1
    least = (contract.run_size or rules.min_run) * contract.runs
    if rules.all_out(number) or least >= melds:
        return max(melds, least)
    return 0


def distance_after(view: SeatView, card: Card, size: int) -> int:
    """How far the seat's hand is from going out once ``card`` is thrown, in a race hand of
    ``size`` cards (``race_size``)."""
    rest = list(view.hand)
    rest.remove(card)
    return distance(rest, view.contract[view.me], view.ruleset, size)


def acceptance(hand: list[Card], contract: Contract, rules: RuleSet, size: int, near: int,
               unseen: dict[Card, int]) -> int:
    """Unseen copies of the cards that, drawn into ``hand`` (``near`` from going out), would
    bring it nearer."""
    return sum(n for c, n in unseen.items()
               if distance([*hand, c], contract, rules, size) < near)


def race_discard(view: SeatView, options: Sequence[Action]) -> Action | None:
    """The discard of a seat in a race hand (``race_size``): the card whose throw leaves the
    hand nearest to going out, then the most unseen cards to bring it nearer, then the card
    worth the most points (a lost race pays them). None when the hand is no race."""
    size = race_size(view)
    if not size:
        return None
    rules = view.ruleset
    contract = view.contract[view.me]
    unseen = dict(unseen_cards(view))
    best: Action | None = None
    best_key: tuple[int, int, int] | None = None
    judged: set[Card] = set()
    for a in options:
        card = a.card
        if a.type != "discard" or card is None or card in judged:
            continue
        judged.add(card)
        rest = list(view.hand)
        rest.remove(card)
        near = distance(rest, contract, rules, size)
        key = (near, -acceptance(rest, contract, rules, size, near, unseen), -rules.points(card))
        if best_key is None or key < best_key:
            best, best_key = a, key
    return best
