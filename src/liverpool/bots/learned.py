"""The learned choices: a seat not down weighs its candidate discards, and whether to take or buy
the top discard, by linear models of what each costs it by the hand's end, fitted to an oracle
that saw every hand.

Domain words: *candidate* (one of the ``CANDIDATES`` discards of lowest keep value that no table
meld takes, as the expert searches them), *feature* (a number about a candidate that the seat
can see: its keep value, usefulness and points, how many copies of its rank are still unseen,
what the next seat and the others were seen to take, how many seats are down), *contract kind*
(sets only, runs only, or both: each has its own weights), *oracle value* (the seat's points
minus the others' mean at the hand's end when it throws that card, averaged over playouts of
the true deal by the basic policy; the training target, never seen at play).

*Option* (taking the top discard instead of drawing, or buying it instead of passing: two
candidates, the option and the plain choice; ``OPTION_FEATURES`` describe the card joining the
hand, the plain choice is a row of zeros, so the model's cost is the option's cost relative to
not taking it, a constant ``one`` included).

The weights are data (``discard_weights``, ``option_weights``), made by
``scripts/train_learned.py`` from seeded games; the models rank candidates only, so a position's
own level (how good the whole hand is) is left out: features and targets are taken relative to
the position's mean. A contract kind whose model showed no clear gain held out has no weights
(an empty row): there the basic bot's choice stands.
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
from .option_weights import BUY, TAKE

CANDIDATES = 6
KINDS = ("sets", "runs", "both")
DECISIONS = ("discard", "take", "buy")
TAKE_FLOOR = 0.8  # usefulness of the top discard below which a seat draws without asking
BUY_FLOOR = 1.6  # likewise for a buy
BUY_MOST_HAND = 18  # a hand larger than this never buys
OPTION_FEATURES = ("one", "use", "made", "keep_gain", "points", "wild", "unseen", "copies_held",
                   "suit_near", "others_rank", "others_suit", "others_down", "stock", "hand",
                   "points_x_down", "buys_left")
FEATURES = ("keep", "use", "points", "wild", "unseen", "copies_held", "suit_near",
            "next_rank", "next_suit", "others_rank", "others_suit", "points_x_down",
            "keep_order", "rank_discarded", "points_x_hand")
# the row of a contract kind without discard weights: the keep value alone, the basic choice
KEEP_ONLY = tuple(1.0 if f == "keep" else 0.0 for f in FEATURES)


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


def taken_near(view: SeatView, card: Card, wilds: frozenset[Card]
               ) -> tuple[int, int, int, int]:
    """What the other seats were seen to take (and still hold) near ``card``, a natural: cards
    of its rank, and other cards of its suit within two ranks, first the next seat's, then the
    rest's: (next rank, next suit, others' rank, others' suit)."""
    me = view.me
    n = len(view.players)
    nxt = (me + 1) % n
    r, suit = card % 13, card // 13
    next_rank = next_suit = others_rank = others_suit = 0
    for s in range(n):
        if s == me:
            continue
        for k in view.known[s]:
            if k in wilds:
                continue
            same_rank = k % 13 == r
            same_suit = k // 13 == suit and k != card and abs(k % 13 - r) <= 2
            if s == nxt:
                next_rank += same_rank
                next_suit += same_suit
            else:
                others_rank += same_rank
                others_suit += same_suit
    return next_rank, next_suit, others_rank, others_suit


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
        next_rank, next_suit, others_rank, others_suit = taken_near(view, c, wilds)
        out.append([keep[c] / 25.0, use.get(c, 0.0) / 3.0, pts, 0.0,
                    max(0, unseen[r]) / copies, held[r] - 1.0, near / 4.0,
                    float(next_rank), float(next_suit), float(others_rank), float(others_suit),
                    pts * others_down, order / 5.0, dead[r] / copies, pts * size])
    return out


def scores(view: SeatView, cands: Sequence[Action], keep: dict[Card, float]) -> list[float]:
    """The model's cost of each candidate (lower is better; only the order means anything)."""
    w = WEIGHTS[contract_kind(view)] or KEEP_ONLY
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


def option_features(view: SeatView, card: Card) -> list[float]:
    """The features (``OPTION_FEATURES``) of ``card``, the top discard, joining the hand."""
    rules = view.ruleset
    me = view.me
    n = len(view.players)
    wilds = wild_cards(rules.deuces_wild)
    copies = 4 * rules.decks_for(n)
    hand = [*view.hand, card]
    contract = view.contract[me]
    use = usefulness(hand, contract, rules)[card]
    keep = keep_values(hand, contract, rules, False, view.melds)
    others = [v for c, v in keep.items() if c != card]
    gain = keep[card] - min(others) if others else 0.0
    pts = rules.card_points[0 if card == JOKER else card % 13 + 1] / 10.0
    others_down = sum(1 for s in range(n) if s != me and view.down[s]) / max(1, n - 1)
    stock = view.stock_size / (52.0 * rules.decks_for(n))
    size = len(view.hand) / 12.0
    limit = rules.max_buys  # the share of the seat's buys left (1: no limit)
    buys = 1.0 if limit is None else max(0, limit - view.buys[me]) / max(1, limit)
    if card in wilds:
        return [1.0, use / 3.0, 1.0, gain / 25.0, pts, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                others_down, stock, size, pts * others_down, buys]
    r, suit = card % 13, card // 13
    held = sum(1 for c in view.hand if c not in wilds and c % 13 == r)
    near = sum(1 for c in view.hand if c not in wilds and c // 13 == suit
               and c % 13 != r and abs(c % 13 - r) <= 2)
    next_rank, next_suit, others_rank, others_suit = taken_near(view, card, wilds)
    unseen = unseen_by_rank(view)
    return [1.0, use / 3.0, float(use >= 3.0), gain / 25.0, pts, 0.0,
            max(0, unseen[r]) / copies, float(held), near / 4.0,
            float(next_rank + others_rank), float(next_suit + others_suit), others_down, stock,
            size, pts * others_down, buys]


def option_pair(view: SeatView, legal: Sequence[Action]) -> tuple[str, Action, Action] | None:
    """Where a learned option applies: the decision (``take`` or ``buy``), the option and the
    plain choice; None elsewhere (a seat down, a top discard of little use, a large hand)."""
    if view.down[view.me] or not view.discard:
        return None
    top = view.discard[-1]
    rules = view.ruleset
    if view.phase == "draw":
        take = [a for a in legal if a.type == "take_discard"]
        plain = [a for a in legal if a.type == "draw"]
        floor = TAKE_FLOOR
        decision = "take"
    elif view.phase == "buy":
        if len(view.hand) > BUY_MOST_HAND:
            return None
        take = [a for a in legal if a.type == "buy" and a.depth is None]
        plain = [a for a in legal if a.type == "pass"]
        floor = BUY_FLOOR
        decision = "buy"
    else:
        return None
    if not take or not plain:
        return None
    if usefulness([*view.hand, top], view.contract[view.me], rules)[top] < floor:
        return None
    return decision, take[0], plain[0]


def learned_option(view: SeatView, legal: Sequence[Action]) -> Action | None:
    """The learned take-or-draw, or buy-or-pass, choice; None where no model applies (outside
    ``option_pair``, or a contract kind without weights: the basic choice stands)."""
    pair = option_pair(view, legal)
    if pair is None:
        return None
    decision, option, plain = pair
    w = (TAKE if decision == "take" else BUY)[contract_kind(view)]
    if not w:
        return None
    cost = sum(x * y for x, y in zip(option_features(view, view.discard[-1]), w, strict=True))
    return option if cost < 0.0 else plain


class LearnedBot:
    """The basic bot with the learned discard for a seat not down, and the learned take and buy
    (a level between the basic bot and the searching expert: it answers at once)."""

    name = "learned"

    def __init__(self) -> None:
        self.basic = BasicBot()

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        first = self.basic.decide(view, legal)[0]
        if view.phase in ("draw", "buy"):
            return learned_option(view, legal) or first
        if first.type == "discard" and view.phase == "play" and not view.down[view.me] \
                and all(a.type == "discard" for a in legal):
            chosen = learned_discard(view, legal)
            if chosen is not None:
                return chosen
        return first
