"""``liverpool bench ladder``: the ladder's ratings on the players' scale, from a round robin
played in duplicate (docs/bots.md, "The ladder").

Domain words: *pair* (two levels of the ladder), *deal* (one seeded deal of a whole game,
played twice: each level in each seat, the same cards in every hand; ``simulate.duplicate_decks``),
*round robin* (every pair plays ``deals`` deals), *fit* (the Plackett-Luce maximum likelihood of
``botratings.fit``, level 5 held at 1500), *bootstrap* (the fit again over deals drawn with
replacement: a deal's two games go together, since their luck is shared).

Every game is a 2-player game, so the presets are those a table of two may play (standard
needs three), one after another from deal to deal.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .. import compiled
from ..bots import LADDER, LEVELS
from ..ratings import MU
from ..rules import PRESET_NAMES, RuleSet
from ..simulate import GameSpec, game_seed, run_local
from .botratings import (
    BOOTSTRAP,
    MIN_SIGMA,
    IncompleteRun,
    NoEstimate,
    Outcome,
    _percentile,
    check_complete,
    fit,
    outcome_of,
)

ANCHOR = "level:5"
DEFAULT_DEALS = 8  # deals per pair: 16 games (28 pairs: 448 games)
DEFAULT_SEED = 1
PRESETS_FOR_TWO = tuple(p for p in PRESET_NAMES if RuleSet.preset(p).min_players <= 2)


def pairs(levels: Sequence[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(levels, 2))


def schedule(levels: Sequence[str], deals: int, seed: int) -> list[GameSpec]:
    """Every pair's deals, each played twice (the levels swapped), in that order."""
    out: list[GameSpec] = []
    for p, (a, b) in enumerate(pairs(levels)):
        for k in range(deals):
            preset = PRESETS_FOR_TWO[(p + k) % len(PRESETS_FOR_TWO)]
            s = game_seed(seed, p * 100_000 + k)
            for seats in ((a, b), (b, a)):
                out.append(GameSpec(len(out), preset, {}, seats, s, deal=p * 100_000 + k))
    return out


def play(levels: Sequence[str], deals: int, seed: int, workers: int,
         progress: Callable[[int], None] | None = None) -> tuple[list[Outcome], list[int]]:
    """Every game of the round robin and each one's deal; fails unless every game came back
    without an incident."""
    specs = schedule(levels, deals, seed)
    results = run_local(specs, workers, False, progress)
    incidents = [i for r in results for i in r.incidents]
    if incidents:
        raise IncompleteRun(f"{len(incidents)} incidents (a seat's moves were not its bot's)")
    by_index = {s.index: s for s in specs}
    results.sort(key=lambda r: r.index)
    outcomes = [outcome_of(r, by_index[r.index].preset) for r in results]
    check_complete(outcomes, len(specs))
    return outcomes, [by_index[o.index].deal or 0 for o in outcomes]


def save(path: str, outcomes: Sequence[Outcome], deal_of: Sequence[int], deals: int,
         seed: int) -> None:
    """The games as played, to fit again (``load``): written before any fit can fail."""
    data = {"deals_per_pair": deals, "seed": seed,
            "outcomes": [[o.index, o.preset, list(o.levels), list(o.totals), d]
                         for o, d in zip(outcomes, deal_of, strict=True)]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)


def load(path: str) -> tuple[list[Outcome], list[int], int, int]:
    """Outcomes, deals, deals per pair and seed from a file ``save`` wrote."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    outcomes = [Outcome(int(i), str(p), tuple(lv), tuple(int(t) for t in tot))
                for i, p, lv, tot, _ in data["outcomes"]]
    deal_of = [int(row[4]) for row in data["outcomes"]]
    return outcomes, deal_of, int(data["deals_per_pair"]), int(data["seed"])


def bootstrap(outcomes: Sequence[Outcome], deal_of: Sequence[int], levels: Sequence[str],
              resamples: int, seed: int) -> dict[str, list[float]]:
    """Each level's fitted rating over ``resamples`` resamples of the deals (a resample whose
    games do not determine the ratings is drawn again, at most ``resamples`` times in all)."""
    groups: dict[int, list[tuple[str, ...]]] = {}
    for o, d in zip(outcomes, deal_of, strict=True):
        if not o.tied:
            groups.setdefault(d, []).append(o.order())
    keys = sorted(groups)
    rng = random.Random(f"liverpool:ladder:bootstrap:{seed}")
    draws: dict[str, list[float]] = {lv: [] for lv in levels}
    done = tries = 0
    while done < resamples and tries < 2 * resamples:
        tries += 1
        sample: Counter[tuple[str, ...]] = Counter()
        for k in rng.choices(keys, k=len(keys)):
            sample.update(groups[k])
        try:
            again = fit(sample, levels, ANCHOR, MU, open_ended=True)
        except NoEstimate:
            continue
        done += 1
        for lv in levels:
            draws[lv].append(again.mu[lv])
    return draws


def shares(outcomes: Sequence[Outcome]) -> dict[str, dict[str, tuple[float, int]]]:
    """For levels a != b: a's share of their games (a tie counts half) and the games."""
    won: dict[tuple[str, str], float] = {}
    met: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        (la, lb), (ta, tb) = o.levels, o.totals
        for x, y, tx, ty in ((la, lb, ta, tb), (lb, la, tb, ta)):
            met[x, y] += 1
            won[x, y] = won.get((x, y), 0.0) + (1.0 if tx < ty else 0.5 if tx == ty else 0.0)
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for (a, b), n in met.items():
        out.setdefault(a, {})[b] = (won[a, b] / n, n)
    return out


def report(outcomes: Sequence[Outcome], deal_of: Sequence[int], levels: Sequence[str],
           deals: int, seed: int, resamples: int = BOOTSTRAP) -> dict[str, Any]:
    kept = Counter(o.order() for o in outcomes if not o.tied)
    if not kept:
        raise NoEstimate("every game was tied")
    best = fit(kept, levels, ANCHOR, MU, open_ended=True)
    draws = bootstrap(outcomes, deal_of, levels, resamples, seed)
    titles = {lv.name: lv.title for lv in LADDER}
    rows = []
    for lv in levels:
        values = sorted(draws[lv])
        finite = [v for v in values if math.isfinite(v)]
        se = statistics.stdev(finite) if len(finite) > 1 else 0.0
        rows.append({"level": lv, "title": titles.get(lv, ""), "mu": _num(best.mu[lv]),
                     "se": round(se, 1), "sigma": round(max(se, MIN_SIGMA), 1),
                     "ci95": [_num(_percentile(values, 0.025)),
                              _num(_percentile(values, 0.975))],
                     "games": sum(1 for o in outcomes if lv in o.levels)})
    unrated = [row["level"] for row in rows if row["mu"] is None]
    return {"unrated": unrated, "deals_per_pair": deals, "games": len(outcomes), "seed": seed,
            "dropped_tied": sum(1 for o in outcomes if o.tied),
            "anchor": {"level": ANCHOR, "mu": MU}, "bootstrap": resamples,
            "presets": list(PRESETS_FOR_TWO), "levels": rows,
            "shares": {a: {b: {"share": round(s, 3), "games": n} for b, (s, n) in row.items()}
                       for a, row in shares(outcomes).items()},
            # every game, to fit again: [index, preset, levels by seat, totals, deal]
            "outcomes": [[o.index, o.preset, list(o.levels), list(o.totals), d]
                         for o, d in zip(outcomes, deal_of, strict=True)]}


def _num(value: float) -> float | None:
    """A rating rounded, or None for one without a finite maximum (a level that never
    finished above, or never below, the others it met)."""
    return round(value, 1) if math.isfinite(value) else None


def main(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .bars import games_bar

    deals = DEFAULT_DEALS if args.games is None else int(args.games)
    seed = DEFAULT_SEED if args.seed is None else int(args.seed)
    workers = 2 if args.workers is None else int(args.workers)
    err = Console(stderr=True)
    if deals < 1 or workers < 1:
        err.print("liverpool bench ladder: --games (deals per pair) and --workers must be at "
                  "least 1")
        return 2
    levels = list(LEVELS)
    total = len(pairs(levels)) * deals * 2
    started = time.perf_counter()
    try:
        if args.load:
            outcomes, deal_of, deals, seed = load(args.load)
        else:
            with games_bar("ladder round robin", total, err) as advance:
                outcomes, deal_of = play(levels, deals, seed, workers, advance)
            if args.save:
                save(args.save, outcomes, deal_of, deals, seed)
        out = report(outcomes, deal_of, levels, deals, seed,
                     20 if getattr(args, "quick", False) else BOOTSTRAP)
    except KeyboardInterrupt:
        err.print("liverpool bench ladder: interrupted; no ratings")
        return 130
    except (IncompleteRun, NoEstimate) as e:
        err.print(f"liverpool bench ladder: {e}")
        return 1
    except (OSError, ValueError, KeyError, TypeError) as e:
        err.print(f"liverpool bench ladder: cannot read or write the games' file: {e}")
        return 2
    out.update({"workers": workers, "wall_s": round(time.perf_counter() - started, 1),
                "core": compiled.describe(),
                "command": f"liverpool bench ladder --games {deals} --workers {workers} "
                           f"--seed {seed}"})
    unrated = ("liverpool bench ladder: no finite rating for " + ", ".join(out["unrated"])
               + " (never finished above, or below, the levels it met): play more deals")
    if args.json:
        print(json.dumps(out))
        if out["unrated"]:
            err.print(unrated)
        return 1 if out["unrated"] else 0
    console = Console()
    t = Table(title=f"the ladder: {deals} deals a pair, each played both ways "
                    f"({out['games']} 2-player games, {out['dropped_tied']} tied), "
                    f"{ANCHOR} fixed at {MU:g}")
    for col in ("level", "title", "rating", "95% interval", "se", "games"):
        t.add_column(col, justify="left" if col in ("level", "title") else "right")
    for row in out["levels"]:
        low, high = ("open" if v is None else f"{v:.0f}" for v in row["ci95"])
        t.add_row(row["level"], row["title"], "none" if row["mu"] is None else f"{row['mu']:.0f}",
                  "fixed" if row["level"] == ANCHOR else f"{low} to {high}",
                  f"{row['se']:.0f}", str(row["games"]))
    console.print(t)
    m = Table(title="share of the games won by the row's level against the column's")
    m.add_column("")
    for lv in levels:
        m.add_column(lv.split(":")[1], justify="right")
    for a in levels:
        cells = []
        for b in levels:
            cell = out["shares"].get(a, {}).get(b)
            cells.append("" if cell is None else f"{100 * cell['share']:.0f}%")
        m.add_row(a, *cells)
    console.print(m)
    console.print(f"wall time {out['wall_s']:.0f} s, {workers} worker(s), core: {out['core']}")
    if out["unrated"]:
        err.print(unrated)
        return 1
    return 0
