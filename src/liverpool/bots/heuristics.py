"""Hand judgement shared by the basic bot, the expert's playouts and hints.

Domain words: *usefulness* (how much a card helps meet the contract: pairs and trips of a rank
for sets, near neighbours in a suit for runs, wilds always), *keep value* (usefulness weighed
against the card's points: the discard is the card of lowest keep value), *fits* (a card some
table meld would take).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from ..cards import JOKER, Card
from ..melds import Meld, layoff_ends
from ..rules import Contract, RuleSet


def is_wild(card: Card, rules: RuleSet) -> bool:
    return card == JOKER or (rules.deuces_wild and card % 13 == 1)


def usefulness(hand: Sequence[Card], contract: Contract, rules: RuleSet) -> dict[Card, float]:
    """A score per distinct card: 0 (no help toward the contract) .. 3 (part of a made group)."""
    naturals = [c for c in hand if not is_wild(c, rules)]
    rank_count = Counter(c % 13 for c in naturals)
    suit_ranks: list[set[int]] = [set(), set(), set(), set()]
    for c in naturals:
        r = c % 13 + 1
        suit_ranks[c // 13].add(r)
        if r == 1:
            suit_ranks[c // 13].add(14)
    out: dict[Card, float] = {}
    for c in set(hand):
        if is_wild(c, rules):
            out[c] = 4.0
            continue
        set_score = 0.0
        if contract.sets:
            k = rank_count[c % 13]
            set_score = 0.0 if k <= 1 else (1.6 if k == 2 else 3.0)
        run_score = 0.0
        if contract.runs:
            ranks = suit_ranks[c // 13]
            r = c % 13 + 1
            best = 0.0
            for rr in ((1, 14) if r == 1 else (r,)):
                near = sum(1 for d in (-2, -1, 1, 2) if rr + d in ranks)
                adjacent = sum(1 for d in (-1, 1) if rr + d in ranks)
                best = max(best, min(3.0, near * 0.8 + adjacent * 0.4))
            run_score = best
        out[c] = max(set_score, run_score)
    return out


def fits_table(card: Card, melds: Iterable[Meld], rules: RuleSet) -> bool:
    return any(layoff_ends(m, card, rules) for m in melds)


def keep_values(hand: Sequence[Card], contract: Contract, rules: RuleSet, down: bool,
                melds: Sequence[Meld]) -> dict[Card, float]:
    """Higher = keep. A down player keeps nothing for melding: it sheds its costliest cards."""
    pts = rules.card_points
    use = usefulness(hand, contract, rules) if not down else {}
    out = {}
    for c in set(hand):
        value = use.get(c, 0.0) * 12.0 - pts[0 if c == JOKER else c % 13 + 1] * 0.5
        if fits_table(c, melds, rules):
            value += 25.0  # a discard that fits invites a call (and is better laid off)
        out[c] = value
    return out
