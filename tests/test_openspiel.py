"""The OpenSpiel game ``python_liverpool``: chance nodes deal the packs, OpenSpiel's own random
simulation checks, serialization, resampling from an information state, rewards against the
engine's scores, and OpenSpiel's ISMCTS bot against the basic bot."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from liverpool import openspiel  # noqa: E402  (registers the game)
from liverpool.cards import new_deck  # noqa: E402
from liverpool.rl import codec  # noqa: E402
from liverpool.rules import RuleSet  # noqa: E402


def load(rules: str = "arena", players: int = 2, hands: int = 1) -> object:
    return pyspiel.load_game(openspiel.GAME_NAME,
                             {"rules": rules, "players": players, "hands": hands})


def play(state: object, rng: random.Random, decisions: int) -> object:
    """Random chance outcomes and random tokens until ``decisions`` tokens were chosen (or the
    game ended)."""
    made = 0
    while not state.is_terminal() and made < decisions:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1
    return state


def test_chance_deals_the_pack_by_copies_left() -> None:
    game = load()
    state = game.new_initial_state()
    pack = Counter(new_deck(RuleSet.preset("arena").decks_for(2), 2))
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert outcomes == {c: pytest.approx(k / sum(pack.values())) for c, k in pack.items()}
    state.apply_action(52)  # a joker
    after = dict(state.chance_outcomes())
    assert sum(after.values()) == pytest.approx(1.0)
    assert after[52] == pytest.approx((pack[52] - 1) / (sum(pack.values()) - 1))
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert state.engine is not None
    rest = pack - Counter([52])
    assert state.engine.deals[0] == [52, *sorted(rest.elements())]  # in the order chosen
    assert state.current_player() == state.engine.to_act()[0]
    assert game.num_distinct_actions() == codec.SIZE


@pytest.mark.parametrize(("rules", "players"), [("hoyle", 2), ("classic", 2), ("arena", 2),
                                                ("standard", 3), ("house", 2)])
def test_openspiel_random_simulation(rules: str, players: int) -> None:
    pyspiel.random_sim_test(load(rules, players), num_sims=1, serialize=True, verbose=False)


def test_serialize_round_trip_mid_action() -> None:
    game = load()
    rng = random.Random(4)
    state = play(game.new_initial_state(), rng, 60)
    # stop inside a multi-token action when one comes, to carry pending tokens
    for _ in range(200):
        if state._core.prefix:
            break
        play(state, rng, 1)
    assert state._core.prefix, "no multi-token action came to carry pending tokens"
    for text, back in ((state.serialize(), game.deserialize_state),
                       (pyspiel.serialize_game_and_state(game, state),
                        lambda t: pyspiel.deserialize_game_and_state(t)[1])):
        copy = back(text)
        assert copy.history() == state.history()
        assert copy.legal_actions() == state.legal_actions()
        for p in range(2):
            assert copy.observation_tensor(p) == state.observation_tensor(p)
            assert copy.information_state_string(p) == state.information_state_string(p)
    assert json.loads(state.serialize())["history"] == state.history()


def test_resample_keeps_the_information_state_and_deals_hidden_cards_again() -> None:
    game = load()
    state = play(game.new_initial_state(), random.Random(7), 40)
    seat = state.current_player()
    other = 1 - seat
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = set()
    for _ in range(5):
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert world.current_player() == state.current_player()
        assert world.legal_actions() == state.legal_actions()
        assert world.history()[-20:] == state.history()[-20:]  # the same tokens
        hands.add(world.engine.view_for(other).hand)
    assert len(hands - {state.engine.view_for(other).hand}) >= 1


def test_returns_are_minus_the_engine_totals_and_the_sum_of_rewards() -> None:
    game = load(hands=2)  # two hands: the second pack is dealt by chance between them
    state = game.new_initial_state()
    rng = random.Random(11)
    summed = np.zeros(2)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        summed += state.rewards()
        state.apply_action(rng.choice(state.legal_actions()))
    summed += state.rewards()
    engine = state.engine
    assert engine.over and len(engine.scores) == 2
    assert state.returns() == [-float(t) for t in engine.totals]
    assert list(summed) == state.returns()


def test_ismcts_plays_the_basic_bot() -> None:
    shares = openspiel.play_ismcts_vs_basic(1, seed=3, simulations=2, say=None)
    assert sum(shares) == pytest.approx(1.0)


def test_the_ismcts_match_is_the_same_in_every_process() -> None:
    # the search resamples worlds: from a seeded sampler, not the device-seeded default,
    # else the same seeded match ends differently from one process to the next
    import os
    import subprocess
    import sys
    code = ("from liverpool.openspiel import play_ismcts_vs_basic; "
            "play_ismcts_vs_basic(2, seed=5, simulations=4)")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=300,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout
            for h in (0, 1)]
    assert outs[0].count("game ") == 2 and outs[0] == outs[1]
