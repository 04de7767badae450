"""The ladder of levels (``level:1`` to ``level:8``): how each level is built, the older names as
aliases, the careless levels' slips, the searched hint, and ``liverpool bench ladder``'s round
robin in duplicate and its fit (on made-up outcomes: the real run is a benchmark).

Domain words: *level*, *alias*, *slip* (bots/ladder.py); *deal* and *pair* (benchmarks/ladder.py).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from test_bots import going_down_position

from liverpool.bots import (
    ALIASES,
    LADDER,
    LEVELS,
    SEARCH_PREFERS,
    BasicBot,
    BotSpecError,
    ExpertBot,
    RandomBot,
    SlipBot,
    canonical,
    hint,
    level_of,
    make_bot,
    searched_hint,
)
from liverpool.bots.hints import view_key
from liverpool.bots.learned import LearnedBot
from liverpool.cli import main as cli_main
from liverpool.ratings import bot_rating
from liverpool.rules import RuleSet
from liverpool.simulate import duplicate_decks

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# ---- the levels --------------------------------------------------------------------------------
def test_eight_levels_weakest_first_each_named_as_its_level() -> None:
    assert tuple(f"level:{n}" for n in range(1, 9)) == LEVELS
    for lv in LADDER:
        bot = make_bot(lv.name)
        assert bot.name == lv.name and lv.title and lv.about
    # the careless levels slip less as they climb; the searching ones search more
    slips = [make_bot(f"level:{n}") for n in (2, 3, 4)]
    assert all(isinstance(b, SlipBot) and isinstance(b.inner, BasicBot) for b in slips)
    assert [b.slip for b in slips] == sorted((b.slip for b in slips), reverse=True)  # type: ignore[attr-defined]
    # level 6 answers at once with the learned discard; the two above it search, more and more
    assert isinstance(make_bot("level:6"), LearnedBot)
    experts = [make_bot(f"level:{n}") for n in (7, 8)]
    assert all(isinstance(b, ExpertBot) and b.learned for b in experts)  # type: ignore[attr-defined]
    budgets = [(b.iterations, b.most) for b in experts]  # type: ignore[attr-defined]
    assert budgets == sorted(budgets) and len(set(budgets)) == 2


def test_the_first_names_are_aliases_of_levels_1_5_and_7() -> None:
    assert ALIASES == {"random": "level:1", "basic": "level:5", "expert": "level:7"}
    assert isinstance(make_bot("random"), RandomBot) and make_bot("random").name == "random"
    assert isinstance(make_bot("level:1"), RandomBot)
    assert type(make_bot("basic")) is type(make_bot("level:5")) is BasicBot
    alias, level = make_bot("expert"), make_bot("level:7")
    assert isinstance(alias, ExpertBot) and isinstance(level, ExpertBot)
    assert (alias.iterations, alias.most, alias.name) == (level.iterations, level.most, "expert")
    assert canonical("Expert") == "level:7" and canonical("expert:4it") == "expert:4it"
    assert level_of(" LEVEL:3 ") is LADDER[2] and level_of("level:9") is None
    # the same rating whichever name a game stored
    assert bot_rating("expert") == bot_rating("level:7") is not None
    assert bot_rating("basic") == bot_rating("level:5") is not None


@pytest.mark.parametrize("spec", ["level:0", "level:9", "level:", "level:3it", "level:05x"])
def test_a_level_off_the_ladder_is_refused_in_words(spec: str) -> None:
    with pytest.raises(BotSpecError) as info:
        make_bot(spec)
    assert "level:1 to level:8" in str(info.value)


def test_the_expert_with_a_range_of_worlds() -> None:
    bot = ExpertBot(iterations=16, most=64)
    assert (bot.iterations, bot.most, bot.name) == (16, 64, "expert:16-64it")
    for bad in ({"most": 8}, {"iterations": 8, "most": 4}):
        with pytest.raises(ValueError, match="most"):
            ExpertBot(**bad)  # type: ignore[arg-type]


# ---- slips -----------------------------------------------------------------------------------
def test_a_slip_misses_the_meld_as_often_as_not_and_never_plays_illegally() -> None:
    game = going_down_position()
    view, legal = game.view_for(1), game.legal_actions(1)
    kinds = {a.type for a in legal}
    assert "go_down" in kinds and len(kinds) >= 2
    careless = SlipBot(BasicBot(), 1.0, "careless")
    picked = Counter(careless.choose(view, legal, random.Random(i)).type for i in range(400))
    assert set(picked) <= kinds
    # a kind at a time, uniformly: going down about one time in len(kinds)
    share = picked["go_down"] / 400
    assert abs(share - 1 / len(kinds)) < 0.08, picked
    # never slipping is the inner bot's play; slips come from the seat's own RNG (replayable)
    steady = SlipBot(BasicBot(), 0.0, "steady")
    assert steady.choose(view, legal, random.Random(1)) == BasicBot().choose(view, legal,
                                                                               random.Random(1))
    half = SlipBot(BasicBot(), 0.5, "half")
    assert [half.choose(view, legal, random.Random(i)) for i in range(30)] == \
        [half.choose(view, legal, random.Random(i)) for i in range(30)]
    with pytest.raises(ValueError, match="probability"):
        SlipBot(BasicBot(), 1.5, "x")


# ---- the searched hint -------------------------------------------------------------------------
def test_the_hint_is_the_strongest_levels_with_the_habits_reason_where_they_agree() -> None:
    game = going_down_position()
    view, legal = game.view_for(1), game.legal_actions(1)
    action, reason = searched_hint(view, legal)
    basic, why = hint(view, legal)
    assert action in legal
    # going down at once is no decision the expert searches: the habit's move and reason
    assert (action, reason) == (basic, why)
    assert searched_hint(view, legal) == (action, reason)


def test_the_searched_hint_is_a_function_of_the_view() -> None:
    # whole seeded games of arena: at each decision of seat 0 with a choice, the hint is legal,
    # the same when asked twice, and worded as the habit's or the search's
    from liverpool.engine import Game
    rules = RuleSet.preset("arena")
    game = Game(rules, 2, seed=5)
    bots = [BasicBot(), BasicBot()]
    rng = random.Random(5)
    asked = 0
    while not game.over and asked < 12:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        view = game.view_for(seat)
        if seat == 0 and len(legal) > 1 and game.phase.value in ("draw", "play"):
            bot = make_bot("expert:4it")
            a, why = searched_hint(view, legal, bot)
            assert a in legal and (why == SEARCH_PREFERS or why == hint(view, legal)[1])
            assert searched_hint(view, legal, make_bot("expert:4it")) == (a, why)
            assert view_key(view) == view_key(game.view_for(seat))
            asked += 1
        game.apply(bots[seat].choose(view, legal, rng))
    assert asked == 12


# ---- liverpool levels ------------------------------------------------------------------------
def test_liverpool_levels_lists_the_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["levels", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["levels"]
    assert [r["level"] for r in rows] == list(LEVELS)
    assert [r["alias"] for r in rows if r["alias"]] == ["random", "basic", "expert"]
    assert all(r["rating"] is None or r["rating"]["mu"] == bot_rating(r["level"]).mu  # type: ignore[union-attr]
               for r in rows)
    assert cli_main(["levels"]) == 0
    text = capsys.readouterr().out
    assert "level:8" in text and "Master" in text and "expert" in text


# ---- the round robin in duplicate ----------------------------------------------------------------
def test_the_round_robin_plays_every_pair_each_deal_both_ways() -> None:
    from liverpool.benchmarks.ladder import PRESETS_FOR_TWO, pairs, schedule
    levels = ["level:1", "level:5", "level:7"]
    specs = schedule(levels, 3, seed=1)
    assert len(specs) == len(pairs(levels)) * 3 * 2 == 18
    assert sorted(s.index for s in specs) == list(range(18))
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for s in specs:
        assert RuleSet.preset(s.preset).min_players <= 2 and s.preset in PRESETS_FOR_TWO
        by_deal.setdefault(s.deal, []).append(s.bots)  # type: ignore[arg-type]
    assert all(len(games) == 2 and games[0] == games[1][::-1] for games in by_deal.values())
    for d in by_deal:
        twins = [s for s in specs if s.deal == d]
        assert twins[0].seed == twins[1].seed and twins[0].preset == twins[1].preset
        # the same cards in every hand for both games of a deal
        rules = RuleSet.preset(twins[0].preset)
        assert duplicate_decks(rules, 2, twins[0].seed) == duplicate_decks(rules, 2,
                                                                             twins[1].seed)
    assert {frozenset(g[0]) for g in by_deal.values()} == {frozenset(p) for p in pairs(levels)}


def made_up_outcomes(strength: dict[str, float], deals: int, seed: int):  # type: ignore[no-untyped-def]
    """Outcomes of a round robin where the stronger level of a pair wins a game with the
    logistic probability of their difference (a deal's two games share its luck)."""
    from liverpool.benchmarks.botratings import Outcome
    from liverpool.benchmarks.ladder import pairs
    rng = random.Random(seed)
    outcomes, deal_of = [], []
    for p, (a, b) in enumerate(pairs(list(strength))):
        for k in range(deals):
            luck = rng.gauss(0, 0.5)
            for seats in ((a, b), (b, a)):
                x = strength[seats[0]] - strength[seats[1]] + luck * (1 if seats[0] == a else -1)
                first_wins = rng.random() < 1 / (1 + 2.718281828 ** (-x))
                totals = (10, 90) if first_wins else (90, 10)
                outcomes.append(Outcome(len(outcomes), "arena", seats, totals))
                deal_of.append(p * 1000 + k)
    return outcomes, deal_of


def test_the_fit_orders_the_levels_and_holds_level_5_at_1500() -> None:
    from liverpool.benchmarks.ladder import report
    strength = {"level:1": -2.0, "level:3": -0.5, "level:5": 0.0, "level:7": 1.0}
    outcomes, deal_of = made_up_outcomes(strength, 40, seed=3)
    out = report(outcomes, deal_of, list(strength), 40, 3, resamples=50)
    rows = {r["level"]: r for r in out["levels"]}
    assert rows["level:5"]["mu"] == 1500.0 and out["unrated"] == []
    mus = [rows[lv]["mu"] for lv in strength]
    assert mus == sorted(mus)
    for lv in ("level:1", "level:3", "level:7"):
        low, high = rows[lv]["ci95"]
        assert low < rows[lv]["mu"] < high
    assert len(out["outcomes"]) == len(outcomes)
    share = out["shares"]["level:7"]["level:1"]
    assert share["games"] == 80 and share["share"] > 0.7


def test_a_level_that_never_won_is_reported_unrated_not_given_a_number() -> None:
    from liverpool.benchmarks.botratings import Outcome
    from liverpool.benchmarks.ladder import report
    strength = {"level:1": -1.0, "level:5": 0.0, "level:7": 1.0}
    outcomes, deal_of = made_up_outcomes(strength, 20, seed=4)
    # level:1 loses every game it played
    fixed = [Outcome(o.index, o.preset, o.levels,
                     (90, 10) if o.levels[0] == "level:1" else
                     (10, 90) if o.levels[1] == "level:1" else o.totals) for o in outcomes]
    out = report(fixed, deal_of, list(strength), 20, 4, resamples=20)
    assert out["unrated"] == ["level:1"]
    assert next(r for r in out["levels"] if r["level"] == "level:1")["mu"] is None


def test_the_games_are_saved_before_the_fit_and_fitted_again_from_the_file(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from liverpool.benchmarks.ladder import load, save
    strength = {lv: 0.3 * k for k, lv in enumerate(LEVELS)}
    outcomes, deal_of = made_up_outcomes(strength, 6, seed=5)
    path = tmp_path / "games.json"
    save(str(path), outcomes, deal_of, 6, 5)
    assert load(str(path)) == (outcomes, deal_of, 6, 5)
    assert cli_main(["bench", "ladder", "--load", str(path), "--json"]) in (0, 1)
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == len(outcomes) and out["deals_per_pair"] == 6
    assert [r["level"] for r in out["levels"]] == list(LEVELS)
    # a file that is not the games' is refused in words, and nothing is fitted
    path.write_text("{\"outcomes\": 3}")
    assert cli_main(["bench", "ladder", "--load", str(path), "--json"]) == 2
    assert "cannot read" in capsys.readouterr().err
