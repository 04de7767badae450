"""The bot-ratings fit (``liverpool.benchmarks.botratings``) on synthetic games, no simulation:
orders drawn from known Plackett-Luce strengths are fitted back, the anchor stays put, and a run
that lost a game gives no rating."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from liverpool.benchmarks.botratings import (
    IncompleteRun,
    NoEstimate,
    Outcome,
    check_complete,
    fit,
    measure,
    table_for,
)
from liverpool.ratings import BETA

TRUE = {"random": 900.0, "basic": 1500.0, "expert": 1800.0}
TABLES = [("basic", "expert"), ("random", "basic"), ("random", "basic", "expert"),
          ("random", "basic", "basic", "expert")]


def synthetic(games: int, seed: int = 3) -> list[Outcome]:
    """Games whose finishing orders follow the model with the ``TRUE`` ratings; the totals are
    the places times ten (no ties)."""
    rng = random.Random(seed)
    out = []
    for i in range(games):
        levels = list(TABLES[i % len(TABLES)])
        rng.shuffle(levels)
        c = BETA * math.sqrt(len(levels))
        left = list(range(len(levels)))
        totals = [0] * len(levels)
        for place in range(len(levels)):
            weights = [math.exp(TRUE[levels[s]] / c) for s in left]
            seat = rng.choices(left, weights=weights)[0]
            left.remove(seat)
            totals[seat] = 10 * place
        out.append(Outcome(i, "hoyle", tuple(levels), tuple(totals)))
    return out


def test_known_strengths_are_fitted_back() -> None:
    games = synthetic(4000)
    result = fit(games, ("random", "basic", "expert"))
    assert result.mu["basic"] == 1500.0
    for level in ("random", "expert"):
        # within four standard errors of the truth, and the errors are of a sensible size
        assert abs(result.mu[level] - TRUE[level]) < 4 * result.hessian_se[level]
        assert 5 < result.hessian_se[level] < 60


def test_the_anchor_stays_and_the_bootstrap_covers_the_truth() -> None:
    games = synthetic(1200, seed=5)
    estimates = {e.level: e for e in measure(games, 1200, resamples=60, seed=1)}
    assert estimates["basic"].mu == 1500.0 and estimates["basic"].se == 0.0
    assert estimates["basic"].sigma == 40.0  # at least 40 even where nothing is uncertain
    for level in ("random", "expert"):
        e = estimates[level]
        assert e.low < e.mu < e.high
        assert e.low - 2 * e.se < TRUE[level] < e.high + 2 * e.se
        assert 0.5 < e.se / e.hessian_se < 2  # the bootstrap agrees with the curvature


def test_moving_the_anchor_moves_everyone_alike() -> None:
    games = synthetic(800)
    a = fit(games, ("random", "basic", "expert"))
    b = fit(games, ("random", "basic", "expert"), anchor_mu=1000.0)
    for level in ("random", "basic", "expert"):
        assert b.mu[level] == pytest.approx(a.mu[level] - 500.0, abs=1e-4)


def test_a_missing_game_fails_the_run() -> None:
    games = synthetic(200)
    check_complete(games, 200)
    with pytest.raises(IncompleteRun):
        measure(games[:57] + games[58:], 200, resamples=5)
    with pytest.raises(IncompleteRun):
        check_complete(games + games[:1], 200)  # a game counted twice is no better
    with pytest.raises(IncompleteRun):
        check_complete(games[:199], 200)


def test_tied_games_are_dropped() -> None:
    games = synthetic(400)
    tied = [Outcome(400 + i, "house", ("basic", "expert"), (50, 50)) for i in range(100)]
    assert fit(games, ("random", "basic", "expert")).mu == \
        fit(games + tied, ("random", "basic", "expert")).mu


def test_a_level_that_never_wins_has_no_finite_rating() -> None:
    games = [Outcome(i, "hoyle", ("random", "basic"), (100, 0)) for i in range(50)]
    with pytest.raises(NoEstimate, match="random never finished above"):
        fit(games, ("random", "basic"))
    orders = Counter({("basic", "random"): 40, ("random", "basic"): 10})
    # 10 wins in 50: the logistic answer, 354 * ln(1/4) below the anchor
    assert fit(orders, ("random", "basic")).mu["random"] == \
        pytest.approx(1500 + BETA * math.sqrt(2) * math.log(10 / 40), abs=1e-3)


def test_the_schedule_is_seeded_and_fits_every_preset() -> None:
    assert table_for(17, 1) == table_for(17, 1)
    seen = {table_for(i, 1) for i in range(1250)}
    assert {p for p, _ in seen} == {"hoyle", "classic", "arena", "standard", "house"}
    assert all(len(seats) >= 3 for p, seats in seen if p == "standard")
    pairs = {frozenset((a, b)) for _, seats in seen for a in seats for b in seats if a != b}
    assert pairs == {frozenset(("random", "basic")), frozenset(("basic", "expert")),
                     frozenset(("random", "expert"))}


def test_a_resample_without_a_win_counts_as_unbounded_not_as_a_failure() -> None:
    # one random win in 300: many resamples have none; the bootstrap must still finish
    games = [Outcome(i, "hoyle", ("random", "basic"), (0, 100) if i == 0 else (100, 0))
             for i in range(300)]
    games += [Outcome(300 + i, "house", ("basic", "expert"), (100, 0) if i % 3 else (0, 100))
              for i in range(300)]
    estimates = {e.level: e for e in measure(games, 600, resamples=200, seed=2)}
    random_ = estimates["random"]
    assert 0 < random_.open_resamples < 200
    assert random_.low == -math.inf and math.isfinite(random_.high)
    assert estimates["expert"].open_resamples == 0
    assert math.isfinite(estimates["expert"].low)
    separated = fit(Counter({("basic", "random"): 5, ("expert", "basic"): 3,
                             ("basic", "expert"): 2}), ("random", "basic", "expert"),
                    open_ended=True)
    assert separated.mu["random"] == -math.inf and math.isfinite(separated.mu["expert"])
