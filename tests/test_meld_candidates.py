"""The hand's meld candidates (``engine.play._meld_candidates``, where go-downs, borrows and
the learning interface's next melds start) against the plain enumeration they were first
written as: every subset of each rank's naturals with every subset of the wilds, every window
of every suit with every placement of wilds. The pruned version must give the same list."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from strategies import rule_sets

from liverpool.cards import JOKER, Card, is_wild, new_deck, sorted_cards
from liverpool.engine.play import _meld_candidates
from liverpool.melds import RUN, SET, meld_readings
from liverpool.rules import RuleSet
from liverpool.soak import RandomRules


def enumerated(hand: list[Card], rules: RuleSet) -> list[tuple[Card, ...]]:
    deuces = rules.deuces_wild
    wilds = sorted(c for c in hand if is_wild(c, deuces))
    pool = Counter(hand)
    out: set[tuple[Card, ...]] = set()
    nat_counts = Counter(c for c in hand if c not in wilds)
    wild_subsets = {tuple(w) for k in range(len(wilds) + 1) for w in combinations(wilds, k)}
    for rank in {c % 13 + 1 for c in hand if c != JOKER}:
        naturals = sorted(c for c in hand if c != JOKER and c % 13 + 1 == rank)
        for ns in {tuple(s) for k in range(1, len(naturals) + 1)
                   for s in combinations(naturals, k)}:
            for ws in wild_subsets:
                cards = Counter(ns) + Counter(ws)
                if any(pool[c] < k for c, k in cards.items()):
                    continue
                m = tuple(sorted_cards(cards.elements(), deuces and rank != 2))
                if any(x.kind == SET for x in meld_readings(m, 0, rules)):
                    out.add(m)

    def expand(options: list[list[Card]], acc: list[Card]) -> None:
        if len(acc) == len(options):
            if any(x.kind == RUN for x in meld_readings(tuple(acc), 0, rules)):
                out.add(tuple(acc))
            return
        for c in options[len(acc)]:
            if pool[c] > 0:
                pool[c] -= 1
                acc.append(c)
                expand(options, acc)
                acc.pop()
                pool[c] += 1

    for suit in range(4):
        for lo in range(1, 14):
            for hi in range(lo + rules.min_run - 1, min(lo + 12, 14) + 1):  # 13 places at most
                targets = [(r - 1) % 13 + suit * 13 for r in range(lo, hi + 1)]
                expand([([t] if nat_counts[t] or t in wilds else []) + sorted(set(wilds))
                        for t in targets], [])
    return sorted(out)


def hands(rules: RuleSet, rng: random.Random, count: int) -> list[list[Card]]:
    pack = new_deck(2, max(rules.jokers_per_deck, 1))
    return [rng.sample(pack, rng.randint(3, 16)) for _ in range(count)]


def test_every_preset_gives_the_enumerations_candidates() -> None:
    rng = random.Random(5)
    for preset in ("hoyle", "classic", "arena", "standard", "house"):
        rules = RuleSet.preset(preset)
        for hand in hands(rules, rng, 40):
            assert _meld_candidates(hand, rules) == enumerated(hand, rules), (preset, hand)


@settings(max_examples=25, deadline=None)
@given(rule_sets())
def test_random_rule_sets_give_the_enumerations_candidates(rr: RandomRules) -> None:
    rules = rr.rules()
    rng = random.Random(str(rr.overrides))
    for hand in hands(rules, rng, 6):
        assert _meld_candidates(hand, rules) == enumerated(hand, rules), hand


def test_next_melds_after_a_meld_equal_those_asked_afresh() -> None:
    # ``NextMelds.then`` takes its candidates from the question before: the same candidates,
    # the same answers as asking the engine with the longer list of melds
    from liverpool.engine import Game
    from liverpool.randomplay import random_action

    compared = 0
    for preset in ("standard", "house", "hoyle"):
        rules = RuleSet.preset(preset)
        for seed in range(6):
            g = Game(rules, 4, seed=seed)
            rng = random.Random(seed)
            while not g.over and compared < 60 * (1 + seed):
                seat = g.to_act()[0]
                step = g.next_melds(seat)
                if step is not None and step.candidates:
                    for m in step.following()[:3]:
                        later, fresh = step.then(m), g.next_melds(seat, [m])
                        assert fresh is not None
                        assert later.candidates == fresh.candidates
                        assert later.whole == fresh.whole
                        assert later.following() == fresh.following()
                        compared += 1
                g.apply(random_action(g, rng))
    assert compared > 100
