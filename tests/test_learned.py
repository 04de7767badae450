"""The learned choices (discard, take, buy): features only from what the seat sees, a choice
among the candidates the expert searches, the basic choice where the model was not shown to
help, whole games on every preset, and a training script that gives the same weights from the
same arguments."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import load_script

from liverpool.actions import Action
from liverpool.bots import BasicBot, ExpertBot
from liverpool.bots.discard_weights import WEIGHTS
from liverpool.bots.heuristics import fits_table, keep_values, usefulness
from liverpool.bots.learned import (
    BUY_FLOOR,
    FEATURES,
    KINDS,
    OPTION_FEATURES,
    TAKE_FLOOR,
    LearnedBot,
    candidates,
    contract_kind,
    features,
    learned_discard,
    learned_option,
    option_features,
    option_pair,
)
from liverpool.bots.option_weights import BUY, TAKE
from liverpool.bots.race import race_discard
from liverpool.engine import Game
from liverpool.rules import PRESET_NAMES, RuleSet


def _decision_points(preset: str, players: int, seed: int, phases: tuple[str, ...]
                     ) -> list[tuple[Game, int]]:
    """Decisions of a game among basic bots of a seat not down in one of ``phases``: ``discard``
    (it must discard), ``draw`` or ``buy`` (the top discard may be taken or bought)."""
    game = Game(RuleSet.preset(preset), players, seed=seed)
    rng = random.Random(seed)
    bot = BasicBot()
    out = []
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_actions(seat)
        types = {a.type for a in legal}
        if not game.down[seat] and len(legal) > 1 and (
                ("discard" in phases and types == {"discard"})
                or ("draw" in phases and "take_discard" in types)
                or ("buy" in phases and "buy" in types)):
            out.append((game.clone(), seat))
        game.apply(bot.choose(game.view_for(seat), legal, rng))
    return out


def _discard_points(preset: str, players: int, seed: int) -> list[tuple[Game, int]]:
    return _decision_points(preset, players, seed, ("discard",))


def test_the_weights_have_a_row_per_contract_kind_and_feature() -> None:
    for table, names in ((WEIGHTS, FEATURES), (TAKE, OPTION_FEATURES), (BUY, OPTION_FEATURES)):
        assert set(table) == set(KINDS)
        assert all(len(row) in (0, len(names)) for row in table.values())
    assert any(WEIGHTS.values())  # the discard model is not empty everywhere


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
        race = race_discard(view, legal)
        if race is not None:  # the last hand is a race: its own rule, not the learned choice
            assert bot.candidates(view, legal) == [race]
            continue
        chosen = learned_discard(view, legal)
        if chosen is None:
            continue
        assert bot.candidates(view, legal)[0] == chosen
        seen += 1
    assert seen >= 10


def test_training_is_reproducible(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("train_learned", monkeypatch)
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
    module = load_script("train_learned", monkeypatch)
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


@pytest.mark.parametrize("preset,players", [("arena", 2), ("standard", 4), ("house", 4)])
def test_the_learned_take_and_buy_are_legal_in_their_domain_and_blind(preset: str,
                                                                     players: int) -> None:
    """Where the top discard would help a seat not down, the learned choice is the option or
    the plain one, both legal, and the same in any world the seat cannot tell apart; elsewhere
    (a card of little use, another phase) there is no learned choice."""
    seen = {"take": 0, "buy": 0}
    outside = 0
    for k, (game, seat) in enumerate(_decision_points(preset, players, 4, ("draw", "buy"))):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        pair = option_pair(view, legal)
        top = view.discard[-1]
        use = usefulness([*view.hand, top], view.contract[seat], view.ruleset)[top]
        if pair is None:
            floor = TAKE_FLOOR if view.phase == "draw" else BUY_FLOOR
            assert use < floor or len(view.hand) > 18 or (view.phase == "buy" and \
                not any(a.type == "buy" and a.depth is None for a in legal))
            assert learned_option(view, legal) is None
            outside += 1
            continue
        decision, option, plain = pair
        assert decision == ("take" if view.phase == "draw" else "buy")
        assert option in legal and plain in legal
        assert option.type in ("take_discard", "buy") and plain.type in ("draw", "pass")
        assert len(option_features(view, top)) == len(OPTION_FEATURES)
        chosen = learned_option(view, legal)
        table = TAKE if decision == "take" else BUY
        assert (chosen is None) == (not table[contract_kind(view)])
        assert chosen in (None, option, plain)
        world = game.determinized(seat, random.Random(k))
        assert learned_option(world.view_for(seat), world.legal_actions(seat)) == chosen
        assert option_features(world.view_for(seat), top) == option_features(view, top)
        seen[decision] += 1
    assert seen["take"] >= 5 and outside >= 5
    if preset != "house":
        assert seen["buy"] >= 1


def test_the_expert_defaults_to_the_learned_take_and_buy() -> None:
    bot = ExpertBot(iterations=2)
    seen = 0
    for game, seat in _decision_points("standard", 4, 6, ("draw", "buy")):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        chosen = learned_option(view, legal)
        if chosen is None:
            continue
        assert bot.candidates(view, legal)[0] == chosen
        assert LearnedBot().choose(view, legal, random.Random(0)) == chosen
        seen += 1
    assert seen >= 5 or not any((*TAKE.values(), *BUY.values()))


def test_option_training_is_reproducible(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("train_learned", monkeypatch)
    monkeypatch.setattr(script, "BOTS", tmp_path)
    runs = []
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        script.gen(str(path), [("arena", 2)], 2, 40, 2, 1, 3, "take")
        runs.append(json.loads(path.read_text()))
    assert runs[0] == runs[1] and runs[0]["decision"] == "take"
    positions = runs[0]["positions"]
    assert positions and all(len(x) == len(OPTION_FEATURES) for p in positions for x in p["x"])
    assert all(len(p["y"]) == 2 and not any(p["x"][1]) for p in positions)
    script.fit(str(tmp_path / "a.json"), 10.0, True)
    out = capsys.readouterr().out
    assert "take:" in out and "held out" in out
    written = (tmp_path / "option_weights.py").read_text()
    assert "TAKE:" in written and "BUY:" in written
