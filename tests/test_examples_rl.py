"""The learning example (examples/train_reinforce.py, examples/policy_bot.py): training runs end
to end, a project bot plays whole decisions inside the environment, the features read the
observation right, and the trained policy plays through the bot protocol as it plays in the
environment."""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from liverpool.actions import Action
from liverpool.bots import RandomBot
from liverpool.cards import rank_of
from liverpool.engine import Game, SeatView
from liverpool.rl import codec, env
from liverpool.rl.codec import Choice
from liverpool.rl.observe import observe
from liverpool.rules import RuleSet
from liverpool.simulate import play_game, specs_for

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import train_reinforce as tr  # noqa: E402
from policy_bot import PolicyBot  # noqa: E402

SHORT = {"hands": [1, 2]}


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rl") / "w.npz"
    assert tr.main(["--smoke", "--seed", "3", "--out", str(out)]) == 0
    return out


def test_training_smoke_saves_weights_and_prints_the_table(
        weights: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the fixture ran main once; run it again here to see its output
    assert tr.main(["--smoke", "--seed", "3", "--out", str(weights.with_name("again.npz"))]) == 0
    text = capsys.readouterr().out
    rows = dict(line.split("  ", 1) for line in text.splitlines() if "  " in line
                and not line.startswith(" "))
    assert rows["games"].strip() == "2"
    assert "95%:" in rows["agent's win share vs level:1"]
    for key in ("agent's mean points per hand", "level:1's mean points per hand"):
        assert float(rows[key]) >= 0
    policy = tr.Policy.load(weights)
    assert policy.theta.shape == (policy.features.size,) == (200,)
    assert np.isfinite(policy.theta).all() and policy.theta.any()  # it took learning steps
    # the same seed trains the same weights
    again = tr.Policy.load(weights.with_name("again.npz"))
    assert np.array_equal(policy.theta, again.theta)


def test_seat_bot_plays_a_bots_whole_decisions_inside_the_environment() -> None:
    e = env(rules="arena", players=2, seed=4, overrides=SHORT)
    e.reset(seed=4)
    raw = e.unwrapped
    rewards = {a: 0.0 for a in raw.possible_agents}
    rng = random.Random(4)
    decisions = 0
    for agent in e.agent_iter():
        if raw.terminations[agent] or raw.truncations[agent]:
            e.step(None)
            continue
        before = len(raw.game.actions)
        tr.seat_bot(e, RandomBot(), rng)
        # one engine action per call, nothing left half spelled
        assert len(raw.game.actions) == before + 1
        assert raw.choice.prefix == () or raw.game.over
        for a, r in raw.rewards.items():
            rewards[a] += r
        decisions += 1
    game = raw.game
    assert game.over and decisions == len(game.actions)
    assert [-rewards[a] for a in raw.possible_agents] == list(game.totals)


class FewestMelds:
    """Goes down with as few melds as it may (where the rules let a go-down lay down more),
    else plays at random: its go-downs end on STOP in the id space."""

    name = "fewest melds"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if any(a.type == "go_down" for a in legal):
            assert view.seat is not None
            world = Game.from_view(view, rng)
            return min(world.go_down_combinations(view.seat), key=lambda a: len(a.melds or ()))
        return RandomBot().choose(view, legal, rng)


def test_seat_bot_ends_a_go_down_that_could_go_on_with_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    e = env(rules="arena", players=2, overrides={"hands": [1, 2, 3],
                                                 "extra_melds_at_go_down": True})
    e.reset(seed=6)
    raw = e.unwrapped
    sent: list[int | None] = []
    step = e.step

    def counted(token: int | None) -> None:
        sent.append(token)
        step(token)
    monkeypatch.setattr(e, "step", counted)
    rng = random.Random(6)
    for agent in e.agent_iter():
        if raw.terminations[agent] or raw.truncations[agent]:
            e.step(None)
            continue
        before = len(raw.game.actions)
        tr.seat_bot(e, FewestMelds(), rng)
        assert len(raw.game.actions) == before + 1  # the go-down was not left half spelled
    assert raw.game.over and codec.STOP in sent


def test_features_read_the_cards_of_the_observation() -> None:
    rules = RuleSet.preset("arena")
    game = Game(rules, 2, seed=11)
    while game.phase.value != "play":  # draw (and pass any buy) until a seat is to discard
        seat = game.to_act()[0]
        game.apply(next(a for a in game.legal_actions(seat) if a.type in ("draw", "pass")))
    seat = game.to_act()[0]
    view = game.view_for(seat)
    feats = tr.Features(rules, 2)
    ids = Choice(game, seat).legal()
    rows = feats(observe(view, (), feats.layout), ids)
    facts = tr.CARD_FACTS
    base = feats.card_base  # the "out" group comes first
    checked = 0
    for row, token in zip(rows, ids, strict=True):
        if not codec.DISCARD <= token < codec.GIVE:
            continue
        checked += 1
        card = token - codec.DISCARD
        got = dict(zip(facts, row[base:base + len(facts)], strict=True))
        assert got["points"] == pytest.approx(rules.points(card) / 20)
        if card != 52:  # the joker has no rank to match
            others = sum(1 for c in view.hand if rank_of(c) == rank_of(card) and c != 52) - 1
            assert got["same_rank"] == pytest.approx(min(others, 3) / 3)
        assert got["copies"] == pytest.approx((view.hand.count(card) - 1) / 2)
        # the kind's context: a bias of 1 in the DISCARD kind's columns, nothing elsewhere
        kind = tr.KIND_NAMES.index("DISCARD") * feats.context_size
        assert row[kind] == 1 and row[:kind].sum() == 0
    assert checked == len(set(view.hand))  # every card held may be thrown


def spelled_in_game(policy: tr.Policy, game: Game, seat: int) -> Any:
    """The action the greedy policy spells at the real table (as in the environment)."""
    choice = Choice(game, seat)
    view = game.view_for(seat)
    while True:
        ids = choice.legal()
        token = ids[0] if len(ids) == 1 else policy.pick(
            observe(view, choice.prefix, policy.features.layout), ids, None)[0]
        done = choice.choose(token)
        if done is not None:
            return done


def test_policy_bot_chooses_on_a_world_what_it_chooses_at_the_table(weights: Path) -> None:
    policy = tr.Policy.load(weights)
    bot = PolicyBot(policy)
    game = Game(RuleSet.preset("arena", SHORT), 2, seed=8)
    rng = random.Random(8)
    compared = 0
    while not game.over and compared < 60:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        mine = bot.choose(game.view_for(seat), legal, rng)
        assert mine == spelled_in_game(policy, game, seat)
        compared += 1
        game.apply(RandomBot().choose(game.view_for(seat), legal, rng))
    assert compared == 60


def test_policy_bot_plays_a_game_through_the_bot_protocol(weights: Path) -> None:
    bot = f"cmd:{sys.executable} {ROOT / 'examples' / 'policy_bot.py'} --weights {weights}"
    spec = specs_for(1, "arena", {"hands": [1]}, [bot, "level:1"], seed=5)[0]
    result = play_game(spec)
    assert result.incidents == []  # every answer was the policy's own, none the fallback's
    assert len(result.hand_points) == 1 and len(result.totals) == 2
