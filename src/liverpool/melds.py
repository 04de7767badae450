"""Melds: sets and runs, wild cards, and what may be done to a meld on the table.

Domain words: *set* (3+ cards of one rank, suits may repeat), *run* (cards of one suit in
sequence, ace low or high, never turning the corner, at most one ace), *wild* (a joker, or a 2
where ``deuces_wild``), *natural* (a card standing for itself: any non-wild card, or a 2 in its
own place), *lay off* (add one card to a table meld at an end of a run or onto a set),
*joker swap* (a natural card takes the place of a wild that stood for it; the wild goes to hand),
*borrow* (house: take a natural card off a meld that stays valid, to start a new meld),
*stands for* (the card a run's place plays, or a set's rank: what a wild there is taken as),
*arrangement* (chosen cards put in notation order as a meld, wilds in the places they stand for).

A run's cards are stored low to high; ``lo`` is the rank of its first place (1..14, where 14 is a
high ace), so the card at place ``i`` stands for rank ``lo + i`` of ``suit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from .cards import (
    ACE,
    JOKER,
    RANK_NAMES,
    SUITS,
    Card,
    card_str,
    is_wild,
    make_card,
    parse_card,
    rank_of,
    sorted_cards,
    suit_of,
)
from .frozen import reduce_frozen
from .rules import RuleSet

SET = "set"
RUN = "run"


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table. ``key`` is the set's rank or the run's suit; ``lo`` is for runs."""

    owner: int
    kind: str
    cards: tuple[Card, ...]
    key: int
    lo: int = 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    @property
    def hi(self) -> int:
        return self.lo + len(self.cards) - 1

    def stands_for(self, place: int) -> Card:
        """The card a place of this meld stands for (for a set: the rank's spade, by convention)."""
        if self.kind == SET:
            return make_card(self.key, 0)
        return make_card(self.lo + place, self.key)

    def wild_stands_for(self, place: int) -> str | None:
        """What the wild at ``place`` stands for, as text: in a run the card (``6C``), in a set
        the rank (``7``, ``10``, ``A``); None where the place holds a natural (a 2 in its own
        place, a 2 of a set of 2s). The meld's own cards tell which is which, without the
        rules: a valid meld holds only wilds where a card is not what its place stands for."""
        c = self.cards[place]
        if self.kind == SET:
            return None if c != JOKER and c % 13 + 1 == self.key else RANK_NAMES[self.key]
        target = make_card(self.lo + place, self.key)
        return None if c == target else card_str(target)

    def to_json(self) -> dict[str, object]:
        """``{"owner", "kind", "cards"}``; a run adds ``"suit"`` (its letter, ``S H D C``) and
        ``"low"`` (the rank its first place stands for: 1 a low ace .. 14 a high ace), which
        settle runs whose cards alone read two ways; both kinds add ``"stands_for"``, parallel
        to ``"cards"``: ``wild_stands_for`` of each place (a run's wild: the card text, ``"6C"``;
        a set's wild: the rank text, ``"7"``; a natural: null)."""
        out: dict[str, object] = {"owner": self.owner, "kind": self.kind,
                                  "cards": [card_str(c) for c in self.cards]}
        if self.kind == RUN:
            out["suit"] = SUITS[self.key]
            out["low"] = self.lo
        out["stands_for"] = [self.wild_stands_for(i) for i in range(len(self.cards))]
        return out

    @staticmethod
    def from_json(obj: Any, rules: RuleSet) -> Meld:
        """A table meld from its JSON: what ``to_json`` writes, or an earlier form without
        ``suit``, ``low`` and ``stands_for``. A run is taken as its ``suit`` and ``low`` name it
        where those fit its cards, otherwise (as a set always) as its cards read under ``rules``
        (any reading, the naturals minimum of a new meld aside). ``stands_for`` follows from
        the rest and is not read. ``ValueError`` for a meld these rules refuse; a missing field
        raises ``KeyError``, a field of the wrong type ``TypeError`` or ``ValueError``."""
        if not isinstance(obj, dict):
            raise ValueError(f"not a meld: {obj!r}")
        owner = int(obj["owner"])
        kind = obj["kind"]
        if kind not in (SET, RUN):
            raise ValueError(f"a meld is a set or a run, not {kind!r}")
        cards = tuple(parse_card(c) for c in obj["cards"])
        suit_text, low = obj.get("suit"), obj.get("low")
        if kind == RUN and suit_text in tuple(SUITS) and isinstance(low, int):
            suit = SUITS.index(suit_text)
            deuces = rules.deuces_wild
            if low >= 1 and low + len(cards) <= 15 and all(
                    c == make_card(low + i, suit) or is_wild(c, deuces)
                    for i, c in enumerate(cards)):
                return Meld(owner, RUN, cards, suit, low)
        for m in meld_readings(cards, owner, rules, first_down=False):
            if m.kind == kind and m.cards == cards:
                return m
        raise ValueError(f"{' '.join(card_str(c) for c in cards)} is not a {kind} under "
                         f"these rules")

    def __str__(self) -> str:
        return " ".join(card_str(c) for c in self.cards)


# ---- reading melds ---------------------------------------------------------------------------

def read_set(cards: tuple[Card, ...], rules: RuleSet) -> tuple[int, int] | None:
    """(rank, naturals) if the cards make a set by their cards alone, else None."""
    deuces = rules.deuces_wild
    rank = 0
    for c in cards:
        if not is_wild(c, deuces):
            r = c % 13 + 1
            if rank and r != rank:
                return None
            rank = r
    if not rank:
        # only wilds: with deuces wild, the 2s may be a set of 2s standing for themselves
        if deuces and any(c != JOKER for c in cards):
            rank = 2
        else:
            return None
    naturals = sum(1 for c in cards if c != JOKER and c % 13 + 1 == rank)
    return rank, naturals


def read_run(cards: tuple[Card, ...], rules: RuleSet) -> tuple[int, int, int] | None:
    """(suit, lo, naturals) if the cards, in this order, make a run, else None."""
    n = len(cards)
    if n > 13:
        return None
    deuces = rules.deuces_wild
    anchors = [(i, c) for i, c in enumerate(cards) if not is_wild(c, deuces)]
    if not anchors and deuces:
        anchors = [(i, c) for i, c in enumerate(cards) if c != JOKER]  # a 2 in its own place
    if not anchors:
        return None
    i, c = anchors[0]
    suit = c // 13
    r = c % 13 + 1
    if r == ACE and i > 0:
        r = 14
    lo = r - i
    if lo < 1 or lo + n - 1 > 14 or (lo == 1 and n == 14):
        return None
    naturals = 0
    for place, card in enumerate(cards):
        target = make_card(lo + place, suit)
        if card == target:
            naturals += 1
        elif not is_wild(card, deuces):
            return None
    return suit, lo, naturals


def meld_readings(cards: tuple[Card, ...], owner: int, rules: RuleSet, first_down: bool = True
                  ) -> list[Meld]:
    """Every way these cards make a valid meld (a set, a run, rarely both)."""
    out: list[Meld] = []
    n = len(cards)
    s = read_set(cards, rules) if n >= rules.min_set else None
    if s is not None and (not first_down or s[1] >= rules.set_naturals(n)):
        out.append(Meld(owner, SET, set_order(cards, s[0], rules), s[0]))
    r = read_run(cards, rules) if n >= rules.min_run else None
    if r is not None and (not first_down or r[2] >= rules.run_naturals(n)):
        out.append(Meld(owner, RUN, cards, r[0], r[1]))
    return out


def arrangements(cards: Sequence[Card], rules: RuleSet) -> list[tuple[Card, ...]]:
    """Every valid new meld (the first-down minimum of naturals met) made of exactly ``cards``
    (a multiset: their order does not matter), each in notation order, without repeats: first
    the set, as ``sorted_cards`` lists it; then the runs by their low rank, low to high, and for
    one low rank one entry per distinct way the wilds can stand in the places the naturals leave
    free (a wild 2 of the run's suit also in its own place, standing for itself). ``[]`` when
    the cards make no meld. The one arrangement of picked cards as a meld (a borrow's new
    meld, the terminal's go-down and borrow)."""
    deuces = rules.deuces_wild
    found: list[tuple[Card, ...]] = []
    as_set = tuple(sorted_cards(cards, deuces))
    if any(m.kind == SET for m in meld_readings(as_set, 0, rules)):
        found.append(as_set)
    n = len(cards)
    if n < rules.min_run:
        return found
    naturals = [c for c in cards if not is_wild(c, deuces)]
    wilds = [c for c in cards if is_wild(c, deuces)]
    if not naturals or len({c // 13 for c in naturals}) > 1:
        return found
    # the order of wild placements within one low rank is the iteration order of this set of
    # tuples (deterministic for ints), kept as the legal listing of borrows has always had it
    placements = set(permutations(wilds))
    for lo in range(1, 16 - n):
        places: dict[int, Card] = {}
        for c in naturals:
            r = c % 13 + 1
            spot = r - lo if lo <= r <= lo + n - 1 else (14 - lo if r == ACE else -1)
            if not 0 <= spot < n or spot in places:
                break
            places[spot] = c
        else:
            free = [i for i in range(n) if i not in places]
            for order in placements:
                run = dict(places)
                run.update(zip(free, order, strict=True))
                m = tuple(run[i] for i in range(n))
                if m not in found and any(x.kind == RUN for x in meld_readings(m, 0, rules)):
                    found.append(m)
    return found


def why_not_meld(cards: tuple[Card, ...], rules: RuleSet) -> str:
    """A reason a player can read for cards that make no valid meld."""
    text = " ".join(card_str(c) for c in cards)
    n = len(cards)
    s = read_set(cards, rules)
    if s is not None and n >= rules.min_set:
        return (f"{text}: a new set needs at least {rules.set_naturals(n)} natural cards")
    r = read_run(cards, rules)
    if r is not None and n >= rules.min_run:
        return (f"{text}: a new run needs at least {rules.run_naturals(n)} natural cards")
    if s is not None or r is not None:
        return (f"{text}: too short (sets need {rules.min_set}+ cards, runs {rules.min_run}+)")
    return (f"{text} is neither a set (one rank) nor a run (one suit in order, written low "
            f"to high, wilds in the places they stand for)")


# ---- laying off ------------------------------------------------------------------------------

def layoff_ends(meld: Meld, card: Card, rules: RuleSet) -> tuple[str | None, ...]:
    """Where ``card`` can go on ``meld``: ``(None,)`` for a set, a subset of low/high for a run."""
    deuces = rules.deuces_wild
    wild = is_wild(card, deuces)
    if meld.kind == SET:
        if wild or card % 13 + 1 == meld.key:
            return (None,)
        return ()
    if len(meld.cards) >= 13:
        return ()
    ends: list[str] = []
    lo, hi = meld.lo, meld.hi
    if lo > 1 and (wild or card == make_card(lo - 1, meld.key)) and not (lo - 1 == 1 and hi == 14):
        ends.append("low")
    if hi < 14 and (wild or card == make_card(hi + 1, meld.key)) and not (lo == 1 and hi + 1 == 14):
        ends.append("high")
    return tuple(ends)


def set_order(cards: tuple[Card, ...], rank: int, rules: RuleSet) -> tuple[Card, ...]:
    """A set as outputs list it: by suit then rank, wilds last (2s are natural in a set of 2s)."""
    return tuple(sorted_cards(cards, rules.deuces_wild and rank != 2))


def lay_off(meld: Meld, card: Card, end: str | None, rules: RuleSet) -> Meld:
    """The meld with ``card`` added (``end`` already checked by ``layoff_ends``)."""
    if meld.kind == SET:
        return Meld(meld.owner, SET, set_order((*meld.cards, card), meld.key, rules), meld.key)
    if end == "low":
        return Meld(meld.owner, RUN, (card, *meld.cards), meld.key, meld.lo - 1)
    return Meld(meld.owner, RUN, (*meld.cards, card), meld.key, meld.lo)


def fits(meld: Meld, card: Card, rules: RuleSet) -> bool:
    return bool(layoff_ends(meld, card, rules))


# ---- joker swaps -----------------------------------------------------------------------------

def swap_options(meld: Meld, card: Card, rules: RuleSet) -> list[tuple[int, Card]]:
    """(place, wild) pairs where natural ``card`` may replace a wild of ``meld``."""
    deuces = rules.deuces_wild
    if card == JOKER:
        return []
    if meld.kind == SET:
        if rules.joker_swap != "runs_and_sets" or card % 13 + 1 != meld.key:
            return []
        if is_wild(card, deuces) and meld.key != 2:
            return []
        seen: dict[Card, int] = {}
        for place, c in enumerate(meld.cards):
            if is_wild(c, deuces) and not (c != JOKER and c % 13 + 1 == meld.key) and c not in seen:
                seen[c] = place
        return [(place, wild) for wild, place in seen.items()]
    if rules.joker_swap == "none":
        return []
    rank = rank_of(card)
    if suit_of(card) != meld.key:
        return []
    for r in ((1, 14) if rank == ACE else (rank,)):
        place = r - meld.lo
        if 0 <= place < len(meld.cards):
            c = meld.cards[place]
            if c != card and is_wild(c, deuces):
                return [(place, c)]
    return []


def swap(meld: Meld, place: int, card: Card, rules: RuleSet) -> Meld:
    cards = list(meld.cards)
    cards[place] = card
    if meld.kind == SET:
        return Meld(meld.owner, SET, set_order(tuple(cards), meld.key, rules), meld.key)
    return Meld(meld.owner, RUN, tuple(cards), meld.key, meld.lo)


# ---- borrowing (house) -----------------------------------------------------------------------

def borrow_places(meld: Meld, card: Card, rules: RuleSet) -> list[int]:
    """Places from which natural ``card`` may be taken, leaving a valid meld of 3+ cards."""
    n = len(meld.cards)
    minimum = max(3, rules.min_set if meld.kind == SET else rules.min_run)
    if n - 1 < minimum:
        return []
    if meld.kind == SET:
        if card == JOKER or card % 13 + 1 != meld.key or card not in meld.cards:
            return []
        rest = list(meld.cards)
        rest.remove(card)
        if not any(c != JOKER and c % 13 + 1 == meld.key for c in rest):
            return []
        return [meld.cards.index(card)]
    places = []
    for place in (0, n - 1):
        c = meld.cards[place]
        if c == card and c == meld.stands_for(place):  # a natural: the very card of its place
            rest = list(meld.cards[1:] if place == 0 else meld.cards[:-1])
            if any(x == meld.stands_for(i + (1 if place == 0 else 0)) for i, x in enumerate(rest)):
                places.append(place)
    return places


def without(meld: Meld, place: int) -> Meld:
    cards = meld.cards[:place] + meld.cards[place + 1:]
    if meld.kind == SET:
        return Meld(meld.owner, SET, cards, meld.key)
    return Meld(meld.owner, RUN, cards, meld.key, meld.lo + (1 if place == 0 else 0))
