"""``liverpool bench bot-ratings``: the built-in bots' ratings on the scale of ``ratings.py``,
measured by simulation (docs/ratings-bots.md gives the method and the last measurement).

Domain words: *schedule* (which levels sit at game ``i`` and on which preset: a fixed cycle, the
seat order shuffled from the seed and the game's index), *outcome* (one game's levels per seat
and total points), *order* (a game's levels from first place to last; a game with a tie is
*dropped* from the fit, see ``fit``), *anchor* (the basic bot, fixed at 1500), *fit* (the
Plackett-Luce model's maximum likelihood over every kept game's order), *bootstrap* (the fit
again over games drawn with replacement: the spread of those fits is the uncertainty).

The model is the one OpenSkill's Plackett-Luce update assumes for players whose ratings are
well known (sigma near 0): in a game of ``n`` seats, the seat with rating ``mu`` finishes first
among the seats still unplaced with a probability proportional to ``exp(mu / c)``, where
``c = beta * sqrt(n)`` (beta = 250). So two ratings ``d`` apart in a 2-player game mean the
better finishes first with probability ``1 / (1 + exp(-d / 354))``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import compiled
from ..ratings import BETA, MU, places
from ..rules import PRESET_NAMES, RuleSet
from ..simulate import GameResult, GameSpec, game_seed, run_local

LEVELS = ("random", "basic", "expert")  # the first three bots (the ladder: benchmarks/ladder.py)
ANCHOR = "basic"
DEFAULT_GAMES = 7500  # six whole cycles: 300 games with the expert (about an hour, one core)
DEFAULT_SEED = 1
BOOTSTRAP = 1000  # resamples of the games
MIN_SIGMA = 40.0  # the least sigma written into ratings.BOT_RATINGS

# The schedule's cycle, played on each of the five presets in turn (game i is on preset
# i % 5): one table with the expert, then 24 without (they cost almost nothing and pin the
# random bot). The expert plays the basic bot alone (the most informative game per second of
# the expert's thinking); every tenth expert table adds the random bot so every pair meets.
EXPERT_TABLE = ("basic", "expert")
ALL_THREE = ("random", "basic", "expert")
CHEAP = (("random", "basic"),) * 4 + (("random", "basic", "basic"),
                                       ("random", "basic", "basic", "basic"))
SUBCYCLE = 1 + 4 * len(CHEAP)  # tables per sub-cycle: one with the expert, 24 without
CYCLE = len(PRESET_NAMES) * SUBCYCLE * 10  # 1250 games: every table kind on every preset


class IncompleteRun(RuntimeError):
    """A run that lost or skipped games (its numbers would not be the schedule's)."""


class NoEstimate(RuntimeError):
    """No finite maximum: a level never finished above (or never below) the others."""


# ---- the schedule ----------------------------------------------------------------------------

def table_for(index: int, seed: int) -> tuple[str, tuple[str, ...]]:
    """Game ``index``'s preset and levels per seat. A preset that needs more seats than the
    table has (``standard``: at least 3) gets basic bots added."""
    preset = PRESET_NAMES[index % len(PRESET_NAMES)]
    sub, pos = divmod(index // len(PRESET_NAMES), SUBCYCLE)
    levels: tuple[str, ...]
    if pos == 0:
        levels = ALL_THREE if sub % 10 == 9 else EXPERT_TABLE
    else:
        levels = CHEAP[(pos - 1) % len(CHEAP)]
    seats = list(levels)
    while len(seats) < RuleSet.preset(preset).min_players:
        seats.append(ANCHOR)
    random.Random(f"liverpool:bot-ratings:{seed}:{index}").shuffle(seats)
    return preset, tuple(seats)


def schedule(games: int, seed: int) -> list[GameSpec]:
    out = []
    for i in range(games):
        preset, seats = table_for(i, seed)
        out.append(GameSpec(i, preset, {}, seats, game_seed(seed, i)))
    return out


# ---- outcomes --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Outcome:
    """One game: its index, preset, the level at each seat, and each seat's total points."""

    index: int
    preset: str
    levels: tuple[str, ...]
    totals: tuple[int, ...]

    @property
    def places(self) -> tuple[int, ...]:
        return places(self.totals)

    @property
    def tied(self) -> bool:
        return len(set(self.totals)) < len(self.totals)

    def order(self) -> tuple[str, ...]:
        """The levels from first place to last (for a game without a tie)."""
        return tuple(lv for _, lv in sorted(zip(self.totals, self.levels, strict=True)))


def outcome_of(result: GameResult, preset: str) -> Outcome:
    return Outcome(result.index, preset, tuple(result.bots), tuple(result.totals))


def check_complete(outcomes: Sequence[Outcome], games: int) -> None:
    """Raise ``IncompleteRun`` unless there is exactly one outcome for each game 0..games-1."""
    seen = Counter(o.index for o in outcomes)
    missing = [i for i in range(games) if i not in seen]
    extra = sorted(i for i, k in seen.items() if k > 1 or not 0 <= i < games)
    if missing or extra or len(outcomes) != games:
        raise IncompleteRun(
            f"{len(outcomes)} outcomes for {games} games: "
            f"{len(missing)} missing (first {missing[:5]}), {len(extra)} extra or repeated "
            f"(first {extra[:5]}): no rating from an incomplete run")


# ---- the fit ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Fit:
    """Ratings at the likelihood's maximum, and their standard errors from its curvature."""

    mu: dict[str, float]
    hessian_se: dict[str, float]  # 0 for the anchor
    loglik: float


def _stats(mu: dict[str, float], free: Sequence[str],
           orders: Counter[tuple[str, ...]]) -> tuple[float, list[float], list[list[float]]]:
    """Log-likelihood, its gradient and Hessian in the free levels' ratings."""
    k = len(free)
    at = {lv: j for j, lv in enumerate(free)}
    ll = 0.0
    grad = [0.0] * k
    hess = [[0.0] * k for _ in range(k)]
    for order, w in orders.items():
        c = BETA * math.sqrt(len(order))
        x = [mu[lv] / c for lv in order]
        for stage in range(len(order) - 1):
            rest = x[stage:]
            top = max(rest)
            weights = [math.exp(v - top) for v in rest]
            total = sum(weights)
            ll += w * (x[stage] - top - math.log(total))
            share = [0.0] * k  # each free level's probability of finishing first here
            for lv, e in zip(order[stage:], weights, strict=True):
                if lv in at:
                    share[at[lv]] += e / total
            if order[stage] in at:
                grad[at[order[stage]]] += w / c
            for a in range(k):
                grad[a] -= w * share[a] / c
                for b in range(k):
                    hess[a][b] -= w * ((share[a] if a == b else 0.0) - share[a] * share[b]) / c / c
    return ll, grad, hess


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (a is small)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-300:
            raise NoEstimate("the games do not determine every rating (singular curvature)")
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for cc in range(col, n + 1):
                    m[r][cc] -= f * m[col][cc]
    return [m[i][n] / m[i][i] for i in range(n)]


def _separated(orders: Counter[tuple[str, ...]], levels: Sequence[str]) -> dict[str, float]:
    """Levels that never finished above a seat of another level (-inf), or never below one
    (+inf): their likelihood has no finite maximum."""
    above: Counter[str] = Counter()
    below: Counter[str] = Counter()
    for order in orders:
        for i, lv in enumerate(order):
            if any(o != lv for o in order[i + 1:]):
                above[lv] += 1
            if any(o != lv for o in order[:i]):
                below[lv] += 1
    return {lv: -math.inf if not above[lv] else math.inf
            for lv in levels if not above[lv] or not below[lv]}


def fit(outcomes: Iterable[Outcome] | Counter[tuple[str, ...]], levels: Sequence[str],
        anchor: str = ANCHOR, anchor_mu: float = MU, open_ended: bool = False) -> Fit:
    """The Plackett-Luce maximum likelihood over the games' orders, ``anchor`` held at
    ``anchor_mu``. Games with a tie are dropped (see docs/ratings-bots.md). A level that never
    finished above (below) another has no finite rating: ``NoEstimate``, or with ``open_ended``
    (a bootstrap's resample) -inf (+inf) and the others fitted without its seats."""
    if isinstance(outcomes, Counter):
        orders = outcomes
    else:
        orders = Counter(o.order() for o in outcomes if not o.tied)
    if anchor not in levels:
        raise ValueError(f"the anchor {anchor!r} is not among the levels")
    unknown = {lv for order in orders for lv in order} - set(levels)
    if unknown:
        raise ValueError(f"levels without a rating to fit: {sorted(unknown)}")
    infinite: dict[str, float] = {}
    while sep := _separated(orders, [lv for lv in levels if lv not in infinite]):
        lv, value = next(iter(sep.items()))
        side = "above" if value < 0 else "below"
        if not open_ended or lv == anchor:
            raise NoEstimate(f"{lv} never finished {side} another level: no finite rating")
        infinite.update(sep)
        reduced: Counter[tuple[str, ...]] = Counter()
        for order, w in orders.items():
            rest = tuple(o for o in order if o not in sep)
            if len(rest) > 1:
                reduced[rest] += w
        orders = reduced
    levels = [lv for lv in levels if lv not in infinite]
    free = [lv for lv in levels if lv != anchor]
    mu = {lv: anchor_mu for lv in levels}
    ll, grad, hess = _stats(mu, free, orders)
    for _ in range(200):
        step = _solve(hess, [-g for g in grad])  # Newton: the log-likelihood is concave
        scale = 1.0
        while True:
            trial = dict(mu)
            for lv, s in zip(free, step, strict=True):
                trial[lv] += scale * s
            t_ll, t_grad, t_hess = _stats(trial, free, orders)
            if t_ll >= ll - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        mu, ll, grad, hess = trial, t_ll, t_grad, t_hess
        if max((abs(scale * s) for s in step), default=0.0) < 1e-7:
            break
    else:
        raise NoEstimate("the fit did not converge")
    cov_cols = [_solve(hess, [-1.0 if i == j else 0.0 for i in range(len(free))])
                for j in range(len(free))]
    se = {lv: math.sqrt(max(0.0, cov_cols[j][j])) for j, lv in enumerate(free)}
    se[anchor] = 0.0
    for lv, value in infinite.items():
        mu[lv], se[lv] = value, math.inf
    return Fit(mu, se, ll)


@dataclass(frozen=True, slots=True)
class Estimate:
    level: str
    mu: float
    se: float  # the bootstrap's standard deviation (0 for the anchor)
    low: float  # 95% interval: the bootstrap's 2.5th and 97.5th percentiles
    high: float
    hessian_se: float
    open_resamples: int = 0  # resamples where the level had no finite rating (counted as +-inf)

    @property
    def sigma(self) -> float:
        """The sigma to give the level's fixed rating: the standard error, at least 40."""
        return max(self.se, MIN_SIGMA)


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    if math.isinf(sorted_values[lo]) or math.isinf(sorted_values[hi]):
        return sorted_values[lo] if pos - lo < 0.5 else sorted_values[hi]
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def measure(outcomes: Sequence[Outcome], games: int, levels: Sequence[str] = LEVELS,
            resamples: int = BOOTSTRAP, seed: int = DEFAULT_SEED,
            anchor: str = ANCHOR) -> list[Estimate]:
    """Every level's rating with a bootstrap over the kept games (resampled with replacement,
    seeded from ``seed``). Fails with ``IncompleteRun`` unless all ``games`` are there. A
    resample where a level never finished above (below) another counts as -inf (+inf) for it:
    the interval is then open on that side if such resamples are more than 2.5%, and the
    standard error is over the finite resamples."""
    check_complete(outcomes, games)
    kept = [o.order() for o in outcomes if not o.tied]
    if not kept:
        raise NoEstimate("every game was tied")
    best = fit(Counter(kept), levels, anchor)
    counts = Counter(kept)
    keys = list(counts)
    cum = list(_cumulative(counts[k] for k in keys))
    rng = random.Random(f"liverpool:bot-ratings:bootstrap:{seed}")
    draws: dict[str, list[float]] = {lv: [] for lv in levels}
    for _ in range(resamples):
        sample = Counter(rng.choices(keys, cum_weights=cum, k=len(kept)))
        again = fit(sample, levels, anchor, open_ended=True)
        for lv in levels:
            draws[lv].append(again.mu[lv])
    out = []
    for lv in levels:
        values = sorted(draws[lv])
        finite = [v for v in values if math.isfinite(v)]
        se = statistics.stdev(finite) if len(finite) > 1 else 0.0
        low, high = (_percentile(values, 0.025), _percentile(values, 0.975)) if values \
            else (best.mu[lv], best.mu[lv])
        out.append(Estimate(lv, best.mu[lv], se, low, high, best.hessian_se[lv],
                            len(values) - len(finite)))
    return out


def _cumulative(values: Iterable[int]) -> Iterable[int]:
    total = 0
    for v in values:
        total += v
        yield total


# ---- description of the games ----------------------------------------------------------------

def mean_places(outcomes: Iterable[Outcome]) -> dict[str, tuple[int, int, float]]:
    """Per level: games it sat in, seats it held, and its mean place (ties share a place)."""
    games: Counter[str] = Counter()
    seats: Counter[str] = Counter()
    place_sum: Counter[str] = Counter()
    for o in outcomes:
        for lv in set(o.levels):
            games[lv] += 1
        for lv, p in zip(o.levels, o.places, strict=True):
            seats[lv] += 1
            place_sum[lv] += p
    return {lv: (games[lv], seats[lv], place_sum[lv] / seats[lv]) for lv in seats}


def pairwise(outcomes: Iterable[Outcome]) -> dict[str, dict[str, tuple[float, int]]]:
    """For levels a != b: the share of (a seat, b seat) pairs of the same game where a finished
    above b (a tie counts half), and the number of such pairs."""
    won: dict[tuple[str, str], float] = {}
    met: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        for i, (la, ta) in enumerate(zip(o.levels, o.totals, strict=True)):
            for j, (lb, tb) in enumerate(zip(o.levels, o.totals, strict=True)):
                if i == j or la == lb:
                    continue
                met[la, lb] += 1
                won[la, lb] = won.get((la, lb), 0.0) + (1.0 if ta < tb else 0.5 if ta == tb
                                                        else 0.0)
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for (a, b), n in sorted(met.items()):
        out.setdefault(a, {})[b] = (won[a, b] / n, n)
    return out


def table_kinds(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """Games per table kind (the sorted levels, e.g. ``basic+expert``)."""
    kinds = Counter("+".join(sorted(o.levels)) for o in outcomes)
    return dict(sorted(kinds.items()))


def per_preset(outcomes: Sequence[Outcome], levels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per preset: each level's games and mean place, and its rating fitted on that preset's
    games alone (None where it has no finite maximum: e.g. the random bot on a preset where it
    never beat anyone; the others are then fitted without its seats)."""
    out: dict[str, dict[str, Any]] = {}
    for preset in PRESET_NAMES:
        mine = [o for o in outcomes if o.preset == preset]
        if not mine:
            continue
        places_ = mean_places(mine)
        try:
            f: Fit | None = fit(mine, levels, open_ended=True)
            why = ""
        except NoEstimate as e:
            f, why = None, str(e)
        out[preset] = {lv: {"games": places_[lv][0], "mean_place": places_[lv][2],
                            "mu": _num(f.mu[lv]) if f else None,
                            "hessian_se": _num(f.hessian_se[lv]) if f else None}
                       for lv in levels if lv in places_}
        if why:
            out[preset]["no_fit"] = why
    return out


# ---- the command -----------------------------------------------------------------------------

def _num(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def report(outcomes: Sequence[Outcome], games: int, seed: int,
           resamples: int = BOOTSTRAP) -> dict[str, Any]:
    estimates = measure(outcomes, games, LEVELS, resamples, seed)
    where = mean_places(outcomes)
    tied = sum(1 for o in outcomes if o.tied)
    return {
        "games": games, "seed": seed, "kept": games - tied, "dropped_tied": tied,
        "anchor": {"level": ANCHOR, "mu": MU}, "bootstrap": resamples,
        "levels": [{"level": e.level, "mu": round(e.mu, 1), "se": round(e.se, 1),
                    "ci95": [_num(e.low), _num(e.high)],  # None: open on that side
                    "hessian_se": round(e.hessian_se, 1), "sigma": round(e.sigma, 1),
                    "open_resamples": e.open_resamples,
                    "games": where[e.level][0], "seats": where[e.level][1],
                    "mean_place": round(where[e.level][2], 3)} for e in estimates],
        "pairwise": {a: {b: {"above": round(s, 4), "pairs": n} for b, (s, n) in row.items()}
                     for a, row in pairwise(outcomes).items()},
        "table_kinds": table_kinds(outcomes),
        "per_preset": per_preset(outcomes, LEVELS),
    }


def play(games: int, seed: int, workers: int,
         progress: Callable[[int], None] | None = None) -> list[Outcome]:
    """Every game of the schedule, through the simulator's runner; fails unless all came back
    with no incident."""
    specs = schedule(games, seed)
    results = run_local(specs, workers, False, progress)
    incidents = [i for r in results for i in r.incidents]
    if incidents:
        raise IncompleteRun(f"{len(incidents)} incidents (a seat's moves were not its bot's)")
    by_index = {s.index: s.preset for s in specs}
    outcomes = [outcome_of(r, by_index[r.index]) for r in results]
    check_complete(outcomes, games)
    return outcomes


def main(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .bars import games_bar

    games = DEFAULT_GAMES if args.games is None else int(args.games)
    seed = DEFAULT_SEED if args.seed is None else int(args.seed)
    workers = 1 if args.workers is None else int(args.workers)
    err = Console(stderr=True)
    if games < 1 or workers < 1:
        err.print("liverpool bench bot-ratings: --games and --workers must be at least 1")
        return 2
    started = time.perf_counter()
    try:
        with games_bar("bot ratings", games, err) as advance:
            outcomes = play(games, seed, workers, advance)
    except KeyboardInterrupt:
        err.print("liverpool bench bot-ratings: interrupted; no ratings")
        return 130
    except IncompleteRun as e:
        err.print(f"liverpool bench bot-ratings: {e}")
        return 1
    played = time.perf_counter() - started
    try:
        out = report(outcomes, games, seed)
    except (IncompleteRun, NoEstimate) as e:
        err.print(f"liverpool bench bot-ratings: {e}")
        return 1
    out.update({"workers": workers, "wall_s": round(time.perf_counter() - started, 1),
                "play_s": round(played, 1), "core": compiled.describe(),
                "command": f"liverpool bench bot-ratings --games {games} --workers {workers} "
                           f"--seed {seed}"})
    if args.json:
        print(json.dumps(out))
        return 0
    console = Console()
    t = Table(title=f"bot ratings: {games} games ({out['dropped_tied']} tied, dropped), "
                    f"seed {seed}, basic fixed at {MU:g}")
    for col in ("level", "rating", "95% interval", "se", "games", "mean place"):
        t.add_column(col, justify="left" if col == "level" else "right")
    for row in out["levels"]:
        low, high = ("open" if v is None else f"{v:.0f}" for v in row["ci95"])
        t.add_row(row["level"], f"{row['mu']:.0f}",
                  "fixed" if row["level"] == ANCHOR else f"{low} to {high}",
                  f"{row['se']:.0f}", str(row["games"]), f"{row['mean_place']:.2f}")
    console.print(t)
    p = Table(title="per preset: mean place (rating fitted on that preset alone)")
    p.add_column("preset")
    for lv in LEVELS:
        p.add_column(lv, justify="right")
    for preset, row in out["per_preset"].items():
        cells = []
        for lv in LEVELS:
            cell = row.get(lv)
            if not isinstance(cell, dict):
                cells.append("-")
                continue
            rating = "" if cell["mu"] is None else f" ({cell['mu']:.0f})"
            cells.append(f"{cell['mean_place']:.2f}{rating}")
        p.add_row(preset, *cells)
    console.print(p)
    console.print(f"tables: {out['table_kinds']}")
    console.print(f"wall time {out['wall_s']:.0f} s ({out['play_s']:.0f} s playing), "
                  f"{workers} worker(s), core: {out['core']}")
    return 0

