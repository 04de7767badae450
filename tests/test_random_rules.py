"""Random rule sets: whole games of random legal play under rule sets no preset has.

``strategies.rule_sets()`` draws a preset, overrides of nearly every knob and a player count
(``liverpool.soak.random_rules``, also behind ``liverpool soak --random-rules``). Each game is
played by random legal play to its end; after every action: some seat is to act and every seat
to act has a legal action; every listed action applies (on a copy) and leaves a state where
again someone can act; the cards are conserved, counted here from the state's fields against a
pack built here from the decks and jokers; at the end the record, replayed through JSON, gives
the live state. ``RuleSet.check`` refuses the combinations that dead-end, naming the knobs
(docs/rules.md, Knobs: checks between knobs; docs/rules-decisions.md); a scenario shows, past
``check``, the dead end one refusal prevents; two more show how a player who is not down plays
a joker swapped under ``swap_needs_down: false`` (the engine's fix of the other dead end).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

import pytest
from conftest import C, act, stacked_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import accepted, rule_sets

from liverpool import soak
from liverpool.actions import Action
from liverpool.cards import JOKER
from liverpool.engine import Game, Phase, stacked_deck
from liverpool.record import game_record, replay
from liverpool.rules import KNOBS, PRESET_NAMES, Contract, RulesError, RuleSet
from liverpool.soak import RandomRules, random_rules

EXAMPLES_PER_PRESET = 80  # 400 random rule sets and games in all (about a minute of one core)
CUT_SAMPLE = 5  # a cut lists every count; applying a few of them on copies is enough


# ---- the checks, written from the state's fields ------------------------------------------

def assert_can_act(game: Game, where: str) -> None:
    if game.over:
        return
    seats = game.to_act()
    assert seats, f"{where}: nobody is to act in phase {game.phase.value}"
    for s in seats:
        assert game.legal_actions(s), \
            f"{where}: seat {s} is to act in phase {game.phase.value} but has no legal action " \
            f"(hand {game.hands[s]}, must play {game.must_play}, go-down swaps {game.gd_swaps})"


def action_bound(rules: RuleSet, n: int, pack_size: int) -> int:
    """A generous bound on a game's actions: each hand has at most ``turn_limit`` counted turns
    plus n final turns (bonus turns ride on the discards); a turn is a draw, a buy round, two
    plays per card at most (a play removes a card or swaps one that must then be played), a
    discard, a window, the gives and a bonus turn; the cut lifts once per hand."""
    hands = rules.own_max_hands if rules.progression == "own" else len(rules.hand_list())
    per_turn = 1 + (n - 1) + 2 * pack_size + 1 + 3 * (n - 1) + 3
    return hands * ((rules.turn_limit + n) * per_turn + 1)


def choose(game: Game, rng: random.Random) -> Action:
    """Random legal play: a seat to act, then a type of action, then an action of that type;
    a go-down when one is listed half the time only, so that turns also swap, lay off or
    discard before (or instead of) going down."""
    seats = game.to_act()
    seat = seats[0] if len(seats) == 1 else rng.choice(seats)
    by_type: dict[str, list[Action]] = {}
    for a in game.legal_actions(seat):
        by_type.setdefault(a.type, []).append(a)
    if "go_down" in by_type and rng.randrange(2):
        return by_type["go_down"][0]
    return rng.choice(by_type[rng.choice(sorted(by_type))])


def play_to_the_end(rr: RandomRules, seed: int) -> Game:
    rules = rr.rules()
    game = Game(rules, rr.players, seed=seed)
    full = soak.pack_of(rules, rr.players)
    bound = action_bound(rules, rr.players, sum(full.values()))
    rng = random.Random(seed)  # the choices
    pick = random.Random(~seed)  # which cut counts to try on copies
    assert soak.cards_seen(game) == full, "the deal does not hold the pack"
    while not game.over:
        where = f"{rr.describe()} seed {seed}, action {len(game.actions)}"
        assert len(game.actions) < bound, f"{where}: the game did not end within {bound}"
        assert_can_act(game, where)
        for s in game.to_act():
            listed = game.legal_actions(s)
            if game.phase is Phase.CUT:
                listed = pick.sample(listed, min(CUT_SAMPLE, len(listed)))
            for a in listed:
                copy = game.clone()
                copy.apply(a)  # a listed action never raises
                assert soak.cards_seen(copy) == full, f"{where}: {a} loses or makes cards"
                assert_can_act(copy, f"{where}, after listed {a.to_json()}")
        a = choose(game, rng)
        game.apply(a)
        assert soak.cards_seen(game) == full, f"{where}: {a} loses or makes cards"
    record = json.loads(json.dumps(game_record(game)))
    again = replay(record)
    assert again.error is None, again.error
    assert again.game.snapshot() == game.snapshot(), "the replayed record ends elsewhere"
    return game


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=EXAMPLES_PER_PRESET, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_random_rule_sets_play_to_the_end(preset: str, data: st.DataObject, seed: int) -> None:
    rr = data.draw(rule_sets(preset), label="rule set")
    game = play_to_the_end(rr, seed)
    assert game.over and game.winners


# ---- the generator ---------------------------------------------------------------------------

def test_the_generator_builds_only_accepted_rule_sets_and_varies_every_knob() -> None:
    varied: Counter[str] = Counter()
    for i in range(2000):
        rr = random_rules(random.Random(i))
        assert accepted(rr), rr.describe()
        varied.update(rr.overrides.keys())
    assert set(varied) == set(KNOBS), f"never overridden: {set(KNOBS) - set(varied)}"


def test_soak_plays_random_rule_sets_with_its_checks() -> None:
    specs = soak.game_specs(6, 11, 6, random_rule_sets=True)
    assert specs == soak.game_specs(6, 11, 6, random_rule_sets=True)  # a function of the seed
    assert all(s.overrides and s.every_action for s in specs)
    for spec in specs:
        spec.rules().check_players(spec.players)
    results = soak.run(6, 1, 11, 6, random_rule_sets=True)
    assert [r.spec for r in results] == specs
    assert all(r.violations == [] and r.actions > 0 for r in results), \
        [v.message for r in results for v in r.violations]


# ---- refusals ---------------------------------------------------------------------------------

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    # the combinations that dead-end in play (docs/rules-decisions.md, Rule sets no preset has)
    ("house", {"swap_needs_down": False},
     "swapped_joker_must_be_played: with swap_needs_down off needs deuces_wild off (a player "
     "who is not down plays the swapped wilds in the go-down"),
    ("standard", {"swap_needs_down": False, "deuces_wild": True},
     "swapped_joker_must_be_played: with swap_needs_down off needs deuces_wild off"),
    ("arena", {"deuces_wild": True, "swap_at_go_down": 2},
     "swap_at_go_down: above 1 needs deuces_wild off"),
    ("house", {"swap_at_go_down": 3},
     "swap_at_go_down: above 1 needs deuces_wild off"),
    # contradictions between knobs
    ("hoyle", {"swap_at_go_down": 1}, "swap_at_go_down: needs joker_swap other than none"),
    ("standard", {"buying": False, "deep_pickup": True}, "deep_pickup: needs buying on"),
    ("arena", {"down_may_take_discard": False},
     "playable_discard: 'bonus' needs down_may_take_discard"),
    ("standard", {"down_may_take_discard": False},
     "playable_discard: 'standard' needs down_may_take_discard"),
    ("house", {"going_out": "float"},
     "layoff_instead_of_draw: cannot be combined with going_out 'float'"),
    ("standard", {"progression": "own", "hands": [1]},
     "hands: does not apply with progression 'own'"),
    ("standard", {"hands": [8]}, "hands: contract numbers must be 1..7"),
    ("standard", {"contracts": [{"sets": 1, "runs": 0}]},
     "deal_sizes: needs one size per contract (1)"),
    ("hoyle", {"min_set": 4}, "contracts: contract 7: set_size below min_set"),
    ("classic", {"min_run": 8, "contracts": [{"sets": 0, "runs": 1, "run_size": 7}],
                 "deal_sizes": [10]}, "contracts: contract 1: run_size must be min_run..13"),
    ("classic", {"contracts": [{"sets": 0, "runs": 0}], "deal_sizes": [10]},
     "contracts: contract 1 must ask for at least one meld"),
    ("standard", {"naturals": [4, 3]}, "naturals: set minimum must be 1..min_set"),
    ("standard", {"min_players": 6, "max_players": 4}, "players: player counts must satisfy"),
    ("standard", {"decks": [[4, 2]]}, "decks: no deck count given for 8 players"),
]


@pytest.mark.parametrize(("preset", "overrides", "message"), REFUSED,
                         ids=[f"{p}-{'-'.join(o)}" for p, o, _ in REFUSED])
def test_check_refuses_naming_the_knobs(preset: str, overrides: dict[str, Any],
                                        message: str) -> None:
    with pytest.raises(RulesError) as caught:
        RuleSet.preset(preset, overrides)
    assert str(caught.value).startswith(message), str(caught.value)


@pytest.mark.parametrize(("preset", "overrides"), [
    ("hoyle", {"swap_needs_down": False, "deuces_wild": True}),  # no swaps at all
    ("arena", {"swap_needs_down": False, "deuces_wild": True}),  # the wild may stay in hand
    ("house", {"swap_needs_down": False, "swapped_joker_must_be_played": False}),
    ("house", {"swap_needs_down": False, "deuces_wild": False}),  # jokers only: see below
    ("classic", {"swap_needs_down": False}),
    ("arena", {"deuces_wild": True}),  # one swap at go-down
    ("arena", {"swap_at_go_down": 3}),  # jokers only: one kind of wild
])
def test_check_accepts_the_neighbours_of_a_refusal(preset: str, overrides: dict[str, Any]
                                                   ) -> None:
    RuleSet.preset(preset, overrides)


# ---- a joker swapped by a player who is not down, and owed to the table ----------------------
# classic (the joker must be played) with swap_needs_down off, contract 2 (a set and a run):
# seat 1 goes down with 9S 9H 9D and 4C 5C JK 7C (JK = 6C); seat 0, not down, holds the 6C.

def _owed_joker_table(seat0: str, **knobs: Any) -> Game:
    g = stacked_game("classic", [seat0, "9S 9H 9D 4C 5C JK 7C KD QS JH 3D"], "8S", "10S 2H",
                     overrides={"swap_needs_down": False, "hands": [2], **knobs},
                     contract_no=2)
    act(g, player=1, type="draw")
    act(g, player=0, type="pass")
    act(g, player=1, type="go_down", melds=[["9S", "9H", "9D"], ["4C", "5C", "JK", "7C"]])
    act(g, player=1, type="discard", card="KD")
    act(g, player=0, type="draw")  # the 2H
    return g


def test_a_player_not_down_swaps_only_when_a_go_down_can_meld_the_joker() -> None:
    # no pair, no run in seat 0's hand: with the joker it still cannot go down, so it could
    # never play the joker this turn (not down: no lay-off; no discard while it is owed). The
    # swap is refused, and not listed; before, it was allowed and left seat 0 with no action.
    g = _owed_joker_table("6C KC QD 10S 8H 2S 4H 3S 5H AD 10D")
    swap = Action.from_json({"player": 0, "type": "swap_joker", "card": "6C", "meld": 1})
    assert "could not go down using the JK" in (g.why_illegal(swap) or "")
    assert swap not in g.legal_actions(0)


def test_the_owed_joker_is_melded_in_the_go_down_or_laid_off_after_it() -> None:
    seat0 = "6C 8H 8S 8D 9D 10D JD QD 3H 4S 5S"
    g = _owed_joker_table(seat0)
    act(g, player=0, type="swap_joker", card="6C", meld=1)
    assert g.must_play == [JOKER]
    listed = g.legal_actions(0)
    assert {a.type for a in listed} == {"go_down"}  # no discard while the joker is owed
    assert any(JOKER in m for m in listed[0].melds or ())  # the listed go-down melds it
    # a go-down that keeps the joker is legal where it can be laid off in the same turn
    act(g, player=0, type="go_down", melds=[["8H", "8S", "8D"], ["9D", "10D", "JD", "QD"]])
    act(g, player=0, type="lay_off", card="JK", meld=3, end="high")
    assert g.must_play == [] and any(a.type == "discard" for a in g.legal_actions(0))
    # ... and refused where it could not be: then the joker goes into the go-down
    g = _owed_joker_table(seat0, layoff_same_turn=False)
    act(g, player=0, type="swap_joker", card="6C", meld=1)
    keep = Action.from_json({"player": 0, "type": "go_down",
                             "melds": [["8H", "8S", "8D"], ["9D", "10D", "JD", "QD"]]})
    assert "meld the JK" in (g.why_illegal(keep) or "")
    act(g, player=0, type="go_down", melds=[["8H", "8S", "8D", "JK"], ["9D", "10D", "JD", "QD"]])
    assert g.must_play == [] and any(a.type == "discard" for a in g.legal_actions(0))


# ---- the dead end a refusal prevents, shown past check() ---------------------------------------

def unchecked_game(preset: str, knobs: dict[str, Any], hands: list[str], upcard: str,
                   stock: str) -> Game:
    """A stacked two-player game (dealer seat 0) under ``knobs`` set without ``check()``."""
    rules = dataclasses.replace(RuleSet.preset(preset), **knobs)
    with pytest.raises(RulesError):
        rules.check()
    deck = stacked_deck(rules, 2, 0, [C(h) for h in hands], C(upcard)[0], C(stock),
                        contract_no=rules.hand_list()[0])
    return Game(rules, 2, seed=1, deals=[deck])


def test_two_go_down_swaps_of_different_wilds_can_be_a_dead_end() -> None:
    # arena with 2s wild and two swaps at go-down: the contract (a set of exactly 3, a run of
    # exactly 4 with 4 naturals) holds one wild at most; seat 0 swaps the 2C out of a set of 8s
    # (a go-down with it exists), then the JK out of a set of 9s (a go-down with the JK
    # exists); but the go-down must now use both wilds, which no go-down can, and nothing
    # else may come between the swaps and the go-down.
    knobs: dict[str, Any] = {
        "deuces_wild": True, "swap_at_go_down": 2, "hands": (1,), "deal_sizes": (11,),
        "naturals": (2, 4), "extra_melds_at_go_down": True,
        "contracts": (Contract(1, 1, set_size=3, run_size=4),)}
    g = unchecked_game("arena", knobs,
                       ["7S 7H 3D 4D 5D 6D 9C 8D KC 4C AC",
                        "9S 9H JK 8H 8S 2C 10H JH QH KH 5C"], "8C", "10S QD")
    act(g, player=1, type="draw")
    act(g, player=0, type="pass")
    act(g, player=1, type="go_down",
        melds=[["9S", "9H", "JK"], ["8H", "8S", "2C"], ["10H", "JH", "QH", "KH"]])
    act(g, player=1, type="discard", card="10S")
    act(g, player=0, type="draw")
    act(g, player=0, type="swap_joker", card="8D", meld=1)
    act(g, player=0, type="swap_joker", card="9C", meld=0)
    assert g.to_act() == (0,) and sorted(g.gd_swaps) == sorted(C("2C JK"))
    assert g.legal_actions(0) == []
    assert "dead end: seat 0" in " ".join(soak.check_can_act(g))  # what the soak run reports
