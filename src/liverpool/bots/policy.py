"""The playout policy: the basic bot's judgement, computed on a whole game state (a sampled
world) instead of a seat's view, so that the expert's playouts stay cheap.

Domain words: *playout* (a sampled world played on by this policy to the end of the hand),
*policy action* (what the basic bot would do for a seat). The policy reads only what the acting
seat could see itself (its own hand and the public table), so in a playout every seat plays
exactly as a ``basic`` opponent would; it skips what makes the basic bot slow in a tight loop:
building a ``SeatView`` and listing every legal action where the choice is plainly one of two.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..cards import JOKER, Card, make_card, wild_cards
from ..engine import Game, Phase
from ..melds import SET, Meld, layoff_ends
from ..rules import Contract, RuleSet
from ..solver import GoDown, best_go_down
from .base import by_type
from .basic import BasicBot
from .heuristics import usefulness

_BASIC = BasicBot()


class StrandedSeat(ValueError):
    """A seat asked to act with no legal action: a sampled world the real game could not
    reach (a lay-off owed instead of a draw, by a hand the world dealt no card that fits)."""

# ---- the basic judgement, remembered -----------------------------------------------------------
# The same hands and tables come back again and again in playouts (once per candidate, from the
# same world), so the values of ``heuristics`` are kept by hand and by table. Caches are
# emptied when they grow large or the rules change; they never change a value.
_CACHE_MAX = 20_000
_USE: dict[tuple[object, ...], dict[Card, float]] = {}
_FITS: dict[tuple[object, ...], frozenset[Card]] = {}
_MELD_FITS: dict[tuple[Meld, bool], frozenset[Card]] = {}


def cached_usefulness(hand: Sequence[Card], contract: Contract, rules: RuleSet
                      ) -> dict[Card, float]:
    """``heuristics.usefulness`` (which depends on the hand as a multiset only)."""
    key = (tuple(sorted(hand)), contract.sets > 0, contract.runs > 0, rules.deuces_wild)
    got = _USE.get(key)
    if got is None:
        if len(_USE) > _CACHE_MAX:
            _USE.clear()
        got = _USE[key] = usefulness(hand, contract, rules)
    return got


def _meld_fits(m: Meld, rules: RuleSet) -> frozenset[Card]:
    key = (m, rules.deuces_wild)
    got = _MELD_FITS.get(key)
    if got is None:
        if len(_MELD_FITS) > _CACHE_MAX:
            _MELD_FITS.clear()
        wilds = wild_cards(rules.deuces_wild)
        if m.kind == SET:
            near = [make_card(m.key, s) for s in range(4)]
        else:
            near = [make_card(r, m.key) for r in (m.lo - 1, m.hi + 1) if 1 <= r <= 14]
        got = _MELD_FITS[key] = frozenset(c for c in (*near, *wilds) if layoff_ends(m, c, rules))
    return got


def fitting_cards(melds: Sequence[Meld], rules: RuleSet) -> frozenset[Card]:
    """Every card some table meld would take (``heuristics.fits_table`` for all cards)."""
    key = (*melds, rules.deuces_wild)
    got = _FITS.get(key)
    if got is None:
        if len(_FITS) > _CACHE_MAX:
            _FITS.clear()
        out: frozenset[Card] = frozenset()
        for m in melds:
            out |= _meld_fits(m, rules)
        got = _FITS[key] = out
    return got


def fast_keep_values(hand: Sequence[Card], contract: Contract, rules: RuleSet, down: bool,
                     melds: Sequence[Meld]) -> dict[Card, float]:
    """``heuristics.keep_values``, from the remembered judgement."""
    pts = rules.card_points
    use = cached_usefulness(hand, contract, rules) if not down else {}
    fits = fitting_cards(melds, rules)
    out = {}
    for c in set(hand):
        value = use.get(c, 0.0) * 12.0 - pts[0 if c == JOKER else c % 13 + 1] * 0.5
        if c in fits:
            value += 25.0
        out[c] = value
    return out


def wants(hand: Sequence[Card], card: Card, contract: Contract, rules: RuleSet,
           melds: Sequence[Meld], threshold: float) -> bool:
    """The basic bot's test for taking or buying ``card`` (same thresholds, same values)."""
    with_card = [*hand, card]
    if cached_usefulness(with_card, contract, rules)[card] < threshold:
        return False
    keep = fast_keep_values(with_card, contract, rules, False, melds)
    return keep[card] > min(keep.values())


def _points(rules: RuleSet, card: Card) -> int:
    return rules.card_points[0 if card == JOKER else card % 13 + 1]


def policy_action(g: Game, seat: int) -> Action:
    """What the basic bot would choose for ``seat`` now (``seat`` must be one that acts)."""
    ph = g.phase
    rules = g.rules
    hand = g.hands[seat]
    if ph is Phase.DRAW:
        if g.floating[seat]:
            return Action("draw", seat)
        down = g.down[seat]
        top = g.discard[-1] if g.discard else None
        if top is not None and (not down or rules.down_may_take_discard) and not (
                rules.no_discard_of_taken_card and all(c == top for c in hand)):
            if down:
                if top in fitting_cards(g.melds, rules):
                    return Action("take_discard", seat)
            elif wants(hand, top, g.contract_for(seat), rules, g.melds, 1.6):
                return Action("take_discard", seat)
        if rules.layoff_instead_of_draw and down:
            for a in g.legal_actions(seat):
                if a.type == "no_draw":
                    return a
        return Action("draw", seat)
    if ph is Phase.BUY:
        top = g.discard[-1]
        if (not g.down[seat] and len(hand) <= 16
                and wants(hand, top, g.contract_for(seat), rules, g.melds, 2.4)):
            return Action("buy", seat)
        return Action("pass", seat)
    if ph is Phase.PLAY and not g.down[seat] and not g.floating[seat] and not g.gd_swaps \
            and not (rules.swap_at_go_down and rules.joker_swap != "none"):
        return _play_not_down(g, seat)
    # swaps are open to a seat going down: the basic choice is still its best go-down if it
    # has one, and the discard if no table wild could take a card of its hand
    if ph is Phase.PLAY and not g.down[seat] and not g.floating[seat] and not g.gd_swaps \
            and not g.must_play and (solved_go_down(g, seat) is not None
                                     or not _may_swap(hand, g.melds, rules)):
        return _play_not_down(g, seat)
    legal = g.legal_actions(seat)
    if not legal:
        raise StrandedSeat(f"seat {seat} has no legal action in this world")
    if len(legal) == 1:
        return legal[0]
    if ph is Phase.PLAY or ph is Phase.BONUS:
        return _play(g, seat, legal)
    if ph is Phase.CALL:
        for a in legal:
            if a.type == "call":
                return a
        return legal[-1]
    if ph is Phase.GIVE:
        card = max((a.card for a in legal if a.card is not None),
                   key=lambda c: (_points(rules, c), c))
        return Action("give", seat, card=card)
    return _BASIC.decide(g.view_for(seat), legal)[0]  # the cut: once a hand, rare


_SOLVED: dict[tuple[object, ...], GoDown | None] = {}
_SOLVED_RULES: list[RuleSet] = []
_SOLVED_MAX = 20_000


def solved_go_down(g: Game, seat: int) -> GoDown | None:
    """The engine's best go-down for a seat that is not down, remembered by hand: in playouts
    from one world the same hands come back once per candidate (and once per world for the
    searching seat), and the solver is the costliest part of a turn."""
    rules = g.rules
    if not _SOLVED_RULES or (_SOLVED_RULES[0] is not rules and _SOLVED_RULES[0] != rules):
        _SOLVED.clear()
        _SOLVED_RULES[:] = [rules]
    elif len(_SOLVED) > _SOLVED_MAX:
        _SOLVED.clear()
    no = g.contract_no(seat)
    banned = g.taken if rules.no_discard_of_taken_card else None
    key = (tuple(g.hands[seat]), no, banned)
    if key in _SOLVED:
        return _SOLVED[key]
    contract = rules.contracts[no - 1]
    all_out = rules.all_out(no)
    if all_out and not runs_may_hold_all(g.hands[seat], contract, rules):
        gd = None
    else:
        gd = best_go_down(g.hands[seat], contract, rules, all_out=all_out,
                          empty_ok=rules.going_out != "discard", banned=banned)
    _SOLVED[key] = gd
    return gd


def runs_may_hold_all(hand: Sequence[Card], contract: Contract, rules: RuleSet) -> bool:
    """False only when ``hand`` surely cannot be melded whole into the contract's runs (a
    contract of runs only, every card melded: the last contract where it must be all out).
    Cheap necessary conditions, so a playout skips the solver's long search of hands of 15-19
    cards that have no chance: every run holds naturals of one suit and each rank once, so a
    suit holding a rank k times needs k runs of its own; where that uses up the runs, a suit
    with one run needs wilds for every gap of its span; every run needs its natural cards and
    its minimum length. (2s wild, sets or runs of an exact size: not judged, True.)"""
    if contract.sets or not contract.runs or contract.run_size is not None \
            or rules.deuces_wild:
        return True
    wilds = 0
    ranks: list[list[int]] = [[], [], [], []]
    for c in hand:
        if c == JOKER:
            wilds += 1
        else:
            ranks[c // 13].append(c % 13 + 1)
    min_run = rules.min_run
    run_nat = rules.run_naturals(min_run)
    suits = 0
    runs_needed = 0
    for rs in ranks:
        if rs:
            suits += 1
            runs_needed += max(rs.count(r) for r in set(rs))
    if runs_needed > contract.runs:
        return False
    need = 0
    for rs in ranks:
        if not rs:
            continue
        k = max(rs.count(r) for r in set(rs))
        if len(rs) < k * run_nat:
            return False
        if runs_needed == contract.runs and k == 1:
            span = max(rs) - min(rs) + 1
            if 1 in rs:  # the ace may stand high instead
                high = [14 if r == 1 else r for r in rs]
                span = min(span, max(high) - min(high) + 1)
            if span > 13:
                return False
            need += max(span, min_run) - len(rs)
        else:
            need += max(0, k * min_run - len(rs))
    return need <= wilds


def _may_swap(hand: Sequence[Card], melds: Sequence[Meld], rules: RuleSet) -> bool:
    """Whether ``hand`` holds a card that might replace a wild of a table meld (the cards the
    engine tries for a swap: a set's rank in any suit, the card a run's wild stands for)."""
    if rules.joker_swap == "none":
        return False
    wilds = wild_cards(rules.deuces_wild)
    held = set(hand)
    for m in melds:
        if m.kind == SET and rules.joker_swap != "runs_and_sets":
            continue
        for place, w in enumerate(m.cards):
            if w not in wilds:
                continue
            if m.kind == SET:
                if any(make_card(m.key, suit) in held for suit in range(4)):
                    return True
            elif m.stands_for(place) in held:
                return True
    return False


def _play_not_down(g: Game, seat: int) -> Action:
    """A regular turn of a seat that is not down (no lay-offs, no swaps): go down if the
    solver finds a way, else the basic discard, without listing the legal actions."""
    gd = solved_go_down(g, seat)
    if gd is not None:
        return Action("go_down", seat, melds=tuple(m for _, m in gd.melds))
    rules = g.rules
    hand = g.hands[seat]
    banned = g.taken if rules.no_discard_of_taken_card else None
    keep = fast_keep_values(hand, g.contract_for(seat), rules, False, g.melds)
    best = min((c for c in keep if c != banned), key=lambda c: (keep[c], -c))
    return Action("discard", seat, card=best)


def _play(g: Game, seat: int, legal: list[Action]) -> Action:
    groups = by_type(legal)
    if "go_down" in groups:
        return groups["go_down"][0]
    if "swap_joker" in groups:
        return groups["swap_joker"][0]
    rules = g.rules
    if "lay_off" in groups:
        owed = set(g.must_play)
        return max(groups["lay_off"],
                   key=lambda a: (1 if a.card in owed else 0, _points(rules, a.card or 0)))
    if "discard" in groups:
        keep = fast_keep_values(g.hands[seat], g.contract_for(seat), rules, g.down[seat],
                                g.melds)
        return min(groups["discard"], key=lambda a: (keep[a.card] if a.card is not None else 0.0,
                                                     -(a.card or 0)))
    return legal[0]


def play_out(g: Game, me: int, rng: random.Random, max_turns: int = 1000) -> float:
    """Play ``g`` to the end of its hand with the policy for every seat, or for ``max_turns``
    more regular turns; return my points for the hand minus the other seats' mean (lower is
    better for ``me``). A hand cut short is scored by the cards each seat still holds.

    ``rng`` picks who acts where several seats may (first-call buy rounds). A sampled world the
    real game could not reach (a seat with no legal action) is scored as it stands.
    """
    hand_at_start = g.hand_index
    last_turn = g.turns + max_turns
    steps = 0
    while not g.over and g.hand_index == hand_at_start and steps < 20 * max_turns + 100:
        if g.turns > last_turn and g.phase is Phase.DRAW:
            break
        seats = g.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        try:
            g.apply(policy_action(g, seat))
        except ValueError:
            legal = g.legal_actions(seat)
            if not legal:
                break
            g.apply(legal[0])
        steps += 1
    if g.hand_index != hand_at_start and len(g.scores) > hand_at_start:
        row = [float(x) for x in g.scores[hand_at_start]]
    else:
        row = [float(estimate_points(g, s)) for s in range(g.n)]
    others = [row[s] for s in range(g.n) if s != me]
    return row[me] - sum(others) / max(1, len(others))


def estimate_points(g: Game, seat: int) -> float:
    """Points a seat would pay if the hand stopped now (a cut-off playout)."""
    held = sum(_points(g.rules, c) for c in g.hands[seat])
    return held + g.penalties[seat]
