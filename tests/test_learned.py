"""The learned discard: features only from what the seat sees, a choice among the candidates
the expert searches, the basic choice where the model was not shown to help, whole games on
every preset, and a training script that gives the same weights from the same arguments."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import load_script

from liverpool.actions import Action
from liverpool.bots import BasicBot, ExpertBot
from liverpool.bots.discard_weights import WEIGHTS
from liverpool.bots.heuristics import fits_table, keep_values
from liverpool.bots.learned import (
    FEATURES,
    KINDS,
    LearnedBot,
    candidates,
    contract_kind,
    features,
    learned_discard,
)
from liverpool.engine import Game
from liverpool.rules import PRESET_NAMES, RuleSet


def _discard_points(preset: str, players: int, seed: int) -> list[tuple[Game, int]]:
    """Decisions of a game among basic bots where a seat not down must discard."""
    game = Game(RuleSet.preset(preset), players, seed=seed)
    rng = random.Random(seed)
    bot = BasicBot()
    out = []
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_actions(seat)
        if len(legal) > 1 and {a.type for a in legal} == {"discard"} and not game.down[seat]:
            out.append((game.clone(), seat))
        game.apply(bot.choose(game.view_for(seat), legal, rng))
    return out


def test_the_weights_have_a_row_per_contract_kind_and_feature() -> None:
    assert set(WEIGHTS) == set(KINDS)
    assert all(len(row) == len(FEATURES) for row in WEIGHTS.values())


@pytest.mark.parametrize("preset,players", [("arena", 2), ("standard", 4), ("classic", 3)])
def test_the_choice_is_a_searched_candidate_and_blind_to_hidden_cards(preset: str,
                                                                      players: int) -> None:
    checked = differs = 0
    for k, (game, seat) in enumerate(_discard_points(preset, players, seed=21)):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        chosen = learned_discard(view, legal)
        keep = keep_values(view.hand, view.contract[seat], view.ruleset, False, view.melds)
        cands = candidates(view, keep, legal)
        if chosen is None:
            assert len(cands) < 2
            continue
        assert chosen in cands and chosen in legal
        assert chosen.card is not None and not fits_table(chosen.card, view.melds, view.ruleset)
        assert len(features(view, cands, keep)[0]) == len(FEATURES)
        world = game.determinized(seat, random.Random(k))
        assert learned_discard(world.view_for(seat), world.legal_actions(seat)) == chosen
        differs += chosen != BasicBot().decide(view, legal)[0]
        checked += 1
    assert checked >= 20
    assert differs >= 1  # the model is not the basic rule under another name


def test_a_sets_only_contract_keeps_the_basic_choice() -> None:
    """The sets-only row showed no gain held out: the basic bot's choice stays there."""
    seen = 0
    for game, seat in _discard_points("standard", 4, seed=3):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        if contract_kind(view) != "sets":
            continue
        chosen = learned_discard(view, legal)
        if chosen is not None:
            assert chosen == BasicBot().decide(view, legal)[0]
            seen += 1
    assert seen >= 5


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_learned_bot_plays_a_whole_game(preset: str) -> None:
    rules = RuleSet.preset(preset)
    players = max(rules.min_players, 3)
    game = Game(rules, players, seed=8)
    bots = [LearnedBot()] + [BasicBot() for _ in range(players - 1)]
    rng = random.Random(8)
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_actions(seat)
        action = bots[seat].choose(game.view_for(seat), legal, rng)
        assert action in legal
        game.apply(action)
    assert game.winners


def test_the_expert_defaults_to_the_learned_discard() -> None:
    bot = ExpertBot(iterations=2)
    assert bot.learned and bot.name == "expert:2it"
    assert ExpertBot(iterations=2, learned=False).name == "expert:2it+basic-first"
    seen = 0
    for game, seat in _discard_points("arena", 2, seed=11):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        chosen = learned_discard(view, legal)
        if chosen is None:
            continue
        assert bot.candidates(view, legal)[0] == chosen
        seen += 1
    assert seen >= 10


def test_training_is_reproducible(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("train_discard", monkeypatch)
    runs = []
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        script.gen(str(path), [("arena", 2)], 2, 40, 2, 1, 6)
        runs.append(json.loads(path.read_text()))
    assert runs[0] == runs[1]
    positions = runs[0]["positions"]
    assert positions and all(len(x) == len(FEATURES) for p in positions for x in p["x"])
    assert all(len(p["x"]) == len(p["y"]) >= 2 for p in positions)
    script.fit(str(tmp_path / "a.json"), 10.0, False)
    out = capsys.readouterr().out
    assert "training positions" in out and "held out" in out


def test_the_solver_of_the_fit_solves(monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_script("train_discard", monkeypatch)
    a = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]
    x = [1.0, -2.0, 0.5]
    b = [sum(r[j] * x[j] for j in range(3)) for r in a]
    assert module._solve(a, b) == pytest.approx(x)


def test_an_action_list_without_two_candidates_gives_no_learned_choice() -> None:
    game = _discard_points("arena", 2, seed=5)[0][0]
    seat = game.to_act()[0]
    view = game.view_for(seat)
    one = [Action("discard", seat, card=view.hand[0])]
    assert learned_discard(view, one) is None
