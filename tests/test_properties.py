"""Properties of whole games of random legal play, for every preset and player count.

Games are driven by ``randomplay.random_action`` from a hypothesis-drawn seed. Checked: every game
ends within a bound on actions; every card of the pack is somewhere, once, after every action;
``legal_actions``, ``iter_legal``, ``is_legal`` and ``apply`` agree both ways on listed actions
and on mutated (mostly illegal) candidates; an illegal action changes nothing; replaying the
record rebuilds the live state, RNG included; a seat's view shows its own hand only, and does
not change when the cards hidden from that seat are dealt again. A few games per preset are
checked after every action; the others at every hand end.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liverpool.actions import Action, ActionFormatError
from liverpool.cards import JOKER, Card
from liverpool.engine import Game, IllegalActionError, Phase
from liverpool.melds import SET, layoff_ends, meld_readings, read_set, swap_options
from liverpool.randomplay import random_action
from liverpool.record import game_record, new_game_from_record, replay
from liverpool.rules import PRESET_NAMES, RuleSet

RULES = {name: RuleSet.preset(name) for name in PRESET_NAMES}
PRESET_PLAYERS = [(name, n) for name in PRESET_NAMES
                  for n in range(RULES[name].min_players, RULES[name].max_players + 1)]

# the full list of go-downs / borrows is exponential in the hand: enumerate it only this small
# (go-downs: ~2 ms up to 16 cards, seconds past 30; random play's buys make such hands)
FULL_GO_DOWN_HAND = 16
FULL_BORROW_HAND = 5
CANDIDATES_PER_ACTION = 16
SPOT_CHECK_RATE = 0.02  # games checked at hand ends are also checked at this share of actions


def action_bound(rules: RuleSet, n: int) -> int:
    """Actions a game can take at most: each hand has at most ``turn_limit`` counted turns plus
    n final turns; a turn is a draw, a buy round (n - 1), at most two plays per card a hand can
    hold (a play removes a card, or swaps one that must then be played), a discard, a window
    (n - 1), gives (n - 1) and a bonus turn. Hands are capped at 60 cards here, far above what
    random play reaches; the bound only has to be finite and generous."""
    hands = len(rules.hand_list())
    per_turn = 1 + (n - 1) + 2 * 60 + 1 + 3 * (n - 1) + 3
    return hands * (rules.turn_limit + n) * per_turn


def key(a: Action) -> str:
    return json.dumps(a.to_json(), sort_keys=True)


def assert_conserved(game: Game, where: str) -> None:
    have = Game.cards_in_play(game)
    pack = Counter(game.pack)
    if have != pack:
        lost = pack - have
        extra = have - pack
        raise AssertionError(f"{where}: cards lost {dict(lost)}, duplicated {dict(extra)}")


# ---- canonical forms of go-downs and borrows (order of melds and of a set's cards is free) --

def canon_meld(cards: Iterable[Card], game: Game) -> tuple[Card, ...]:
    m = tuple(cards)
    if read_set(m, game.rules) is not None and any(
            x.kind == SET for x in meld_readings(m, 0, game.rules)):
        return tuple(sorted(m))
    return m


def canon(a: Action, game: Game) -> tuple[Any, ...]:
    if a.type == "go_down":
        return (a.player, "go_down", tuple(sorted(canon_meld(m, game) for m in a.melds or ())))
    assert a.type == "borrow"
    return (a.player, "borrow", a.meld, a.card, canon_meld(a.new_meld or (), game))


def expected_legal(game: Game, a: Action, listed: set[str]) -> bool:
    """Whether ``a`` (not a go_down or borrow) should be legal, judged from the listing: it is
    listed, or it adds a field the listing leaves out because it is not needed (end, wild,
    depth 1) and that field is the only right value."""
    if key(a) in listed:
        return True
    if a.type == "buy" and a.depth == 1:
        return key(a.replace(depth=None)) in listed
    if a.type in ("lay_off", "call") and a.end is not None and a.meld is not None:
        if key(a.replace(end=None)) not in listed:
            return False
        card = a.card if a.type == "lay_off" else game.discard[-1]
        return layoff_ends(game.melds[a.meld], card, game.rules) == (a.end,)  # type: ignore[arg-type]
    if a.type == "swap_joker" and a.wild is not None and a.meld is not None:
        if key(a.replace(wild=None)) not in listed:
            return False
        opts = swap_options(game.melds[a.meld], a.card, game.rules)  # type: ignore[arg-type]
        return [w for _, w in opts] == [a.wild]
    return False


# ---- candidate actions ---------------------------------------------------------------------

def mutations(a: Action, game: Game, rng: random.Random) -> list[Action]:
    """Variants of a listed action: other card, meld, end, wild, depth, player, type."""
    n = game.n
    hand = game.hands[a.player]
    some_card = rng.choice([*hand, rng.randrange(52), JOKER]) if hand else rng.randrange(53)
    def rep(action: Action, **changes: object) -> Action:
        return action.replace(**changes)

    out = [rep(a, player=(a.player + 1) % n), rep(a, player=n), rep(a, player=-1)]
    if a.card is not None:
        out += [rep(a, card=some_card), rep(a, card=rng.randrange(53))]
    if a.meld is not None:
        out += [rep(a, meld=a.meld + 1), rep(a, meld=a.meld - 1), rep(a, meld=len(game.melds))]
    if a.type in ("lay_off", "call"):
        out += [rep(a, end=e) for e in (None, "low", "high") if e != a.end]
    if a.type == "swap_joker":
        out += [rep(a, wild=JOKER), rep(a, wild=1), rep(a, wild=14), rep(a, wild=None)]
    if a.type == "buy":
        out += [rep(a, depth=(a.depth or 1) + 1), rep(a, depth=0)]
    if a.type == "cut":
        out += [rep(a, count=0), rep(a, count=len(game.pack)), rep(a, count=(a.count or 0) + 1)]
    if a.type in ("discard", "give"):
        out.append(Action("give" if a.type == "discard" else "discard", a.player, card=a.card))
        if game.melds:
            out.append(Action("lay_off", a.player, card=a.card, meld=0))
    if a.type in ("draw", "take_discard", "no_draw", "pass", "buy", "call"):
        out += [Action(t, a.player) for t in ("draw", "take_discard", "no_draw", "pass", "buy",
                                              "call") if t != a.type]
    if a.type == "go_down" and a.melds:
        melds = [list(m) for m in a.melds]
        i = rng.randrange(len(melds))
        out.append(rep(a, melds=tuple(tuple(m) for j, m in enumerate(melds) if j != i)))
        out.append(rep(a, melds=tuple(reversed(a.melds))))  # the order of melds is free
        out.append(rep(a, melds=tuple(tuple(reversed(m)) if j == i else tuple(m)
                                      for j, m in enumerate(melds))))
        short = [tuple(m[1:]) if j == i else tuple(m) for j, m in enumerate(melds)]
        out.append(rep(a, melds=tuple(short)))
        longer = [(*m, some_card) if j == i else tuple(m) for j, m in enumerate(melds)]
        out.append(rep(a, melds=tuple(longer)))
        swapped = [tuple(m) for m in melds]
        if len(swapped[i]) > 1:
            m = list(swapped[i])
            m[0], m[-1] = m[-1], m[0]
            swapped[i] = tuple(m)
            out.append(rep(a, melds=tuple(swapped)))
    if a.type == "borrow" and a.new_meld:
        new = list(a.new_meld)
        out += [rep(a, new_meld=tuple(new[1:]) or None), rep(a, new_meld=(*new, some_card)),
                rep(a, new_meld=tuple(reversed(new)))]
        if len(new) > 1:
            out.append(rep(a, card=new[-1] if new[0] == a.card else new[0]))
    return [x for x in out if x.new_meld is not None or x.type != "borrow"]


def generic_candidates(game: Game, seat: int, rng: random.Random) -> list[Action]:
    """Actions of every type for any seat, most of them illegal now."""
    hand = game.hands[seat] if 0 <= seat < game.n else []
    cards = [*sorted(set(hand)), rng.randrange(52), JOKER]
    melds = range(len(game.melds) + 1)
    out = [Action(t, seat) for t in ("take_discard", "draw", "no_draw", "pass", "buy", "call")]
    out += [Action("buy", seat, depth=d) for d in (1, 2, len(game.discard) + 1)]
    out += [Action("cut", seat, count=c) for c in (0, 1, len(game.pack) - 1, len(game.pack))]
    for c in cards:
        out += [Action("discard", seat, card=c), Action("give", seat, card=c)]
        m = rng.choice(melds)
        out += [Action("lay_off", seat, card=c, meld=m, end=e) for e in (None, "low", "high")]
        out.append(Action("swap_joker", seat, card=c, meld=m))
        out.append(Action("call", seat, meld=m, end=rng.choice([None, "low", "high"])))
    if len(hand) >= 3:
        out.append(Action("go_down", seat, melds=(tuple(rng.sample(hand, 3)),)))
        if game.melds:
            m = rng.randrange(len(game.melds))
            out.append(Action("borrow", seat, meld=m, card=rng.choice(game.melds[m].cards),
                              new_meld=(*rng.sample(hand, 2), game.melds[m].cards[0])))
    return out


# ---- the checks ------------------------------------------------------------------------------

def check_views(game: Game, rng: random.Random, stats: Counter[str]) -> None:
    """Each seat sees its own hand, the others only as counts and known cards; its view is the
    same in every world that deals the cards hidden from it differently."""
    for s in range(game.n):
        v = game.view_for(s)
        assert Counter(v.hand) == Counter(game.hands[s])
        assert v.hand_sizes == tuple(len(h) for h in game.hands)
        assert v.stock_size == len(game.stock)
        for t in range(game.n):
            assert not Counter(v.known[t]) - Counter(game.hands[t]), "a known card not held"
        world = game.determinized(s, random.Random(rng.randrange(2**32)))
        assert Game.cards_in_play(world) == Game.cards_in_play(game)
        assert sorted(world.hands[s]) == sorted(game.hands[s])
        for t in range(game.n):
            assert not game.known[t] - Counter(world.hands[t]), "a known card was dealt away"
            assert len(world.hands[t]) == len(game.hands[t])
        assert world.view_for(s) == v, f"seat {s}'s view depends on cards hidden from it"
        if world.stock != game.stock or world.hands != game.hands:
            stats["worlds_differ"] += 1
        # a world built from the view alone shows the same view again
        rebuilt = Game.from_view(v, random.Random(rng.randrange(2**32)))
        assert rebuilt.view_for(s) == v
        assert Game.cards_in_play(rebuilt) == Counter(game.pack)


def check_agreement(game: Game, rng: random.Random, stats: Counter[str], full: bool) -> None:
    """legal_actions / iter_legal / is_legal / apply agree; illegal actions change nothing."""
    before = game.snapshot()
    n_actions = len(game.actions)
    acting = game.to_act()
    listed: dict[int, list[Action]] = {s: game.legal_actions(s) for s in range(game.n)}
    plain: dict[int, set[str]] = {}
    for s in range(game.n):
        if s not in acting:
            assert listed[s] == [] and next(game.iter_legal(s), None) is None
            plain[s] = set()
            continue
        acts = listed[s]
        assert acts, f"seat {s} must act in {game.phase} but has no legal action"
        keys = [key(a) for a in acts]
        assert len(keys) == len(set(keys)), "an action is listed twice"
        for a in acts:
            assert game.is_legal(a), f"listed but illegal: {a}: {game.why_illegal(a)}"
            if full or rng.random() < 0.3:
                clone = game.clone()
                clone.apply(a)
                assert_conserved(clone, f"after listed {a}")
        plain[s] = {k for a, k in zip(acts, keys, strict=True)
                    if a.type not in ("go_down", "borrow")}
    assert game.snapshot() == before

    # go-downs and borrows: compare with the whole list where it is small enough to build
    whole: dict[int, set[tuple[Any, ...]]] = {}
    for s in acting:
        hand = game.hands[s]
        small_gd = not game.down[s] and game.phase is Phase.PLAY and len(hand) <= FULL_GO_DOWN_HAND
        small_borrow = game.rules.borrow and game.down[s] and len(hand) <= FULL_BORROW_HAND
        if not full or not (small_gd or small_borrow):
            continue
        every = list(game.iter_legal(s))
        stats["full_lists"] += 1
        rest = {key(a) for a in every if a.type not in ("go_down", "borrow")}
        assert rest == plain[s], "iter_legal and legal_actions differ outside go-downs/borrows"
        special = [a for a in every if a.type in ("go_down", "borrow")]
        for a in special:
            assert game.is_legal(a), f"iter_legal lists an illegal {a}: {game.why_illegal(a)}"
        whole[s] = {canon(a, game) for a in special}
        for a in listed[s]:
            if a.type in ("go_down", "borrow"):
                assert canon(a, game) in whole[s]
        if small_gd:
            gds = [a for a in special if a.type == "go_down"]
            best = game.best_go_down(s)
            # the listing shows a go-down exactly when one exists, and it is the best one
            assert (best is None) == (not gds), \
                f"solver says {best}, iter_legal lists {len(gds)} go-downs for {hand}"
            if best is not None:
                stats["go_down_checked"] += 1
                keys = []
                for a in gds:
                    left = Counter(hand)
                    left.subtract(c for m in a.melds or () for c in m)
                    rest_cards = tuple(sorted(left.elements()))
                    keys.append((sum(game.rules.points(c) for c in rest_cards),
                                 len(rest_cards), rest_cards))
                assert min(keys) == best.key
        for a in special[:3]:
            clone = game.clone()
            clone.apply(a)
            assert_conserved(clone, f"after {a}")

    # candidates: mutations of listed actions and generic ones, legal and illegal
    cands: list[Action] = []
    for s in acting:
        for a in listed[s]:
            cands += mutations(a, game, rng)
    for s in range(-1, game.n + 1):
        cands += generic_candidates(game, s, rng)
    rng.shuffle(cands)
    for a in cands[:CANDIDATES_PER_ACTION]:
        try:  # only well-formed actions: what a record or a client can send
            a = Action.from_json(a.to_json())
        except ActionFormatError:
            continue
        legal = game.is_legal(a)
        seat_list = plain.get(a.player, set())
        if a.type in ("go_down", "borrow"):
            if a.player in whole:
                assert legal == (canon(a, game) in whole[a.player]), \
                    f"{a}: is_legal {legal} but the full list says otherwise"
        else:
            want = expected_legal(game, a, seat_list)
            assert legal == want, \
                f"{a}: is_legal says {legal}, the listing says {want} " \
                f"({game.why_illegal(a)}) in phase {game.phase.value}"
        if legal:
            stats["legal_candidates"] += 1
            clone = game.clone()
            clone.apply(a)
        else:
            stats["illegal_candidates"] += 1
            with pytest.raises(IllegalActionError):
                game.apply(a)
            assert game.snapshot() == before, f"illegal {a} changed the state"
            assert len(game.actions) == n_actions


def check_replay(game: Game) -> None:
    result = replay(game_record(game))
    assert result.error is None, result.error
    assert result.game.snapshot() == game.snapshot(), "replaying the record gives another state"


def check_game_end(game: Game) -> None:
    rules = game.rules
    assert len(game.scores) == len(rules.hand_list())
    sums = [sum(row[s] for row in game.scores) for s in range(game.n)]
    assert list(game.totals) == sums
    low = min(game.totals)
    assert game.winners == tuple(s for s in range(game.n) if game.totals[s] == low)


def play_checked(preset: str, n: int, seed: int, every_action: bool) -> Counter[str]:
    """Play one random game, checking after every action or at every hand end."""
    rules = RULES[preset]
    game = Game(rules, n, seed=seed)
    rng = random.Random(seed * 7919 + 1)  # the choices
    check_rng = random.Random(seed ^ 0x5EED)  # the checks' own draws, apart from the play
    shadow = new_game_from_record(game_record(game)) if every_action else None
    stats: Counter[str] = Counter()
    bound = action_bound(rules, n)
    hands_done = 0
    check_views(game, check_rng, stats)
    check_agreement(game, check_rng, stats, full=every_action)
    while not game.over:
        assert len(game.actions) < bound, "the game did not end within the action bound"
        a = random_action(game, rng)
        game.apply(a)
        stats["actions"] += 1
        assert_conserved(game, f"after action {len(game.actions) - 1} {a}")
        hand_end = len(game.scores) != hands_done
        hands_done = len(game.scores)
        if shadow is not None:
            # the record, replayed one action at a time, stays in step with the live game
            shadow.apply(Action.from_json(json.loads(json.dumps(a.to_json()))))
            assert shadow.snapshot() == game.snapshot(), f"replay diverges at {a}"
        if game.over:
            break
        if every_action or hand_end or check_rng.random() < SPOT_CHECK_RATE:
            check_views(game, check_rng, stats)
            check_agreement(game, check_rng, stats, full=every_action)
        if hand_end:
            check_replay(game)
    check_replay(game)
    check_game_end(game)
    if every_action:
        assert stats["worlds_differ"] > 0, "no determinized world ever differed: vacuous check"
        assert stats["illegal_candidates"] > 0 and stats["legal_candidates"] > 0
    return stats


# ---- the tests ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_action_checked(preset: str, data: st.DataObject) -> None:
    rules = RULES[preset]
    n = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    play_checked(preset, n, seed, every_action=True)


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_hand_ends_checked(preset: str, players: int, seed: int) -> None:
    play_checked(preset, players, seed, every_action=False)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("budget", [1, 30, 1000])
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_games_under_a_search_budget_play_to_the_end(preset: str, budget: int,
                                                     data: st.DataObject) -> None:
    """A game whose go-down searches have a budget (a server's, engine.state) only ever lists
    fewer actions: a seat that must act always has one, every listed action is legal and
    applies, cards are conserved, the game ends, and its record replays (budget or none) to
    the live state, even with a budget that stops every search at once."""
    rules = RULES[preset]
    n = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    game = Game(rules, n, seed=seed, search_budget=budget)
    rng = random.Random(seed)
    bound = action_bound(rules, n)
    while not game.over:
        assert len(game.actions) < bound, "the game did not end within the action bound"
        for s in game.to_act():
            acts = game.legal_actions(s)
            assert acts, f"seat {s} must act in {game.phase} but has no legal action"
            for a in acts:
                if a.type in ("go_down", "swap_joker", "borrow"):
                    assert game.is_legal(a), f"listed but illegal: {a}: {game.why_illegal(a)}"
        game.apply(random_action(game, rng))
        assert_conserved(game, f"after action {len(game.actions) - 1}")
    check_game_end(game)
    check_replay(game)  # with no budget
    again = new_game_from_record(game_record(game))
    again.search_budget = budget
    for a in game.actions:
        again.apply(a)
    assert again.snapshot() == game.snapshot()
