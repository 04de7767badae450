"""Hand judgement shared by the basic bot, the expert's playouts and hints.

Domain words: *usefulness* (how much a card helps meet the contract: pairs and trips of a rank
for sets, near neighbours in a suit for runs, wilds always), *keep value* (usefulness weighed
against the card's points: the discard is the card of lowest keep value), *fits* (a card some
table meld would take), *unseen* (copies of a rank the seat has not seen anywhere), *borrow*
(a down seat's new meld built round a card taken off the table: the cards it takes out of the
hand are *shed*).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..actions import Action
from ..cards import JOKER, Card, wild_cards
from ..engine import SeatView
from ..melds import Meld, layoff_ends
from ..rules import Contract, RuleSet


def usefulness(hand: Sequence[Card], contract: Contract, rules: RuleSet) -> dict[Card, float]:
    """A score per distinct card: 0 (no help toward the contract) .. 3 (part of a made group)."""
    wilds = wild_cards(rules.deuces_wild)  # a set, not a call per card: every hand judged
    rank_count = [0] * 13
    suit_mask = [0, 0, 0, 0]  # bit r set: rank r held (bit 14 too for an ace)
    for c in hand:
        if c in wilds:
            continue
        r = c % 13
        rank_count[r] += 1
        suit_mask[c // 13] |= (1 << (r + 1)) | ((1 << 14) if r == 0 else 0)
    want_sets = contract.sets > 0
    want_runs = contract.runs > 0
    out: dict[Card, float] = {}
    for c in set(hand):
        if c in wilds:
            out[c] = 4.0
            continue
        r = c % 13
        score = 0.0
        if want_sets:
            k = rank_count[r]
            score = 0.0 if k <= 1 else (1.6 if k == 2 else 3.0)
        if want_runs:
            mask = suit_mask[c // 13]
            for rr in ((1, 14) if r == 0 else (r + 1,)):
                near = (mask >> (rr - 2) & 1) + (mask >> (rr + 2) & 1) if rr >= 2 else \
                    (mask >> (rr + 2) & 1)
                adjacent = (mask >> (rr - 1) & 1) + (mask >> (rr + 1) & 1)
                run_score = min(3.0, (near + adjacent) * 0.8 + adjacent * 0.4)
                if run_score > score:
                    score = run_score
        out[c] = score
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


BORROW_REASON = "borrow: the new meld takes the most cards out of your hand"


def best_borrow(options: Iterable[Action], rules: RuleSet) -> Action | None:
    """Of a down seat's borrows, the one that sheds most cards from its hand, then most points
    (None: no borrow). A down seat only wants to be rid of its cards: each card shed is one
    fewer to pay for if the hand ends, and one fewer between the seat and going out."""
    best: Action | None = None
    best_key = (0, 0)
    for a in options:
        if a.type != "borrow" or a.new_meld is None or a.card is None:
            continue
        shed = list(a.new_meld)
        shed.remove(a.card)
        key = (len(shed), sum(rules.points(c) for c in shed))
        if best is None or key > best_key:
            best, best_key = a, key
    return best


def unseen_by_rank(view: SeatView) -> list[int]:
    """Copies of each rank (index ``card % 13``) the seat has not seen: not in its hand, the
    discard pile, a meld, or another seat's known cards. Wilds are not counted."""
    rules = view.ruleset
    out = [4 * rules.decks_for(len(view.players))] * 13
    wilds = wild_cards(rules.deuces_wild)

    def see(cards: Sequence[Card]) -> None:
        for c in cards:
            if c not in wilds:
                out[c % 13] -= 1
    see(view.hand)
    see(view.discard)
    for m in view.melds:
        see(m.cards)
    for s, known in enumerate(view.known):
        if s != view.seat:
            see(known)
    return out
