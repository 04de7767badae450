"""The learned discard: a seat not down weighs its candidate discards by a linear model of what
each costs it by the hand's end, fitted to an oracle that saw every hand.

Domain words: *candidate* (one of the ``CANDIDATES`` discards of lowest keep value that no table
meld takes, as the expert searches them), *feature* (a number about a candidate that the seat
can see: its keep value, usefulness and points, how many copies of its rank are still unseen,
what the next seat and the others were seen to take, how many seats are down), *contract kind*
(sets only, runs only, or both: each has its own weights), *oracle value* (the seat's points
minus the others' mean at the hand's end when it throws that card, averaged over playouts of
the true deal by the basic policy; the training target, never seen at play).

The weights are data (``discard_weights``), made by ``scripts/train_discard.py`` from seeded
games; the model ranks candidates only, so a position's own level (how good the whole hand is)
is left out: features and targets are taken relative to the position's mean.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..cards import JOKER, Card, wild_cards
from ..engine import SeatView
from .basic import BasicBot
from .discard_weights import WEIGHTS
from .heuristics import fits_table, keep_values, unseen_by_rank, usefulness

CANDIDATES = 6
KINDS = ("sets", "runs", "both")
FEATURES = ("keep", "use", "points", "wild", "unseen", "copies_held", "suit_near",
            "next_rank", "next_suit", "others_rank", "others_suit", "points_x_down",
            "keep_order", "rank_discarded", "points_x_hand")


def contract_kind(view: SeatView) -> str:
    c = view.contract[view.me]
    if not c.runs:
        return "sets"
    return "runs" if not c.sets else "both"


def candidates(view: SeatView, keep: dict[Card, float], options: Sequence[Action]
               ) -> list[Action]:
    """The discards a learned choice is made among: the ``CANDIDATES`` of lowest keep value
    (ties to the higher card, as the basic bot's), less those a table meld takes."""
    ranked = sorted((a for a in options if a.card is not None),
                    key=lambda a: (keep[a.card or 0], -(a.card or 0)))
    return [a for a in ranked[:CANDIDATES]
            if a.card is not None and not fits_table(a.card, view.melds, view.ruleset)]


def features(view: SeatView, cands: Sequence[Action], keep: dict[Card, float]
             ) -> list[list[float]]:
    """Each candidate's features (``FEATURES``), in the candidates' order."""
    rules = view.ruleset
    me = view.me
    n = len(view.players)
    wilds = wild_cards(rules.deuces_wild)
    copies = 4 * rules.decks_for(n)
    use = usefulness(view.hand, view.contract[me], rules)
    unseen = unseen_by_rank(view)
    dead = [0] * 13
    for card in view.discard:
        if card not in wilds:
            dead[card % 13] += 1
    nxt = (me + 1) % n
    others_down = sum(1 for s in range(n) if s != me and view.down[s]) / max(1, n - 1)
    held = [0] * 13
    suits = [[0] * 15 for _ in range(4)]
    for card in view.hand:
        if card not in wilds:
            held[card % 13] += 1
            suits[card // 13][card % 13 + 1] += 1
    size = len(view.hand) / 12.0
    out = []
    for order, a in enumerate(cands):
        c = a.card
        assert c is not None
        pts = rules.card_points[0 if c == JOKER else c % 13 + 1] / 10.0
        if c in wilds:
            out.append([keep[c] / 25.0, use.get(c, 0.0) / 3.0, pts, 1.0, 0.0, 0.0, 0.0, 0.0,
                        0.0, 0.0, 0.0, pts * others_down, order / 5.0, 0.0, pts * size])
            continue
        r, suit = c % 13, c // 13
        near = sum(suits[suit][x] for x in range(max(1, r - 1), min(14, r + 4)) if x != r + 1)
        next_rank = next_suit = others_rank = others_suit = 0
        for s in range(n):
            if s == me:
                continue
            for k in view.known[s]:
                if k in wilds:
                    continue
                same_rank = k % 13 == r
                same_suit = k // 13 == suit and k != c and abs(k % 13 - r) <= 2
                if s == nxt:
                    next_rank += same_rank
                    next_suit += same_suit
                else:
                    others_rank += same_rank
                    others_suit += same_suit
        out.append([keep[c] / 25.0, use.get(c, 0.0) / 3.0, pts, 0.0,
                    max(0, unseen[r]) / copies, held[r] - 1.0, near / 4.0,
                    float(next_rank), float(next_suit), float(others_rank), float(others_suit),
                    pts * others_down, order / 5.0, dead[r] / copies, pts * size])
    return out


def scores(view: SeatView, cands: Sequence[Action], keep: dict[Card, float]) -> list[float]:
    """The model's cost of each candidate (lower is better; only the order means anything)."""
    w = WEIGHTS[contract_kind(view)]
    return [sum(x * y for x, y in zip(f, w, strict=True)) for f in features(view, cands, keep)]


def best(view: SeatView, cands: Sequence[Action], keep: dict[Card, float]) -> Action | None:
    """The candidate the model rates best, or None where there is no choice (fewer than two
    candidates)."""
    if len(cands) < 2:
        return None
    cost = scores(view, cands, keep)
    return cands[min(range(len(cands)), key=cost.__getitem__)]


def learned_discard(view: SeatView, options: Sequence[Action]) -> Action | None:
    """The learned discard for a seat not down among ``options`` (its legal discards), or None
    where there is no choice to make."""
    keep = keep_values(view.hand, view.contract[view.me], view.ruleset, False, view.melds)
    return best(view, candidates(view, keep, options), keep)


class LearnedBot:
    """The basic bot with the learned discard for a seat not down (a level between the basic
    bot and the searching expert: it answers at once)."""

    name = "learned"

    def __init__(self) -> None:
        self.basic = BasicBot()

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        first = self.basic.decide(view, legal)[0]
        if first.type == "discard" and view.phase == "play" and not view.down[view.me] \
                and all(a.type == "discard" for a in legal):
            chosen = learned_discard(view, legal)
            if chosen is not None:
                return chosen
        return first
