"""The contract solver against its exhaustive oracle.

``best_go_down`` (memoised search) is compared with ``brute_force_go_down`` (every sub-multiset
for every meld) on hypothesis-drawn small hands for every contract of every preset, and on a
seeded sample of full-size hands. They must agree on feasibility and on the key the solver's
docstring defines: (points left, cards left, sorted left-over tuple), smaller is better. Every
answer must also be a go-down the rules accept: valid first-down melds, only the hand's cards,
exactly the contract, and ``Game.is_legal`` takes it in a real game. The options a game passes
(``empty_ok``, ``banned``) are checked against the oracle too, through the identity "best go-down
that keeps card c" = c + best go-down of the hand without c.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from conftest import stacked_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liverpool.actions import Action
from liverpool.cards import JOKER, Card, card_str, cards_str, make_card, parse_cards
from liverpool.engine import Game, Phase
from liverpool.melds import RUN, SET, meld_readings
from liverpool.rules import PRESET_NAMES, Contract, RuleSet
from liverpool.solver import GoDown, SearchBudget, best_go_down, brute_force_go_down

# every preset's own rules; the in-game check plays with 4 decks so any hand drawn here exists
RULES = {name: RuleSet.preset(name) for name in PRESET_NAMES}
GAME_DECKS = 4
MAX_COPIES = 2  # hands drawn here hold at most 2 of a suited card (two decks' worth)
MAX_JOKERS = 4

CASES = [(name, k) for name in PRESET_NAMES for k in range(1, len(RULES[name].contracts) + 1)]


def wild_kinds(rules: RuleSet) -> list[Card]:
    return [JOKER] + ([make_card(2, s) for s in range(4)] if rules.deuces_wild else [])


def cards_needed(rules: RuleSet, contract: Contract) -> int:
    return (contract.sets * (contract.set_size or rules.min_set)
            + contract.runs * (contract.run_size or rules.min_run))


def within_pack(hand: Sequence[Card]) -> bool:
    counts = Counter(hand)
    return all(k <= (MAX_JOKERS if c == JOKER else MAX_COPIES) for c, k in counts.items())


def clip_to_pack(hand: Sequence[Card]) -> list[Card]:
    """The hand less any copies beyond what two decks hold."""
    counts: Counter[Card] = Counter()
    out = []
    for c in hand:
        counts[c] += 1
        if counts[c] <= (MAX_JOKERS if c == JOKER else MAX_COPIES):
            out.append(c)
    return out


# ---- hand strategies -----------------------------------------------------------------------

@st.composite
def focused_hand(draw: st.DrawFn, rules: RuleSet, size: int) -> list[Card]:
    """``size`` cards drawn mostly from a few suits and a window of ranks (so melds, and
    choices between them, are common), with 0-4 wilds (jokers, and 2s where they are wild)."""
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True))
    lo = draw(st.integers(1, 10))
    width = draw(st.integers(3, 8))
    pool: list[Card] = []
    for s in suits:
        for r in range(lo, min(lo + width, 14)):
            if not (rules.deuces_wild and r == 2):
                pool += [make_card(r, s)] * MAX_COPIES
    # a few cards from anywhere, so that nothing is ruled out
    pool += draw(st.lists(st.integers(0, 51), min_size=0, max_size=4))
    n_wild = draw(st.integers(0, min(4, size)))
    wilds = draw(st.lists(st.sampled_from(wild_kinds(rules)), min_size=n_wild,
                          max_size=n_wild))
    k = size - n_wild
    if k > len(pool):
        pool += [JOKER] * (k - len(pool))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=k, max_size=k, unique=True))
    hand = [pool[i] for i in picks] + wilds
    return hand


def build_contract_hand(rng: random.Random, rules: RuleSet, contract: Contract, extra: int,
                        max_cards: int = 0) -> list[Card]:
    """A hand made to meet ``contract``: its melds (some cards replaced by wilds, never below
    the naturals a first-down meld needs) plus ``extra`` random cards. Melds start at their
    smallest size and grow at random while the hand stays within ``max_cards``."""
    wilds = wild_kinds(rules)
    sizes = [(RUN, contract.run_size or rules.min_run, contract.run_size is None)
             for _ in range(contract.runs)]
    sizes += [(SET, contract.set_size or rules.min_set, contract.set_size is None)
              for _ in range(contract.sets)]
    total = sum(size for _, size, _ in sizes) + extra
    while total < max_cards and rng.random() < 0.7:
        i = rng.randrange(len(sizes))
        kind, size, free = sizes[i]
        if free and size < (13 if kind == RUN else rules.min_set + 2):
            sizes[i] = (kind, size + 1, free)
            total += 1
    hand: list[Card] = []
    for kind, size, _ in sizes:
        if kind == RUN:
            lo = rng.randint(1, 14 - size + 1)  # size <= 13, so an ace is never used twice
            suit = rng.randrange(4)
            cards = [make_card(lo + i, suit) for i in range(size)]
        else:
            rank = rng.randint(1, 13)
            cards = [make_card(rank, rng.randrange(4)) for _ in range(size)]
        need = rules.run_naturals(size) if kind == RUN else rules.set_naturals(size)
        for i in rng.sample(range(size), rng.randint(0, size - need)):
            cards[i] = rng.choice(wilds)
        hand += cards
    hand += [rng.choice([*range(52), JOKER]) for _ in range(extra)]
    rng.shuffle(hand)
    return hand


@st.composite
def built_hand(draw: st.DrawFn, rules: RuleSet, contract: Contract) -> list[Card]:
    seed = draw(st.integers(0, 2**32 - 1))
    extra = draw(st.integers(0, 2))
    need = cards_needed(rules, contract)
    return build_contract_hand(random.Random(seed), rules, contract, extra,
                               max_cards=max(9, need + 2))


# ---- checks --------------------------------------------------------------------------------

def describe(gd: GoDown | None) -> str:
    if gd is None:
        return "None"
    melds = " | ".join(f"{k} {cards_str(m)}" for k, m in gd.melds)
    return f"[{melds}] left {cards_str(gd.left)} key {gd.key[:2]}"


def check_go_down(gd: GoDown, hand: Sequence[Card], contract: Contract, rules: RuleSet,
                  all_out: bool) -> None:
    """``gd`` is a valid go-down of ``hand`` for ``contract`` by the meld rules alone."""
    used = Counter(c for _, m in gd.melds for c in m)
    assert used + Counter(gd.left) == Counter(hand), "melds + left must be exactly the hand"
    assert list(gd.left) == sorted(gd.left)
    assert gd.points_left == sum(rules.points(c) for c in gd.left)
    if all_out:
        assert gd.left == ()
    kinds: Counter[str] = Counter()
    for kind, cards in gd.melds:
        readings = {m.kind for m in meld_readings(tuple(cards), 0, rules, first_down=True)}
        assert kind in readings, f"{cards_str(cards)} is not a valid first-down {kind}"
        exact = contract.set_size if kind == SET else contract.run_size
        if exact is not None:
            assert len(cards) == exact
        kinds[kind] += 1
    assert kinds[SET] == contract.sets and kinds[RUN] == contract.runs


def oracle_keeping(hand: Sequence[Card], contract: Contract, rules: RuleSet, allowed: set[Card]
                   ) -> tuple[int, int, tuple[Card, ...]] | None:
    """Best key among go-downs whose left-over holds some card of ``allowed``: a go-down that
    keeps c is c plus a go-down of the hand without c, so the oracle on each smaller hand
    decides it exactly."""
    best = None
    for c in set(hand) & allowed:
        rest = list(hand)
        rest.remove(c)
        gd = brute_force_go_down(rest, contract, rules)
        if gd is None:
            continue
        left = tuple(sorted((*gd.left, c)))
        key = (gd.points_left + rules.points(c), len(left), left)
        if best is None or key < best:
            best = key
    return best


def compare(hand: list[Card], preset: str, contract_no: int, all_out: bool) -> GoDown | None:
    rules = RULES[preset]
    contract = rules.contracts[contract_no - 1]
    mine = best_go_down(hand, contract, rules, all_out=all_out)
    oracle = brute_force_go_down(hand, contract, rules, all_out=all_out)
    where = (f"{preset} contract {contract_no} ({contract.describe()}) all_out={all_out} "
             f"hand {cards_str(sorted(hand))}: solver {describe(mine)}, oracle {describe(oracle)}")
    assert (mine is None) == (oracle is None), where
    if oracle is not None:
        check_go_down(oracle, hand, contract, rules, all_out)
    if mine is not None:
        assert oracle is not None
        check_go_down(mine, hand, contract, rules, all_out)
        assert mine.key == oracle.key, where
    return mine


def game_holding(preset: str, contract_no: int, hand: Sequence[Card]) -> Game:
    """A 3-seat game of ``preset`` playing contract ``contract_no`` where seat 1 (first to play)
    has just drawn its last card from the stock, so that it holds exactly ``hand``."""
    rules = RULES[preset]
    size = len(hand) - 1
    overrides = {"decks": GAME_DECKS, "hands": [contract_no],
                 "deal_sizes": [size] * len(rules.contracts)}
    pack = Counter([*range(52), *[JOKER] * rules.jokers_per_deck] * GAME_DECKS)
    pack.subtract(hand)
    rest = sorted(pack.elements())  # suited cards first: the other seats get no jokers
    others = [rest[:size], rest[size:2 * size]]
    upcard = rest[2 * size]
    text = [cards_str(others[0]), cards_str(hand[:-1]), cards_str(others[1])]
    g = stacked_game(preset, text, upcard=card_str(upcard), stock=card_str(hand[-1]),
                     overrides=overrides, contract_no=contract_no)
    g.apply(Action("draw", 1))
    while g.phase is Phase.BUY:  # the others decline the upcard
        g.apply(Action("pass", g.to_act()[0]))
    assert g.phase is Phase.PLAY and sorted(g.hands[1]) == sorted(hand)
    return g


def check_in_game(hand: list[Card], preset: str, contract_no: int, exhaustive: bool) -> None:
    """The solver's answer under the game's own terms is a legal go_down there; with
    ``exhaustive`` also: the engine's list of every legal go-down is empty exactly when the
    solver finds none, and no listed go-down leaves a better key."""
    rules = RULES[preset]
    contract = rules.contracts[contract_no - 1]
    g = game_holding(preset, contract_no, hand)
    all_out = rules.final_all_out and contract_no == 7
    # going_out 'discard': the go-down must leave a card to discard
    gd = best_go_down(hand, contract, rules, all_out=all_out,
                      empty_ok=rules.going_out != "discard")
    from_game = g.best_go_down(1)
    assert (gd is None) == (from_game is None)
    where = f"{preset} contract {contract_no} hand {cards_str(sorted(hand))}: {describe(gd)}"
    if gd is not None:
        assert from_game is not None and from_game.key == gd.key
        check_go_down(gd, hand, contract, rules, all_out)
        a = Action("go_down", 1, melds=tuple(m for _, m in gd.melds))
        assert g.is_legal(a), f"{where}: {g.why_illegal(a)}"
    if exhaustive:
        keys = []
        for a in g.iter_legal(1):
            if a.type != "go_down":
                continue
            left = Counter(hand)
            left.subtract(c for m in a.melds or () for c in m)
            rest = tuple(sorted(left.elements()))
            keys.append((sum(rules.points(c) for c in rest), len(rest), rest))
        assert (gd is None) == (not keys), where
        if gd is not None:
            assert min(keys) == gd.key, where


# ---- (a) small hands, every contract of every preset ----------------------------------------

def size_range(rules: RuleSet, contract: Contract) -> tuple[int, int]:
    """6-9 cards; a contract that needs more is tried from just below its need (infeasible)
    to two cards above it, so that every contract meets feasible hands too."""
    need = cards_needed(rules, contract)
    if need <= 8:
        return 6, 9
    return need - 1, need + 2


@pytest.mark.parametrize(("preset", "contract_no"), CASES)
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_small_hands_match_oracle(preset: str, contract_no: int, data: st.DataObject) -> None:
    rules = RULES[preset]
    contract = rules.contracts[contract_no - 1]
    lo, hi = size_range(rules, contract)
    if data.draw(st.booleans(), label="built"):
        hand = data.draw(built_hand(rules, contract), label="hand")
    else:
        size = data.draw(st.integers(lo, hi), label="size")
        hand = data.draw(focused_hand(rules, size), label="hand")
    hand = clip_to_pack(hand)
    all_out = data.draw(st.booleans(), label="all_out")
    compare(hand, preset, contract_no, all_out)
    if len(hand) >= 2:
        check_in_game(hand, preset, contract_no, exhaustive=len(hand) <= 10)


# ---- the options a game passes: empty_ok and banned ------------------------------------------

@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_finish_terms_match_oracle(preset: str, data: st.DataObject) -> None:
    """``empty_ok=False`` (a card must stay to discard) and ``banned`` (that card cannot be the
    discard) against the oracle run on the hand less each card that could stay."""
    rules = RULES[preset]
    contract_no = data.draw(st.sampled_from([1, 2, 3]), label="contract")
    contract = rules.contracts[contract_no - 1]
    hand = data.draw(st.one_of(built_hand(rules, contract),
                               focused_hand(rules, cards_needed(rules, contract) + 1)),
                     label="hand")
    banned = data.draw(st.sampled_from(hand), label="banned")
    where = f"{preset} contract {contract_no} hand {cards_str(sorted(hand))}"
    for empty_ok in (True, False):
        mine = best_go_down(hand, contract, rules, empty_ok=empty_ok, banned=banned)
        expected = oracle_keeping(hand, contract, rules, set(hand) - {banned})
        if empty_ok:
            whole = brute_force_go_down(hand, contract, rules, all_out=True)
            if whole is not None and (expected is None or whole.key < expected):
                expected = whole.key
        got = None if mine is None else mine.key
        assert got == expected, f"{where} empty_ok={empty_ok} banned={card_str(banned)}: " \
                                f"solver {describe(mine)}, oracle key {expected}"
        if mine is not None:
            check_go_down(mine, hand, contract, rules, all_out=False)
            assert (not mine.left and empty_ok) or any(c != banned for c in mine.left)


# ---- hand-written cases, worked out by hand -----------------------------------------------

def test_known_best_go_downs() -> None:
    from conftest import C
    standard = RULES["standard"]
    # 2 sets: 7S 7H 7D | KS KH JK; the lone 4C fits no set, so the best leaves 4C: 5 points
    # (standard scores 2-9 at 5)
    gd = best_go_down(C("7S 7H 7D KS KH JK 4C"), standard.contracts[0], standard)
    assert gd is not None and gd.key == (5, 1, tuple(C("4C")))
    # standard needs 2 naturals in a set: 7S JK JK is no set, so no go-down
    assert best_go_down(C("7S JK JK KS KH KD 4C"), standard.contracts[0], standard) is None
    # classic (naturals must outnumber wilds): 7S 7H JK and KS KH KD; left 4C (4, face value)
    classic = RULES["classic"]
    gd = best_go_down(C("7S 7H JK KS KH KD 4C"), classic.contracts[0], classic)
    assert gd is not None and gd.key == (4, 1, tuple(C("4C")))
    # house, 2s wild, runs of 3: set 9S 9H 9D + run 4C 5C 2D(6C); left KS (10) beats keeping
    # the 2D (20 points)
    house = RULES["house"]
    gd = best_go_down(C("9S 9H 9D 4C 5C 2D KS"), house.contracts[1], house)
    assert gd is not None and gd.key == (10, 1, tuple(C("KS")))
    # all_out: the whole hand must go; one card too many makes it impossible
    assert best_go_down(C("9S 9H 9D 4C 5C 2D"), house.contracts[1], house,
                        all_out=True) is not None
    assert best_go_down(C("9S 9H 9D 4C 5C 2D KS"), house.contracts[1], house,
                        all_out=True) is None


# ---- (b) full-size hands ------------------------------------------------------------------

# per preset and contract: one hand that is exactly the contract's melds (all_out), one built
# to be feasible and padded to 12-13 cards, one focused on a few suits and ranks (105 hands;
# the oracle takes up to ~4 s on the worst of them, so the sample stays this small)
FULL_SAMPLE_PER_CONTRACT = 3


def full_size_hands() -> list[tuple[str, int, list[Card], bool]]:
    rng = random.Random(20240611)
    out = []
    for preset, k in CASES:
        rules = RULES[preset]
        contract = rules.contracts[k - 1]
        need = cards_needed(rules, contract)
        for i in range(FULL_SAMPLE_PER_CONTRACT):
            size = rng.choice([12, 13]) if need <= 12 else 13
            if i < 2:
                hand = build_contract_hand(rng, rules, contract, 0, max_cards=size)
                if i == 1:
                    hand += [rng.choice([*range(52), JOKER]) for _ in range(size - len(hand))]
                hand = clip_to_pack(hand)
            else:
                suits = rng.sample(range(4), rng.randint(1, 3))
                lo = rng.randint(1, 8)
                pool = [make_card(r, s) for s in suits for r in range(lo, lo + 7)] * MAX_COPIES
                n_wild = rng.randint(0, 4)
                hand = rng.sample(pool, size - n_wild) + \
                    [rng.choice(wild_kinds(rules)) for _ in range(n_wild)]
            out.append((preset, k, hand, i == 0))
    return out


@pytest.mark.parametrize(("preset", "contract_no", "hand", "all_out"),
                         [pytest.param(*case,
                                       id=f"{case[0]}-{case[1]}-{j % FULL_SAMPLE_PER_CONTRACT}")
                          for j, case in enumerate(full_size_hands())])
def test_full_size_hands_match_oracle(preset: str, contract_no: int, hand: list[Card],
                                      all_out: bool) -> None:
    compare(hand, preset, contract_no, all_out)
    if within_pack(hand):
        check_in_game(hand, preset, contract_no, exhaustive=False)


# ---- (c) a search budget ------------------------------------------------------------------
# seven hearts twice over, four low hearts and two jokers: three runs in `standard`'s last
# contract; proving the best one takes thousands of visits of a search state, finding one a few
LONG_SEARCH = parse_cards("2H 4H 6H 7H 7H 8H 8H 9H 9H 10H 10H JH JH QH QH KH KH JK JK")


def test_a_budget_stops_the_search_with_the_best_found_so_far() -> None:
    rules = RULES["standard"]
    contract = rules.contracts[6]
    exact = best_go_down(LONG_SEARCH, contract, rules)
    assert exact is not None and exact.key[:2] == (0, 0)
    answers = {}
    for visits in (1, 10, 100, 10**6):
        budget = SearchBudget(visits)
        answers[visits] = best_go_down(LONG_SEARCH, contract, rules, budget=budget)
        if visits < 10**6:
            assert budget.left == 0, visits  # used up: the search stopped
        else:
            assert 0 < budget.left < visits  # the whole search, paid for
    assert answers[1] is None  # stopped at its first state, before any go-down
    found = answers[10]
    assert found is not None and found.key > exact.key  # a go-down, not yet the best
    check_go_down(found, LONG_SEARCH, contract, rules, all_out=False)
    assert answers[100] is not None and answers[100].key == exact.key
    assert answers[10**6] == exact


def test_searches_given_one_budget_share_it() -> None:
    rules = RULES["standard"]
    contract = rules.contracts[6]
    budget = SearchBudget(10)
    assert best_go_down(LONG_SEARCH, contract, rules, budget=budget) is not None
    assert budget.left == 0
    assert best_go_down(LONG_SEARCH, contract, rules, budget=budget) is None


@pytest.mark.parametrize(("preset", "contract_no"), CASES)
def test_any_budget_answers_a_go_down_or_none(preset: str, contract_no: int) -> None:
    """Whatever the budget, an answer is a valid go-down of the hand, never better than the
    exact one; a budget the search does not use up gives the exact answer."""
    rules = RULES[preset]
    contract = rules.contracts[contract_no - 1]
    rng = random.Random(f"budget {preset} {contract_no}")
    for _ in range(6):
        hand = build_contract_hand(rng, rules, contract, rng.randint(0, 4), max_cards=16)
        all_out = rng.random() < 0.3
        exact = best_go_down(hand, contract, rules, all_out=all_out)
        for visits in (1, 3, 10, 30, 100, 1000):
            budget = SearchBudget(visits)
            gd = best_go_down(hand, contract, rules, all_out=all_out, budget=budget)
            if gd is not None:
                check_go_down(gd, hand, contract, rules, all_out)
                assert exact is not None and gd.key >= exact.key
            if budget.left > 0:
                assert gd == exact


def test_a_listing_under_a_search_budget_shares_it() -> None:
    """A game given a search budget lists the go-down its budgeted search finds; without one,
    the exact best."""
    g = game_holding("standard", 7, LONG_SEARCH)
    rules, contract = g.rules, g.contract_for(1)
    terms = {"all_out": rules.final_all_out, "empty_ok": rules.going_out != "discard"}
    exact = best_go_down(LONG_SEARCH, contract, rules, **terms)
    assert exact is not None

    def listed() -> list[Action]:
        return [a for a in g.legal_actions(1) if a.type == "go_down"]

    assert [a.melds for a in listed()] == [tuple(m for _, m in exact.melds)]
    g.search_budget = 1
    assert listed() == []  # the search stopped at its first state
    assert g.is_legal(Action("go_down", 1, melds=tuple(m for _, m in exact.melds)))
    g.search_budget = 10
    budgeted = best_go_down(LONG_SEARCH, contract, rules, budget=SearchBudget(10), **terms)
    assert budgeted is not None
    assert [a.melds for a in listed()] == [tuple(m for _, m in budgeted.melds)]
    assert g.clone().search_budget == 10


# ---- first=True: whether there is a go-down, answered by the first one found -------------------

@pytest.mark.parametrize("preset", ["standard", "house", "hoyle"])
def test_the_first_go_down_found_exists_exactly_when_a_best_one_does(preset: str) -> None:
    rules = RuleSet.preset(preset)
    pack = [c for c in range(52) for _ in range(2)] + [JOKER] * 4
    rng = random.Random(8)
    found = 0
    for _ in range(300):
        contract = rng.choice(rules.contracts)
        hand = rng.sample(pack, rng.randint(11, 26))
        best = best_go_down(hand, contract, rules)
        first = best_go_down(hand, contract, rules, first=True)
        assert (best is None) == (first is None), (cards_str(hand), contract)
        if first is None or best is None:
            continue
        found += 1
        used = Counter(c for _, m in first.melds for c in m)
        assert not used - Counter(hand)
        kinds = Counter(kind for kind, _ in first.melds)
        assert kinds == Counter({SET: contract.sets, RUN: contract.runs}) - Counter()
        assert all(any(r.kind == kind for r in meld_readings(m, 0, rules))
                   for kind, m in first.melds)
        assert first.key >= best.key  # never better than the best
    assert found > 30


@given(st.integers(0, 30), st.integers(1, 13), st.integers(1, 4))
def test_the_wild_count_slots_are_the_formula_they_shorten(count: int, per: int, k: int) -> None:
    # the prefilter's slots: what the i-th meld of k can take from count naturals, per each
    from liverpool.solver import _add_slots
    formula = [min(i * per, count) - min((i - 1) * per, count) for i in range(1, k + 1)]
    slots: list[int] = []
    _add_slots(slots, count, per, k)
    assert sorted(slots, reverse=True) == [x for x in sorted(formula, reverse=True) if x]
