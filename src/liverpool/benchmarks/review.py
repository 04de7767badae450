"""``liverpool bench review``: how long a game review takes, and whether it judges well
(docs/review.md gives the method and the last figures).

Domain words: *timing* (one seeded 4-player standard game between basic bots, reviewed for one
seat: the median seconds of ``--repeat`` runs), *study* (seeded games in which a random, a
basic and an expert bot sit with a basic *filler*, rotated through the seats; each game
reviewed for the three *levels*), *game accuracy* (a seat's accuracy over its decisions in one
game), *interval* (the 95% percentile bootstrap of a level's mean game accuracy, resampling
games), *ordered* (expert above basic above random with the intervals apart: the study's
pass), *calibration* (how often the expert's own decisions earn each label, and would under
other thresholds: a label should rarely fall on the expert).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from .. import compiled
from ..review import (
    BLUNDER,
    INACCURACY,
    LABELS,
    MISTAKE,
    NOISE,
    WORLDS,
    Decision,
    SeatReview,
    review,
)
from ..reviewrun import review_jobs
from ..simulate import GameSpec, game_seed, play_game, run_local, specs_for

TARGET_S = 60.0  # the timing's target: one seat of a 7-hand game, 2 workers
LEVELS = ("random", "basic", "expert")
TABLE = ("random", "basic", "expert", "basic")  # the last basic only fills the table
DEFAULT_GAMES = 30
DEFAULT_SEED = 1
DEFAULT_WORKERS = 2
BOOTSTRAP = 2000
# other thresholds (inaccuracy, mistake, blunder, noise in standard errors) the calibration
# tries on the expert's losses
WHAT_IF = ((INACCURACY, MISTAKE, BLUNDER, NOISE), (8.0, 16.0, 32.0, NOISE),
           (12.0, 24.0, 48.0, NOISE), (INACCURACY, MISTAKE, BLUNDER, 3.0),
           (12.0, 24.0, 48.0, 3.0))


def timing_game(seed: int) -> dict[str, Any]:
    """The timing's game: 4 basic bots on the standard rules, seeded."""
    spec = GameSpec(0, "standard", {}, ("basic",) * 4, game_seed(seed, 0))
    rec = play_game(spec, keep_record=True).record
    assert rec is not None
    return rec


def time_review(rec: dict[str, Any], worlds: int, workers: int, repeat: int,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Seat 0 of ``rec`` reviewed ``repeat`` times: each run's seconds and their median."""
    runs: list[float] = []
    decisions = 0
    for _ in range(repeat):
        started = time.perf_counter()
        r = review(rec, [0], worlds, workers, progress)
        runs.append(time.perf_counter() - started)
        decisions = len(r.seats[0].decisions)
    median = statistics.median(runs)
    return {"seconds": round(median, 1), "runs_s": [round(x, 1) for x in runs],
            "decisions": decisions, "actions": len(rec.get("actions", [])),
            "target_s": TARGET_S, "within_target": median <= TARGET_S}


def bootstrap_ci(values: Sequence[float], seed: int, rounds: int = BOOTSTRAP) -> tuple[float,
                                                                                       float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (resampled with a
    seeded generator: the same values give the same interval)."""
    n = len(values)
    if n < 2:
        v = values[0] if values else 0.0
        return (v, v)
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(rounds))
    return (means[int(0.025 * rounds)], means[min(rounds - 1, int(0.975 * rounds))])


def seats_of(bots: Sequence[str]) -> dict[str, int]:
    """The seat of each reviewed level at a table (the first basic seat is the reviewed one:
    the table is rotated, so which basic that is changes with the game)."""
    out: dict[str, int] = {}
    shift = next(k for k in range(len(TABLE))
                 if tuple(TABLE[(s - k) % len(TABLE)] for s in range(len(TABLE))) == tuple(bots))
    for i, level in enumerate(TABLE[:len(LEVELS)]):
        out[level] = (i + shift) % len(TABLE)
    return out


def would_label(d: Decision, thresholds: tuple[float, float, float, float]) -> str | None:
    """The label ``d`` would earn under other thresholds and noise rule."""
    low, mid, high, noise = thresholds
    if d.loss <= noise * d.se:
        return None
    if d.loss >= high:
        return "blunder"
    if d.loss >= mid:
        return "mistake"
    if d.loss >= low:
        return "inaccuracy"
    return None


def summarise(per_level: dict[str, list[SeatReview]], seed: int) -> dict[str, Any]:
    """Each level's figures over the games, whether they are ordered, and the calibration."""
    levels: dict[str, Any] = {}
    for k, level in enumerate(LEVELS):
        reviews = per_level[level]
        acc = [r.accuracy for r in reviews]
        games = len(reviews)
        decisions = [d for r in reviews for d in r.decisions]
        low, high = bootstrap_ci(acc, seed * 31 + k)
        levels[level] = {
            "games": games, "accuracy": round(statistics.fmean(acc), 1) if acc else 0.0,
            "ci95": [round(low, 1), round(high, 1)],
            "mean_loss": round(statistics.fmean(d.loss for d in decisions), 2)
            if decisions else 0.0,
            "decisions_per_game": round(len(decisions) / games, 1) if games else 0.0,
            "labels_per_game": {lab: round(sum(r.labels()[lab] for r in reviews) / games, 2)
                                if games else 0.0 for lab in LABELS}}
    e, b, r = (levels[x]["ci95"] for x in ("expert", "basic", "random"))
    ordered = e[0] > b[1] and b[0] > r[1]
    expert = [d for rv in per_level["expert"] for d in rv.decisions]
    games = max(1, len(per_level["expert"]))
    share = {lab: round(sum(1 for d in expert if d.label == lab) / max(1, len(expert)), 4)
             for lab in LABELS}
    losses = sorted(d.loss for d in expert)

    def quantile(q: float) -> float:
        return round(losses[min(len(losses) - 1, int(q * len(losses)))], 1) if losses else 0.0
    what_if = []
    for th in WHAT_IF:
        labels = [would_label(d, th) for d in expert]
        what_if.append({"thresholds": list(th),
                        "per_game": {lab: round(labels.count(lab) / games, 2) for lab in LABELS}})
    return {"levels": levels, "ordered": ordered,
            "expert": {"decisions": len(expert), "share": share,
                       "loss_quantiles": {"50": quantile(0.5), "90": quantile(0.9),
                                          "95": quantile(0.95), "99": quantile(0.99)},
                       "what_if": what_if}}


def study(games: int, worlds: int, workers: int, seed: int,
          played: Callable[[int], None] | None = None,
          weighed: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The accuracy study: ``games`` seeded games, each reviewed for its three levels."""
    specs = specs_for(games, "standard", {}, TABLE, seed)
    results = run_local(specs, workers, True, played)
    jobs: list[tuple[dict[str, Any], list[int]]] = []
    seats: list[dict[str, int]] = []
    for res in results:
        assert res.record is not None
        where = seats_of(res.bots)
        seats.append(where)
        jobs.append((res.record, sorted(where.values())))
    reviews = review_jobs(jobs, worlds, workers, "local", weighed)
    per_level: dict[str, list[SeatReview]] = {level: [] for level in LEVELS}
    for where, rv in zip(seats, reviews, strict=True):
        by_seat = {s.seat: s for s in rv.seats}
        for level, seat in where.items():
            per_level[level].append(by_seat[seat])
    return summarise(per_level, seed)


def main(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table

    games = DEFAULT_GAMES if args.games is None else int(args.games)
    seed = DEFAULT_SEED if args.seed is None else int(args.seed)
    workers = DEFAULT_WORKERS if args.workers is None else int(args.workers)
    worlds = WORLDS if getattr(args, "worlds", None) is None else int(args.worlds)
    repeat = int(getattr(args, "repeat", None) or 3)
    part = getattr(args, "part", None) or "both"
    err = Console(stderr=True)
    if games < 1 or workers < 1 or worlds < 2 or repeat < 1:
        err.print("liverpool bench review: --games, --workers and --repeat must be at least 1, "
                  "--worlds at least 2")
        return 2
    out: dict[str, Any] = {"worlds": worlds, "workers": workers, "seed": seed,
                           "core": compiled.describe(),
                           "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE,
                                          "blunder": BLUNDER, "noise_se": NOISE}}
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    started = time.perf_counter()
    try:
        if part in ("time", "both"):
            rec = timing_game(seed)
            with Progress(TextColumn("timing: decisions weighed"), *columns, console=err,
                          transient=True) as bar:
                task = bar.add_task("timing", total=None)

                def weighed_t(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)
                out["timing"] = time_review(rec, worlds, workers, repeat, weighed_t)
        if part in ("study", "both"):
            with Progress(TextColumn("study: {task.description}"), *columns, console=err,
                          transient=True) as bar:
                play_task = bar.add_task("games played", total=games)
                weigh_task = bar.add_task("decisions weighed", total=None)

                def played(k: int) -> None:
                    bar.advance(play_task, k)

                def weighed(done: int, total: int) -> None:
                    bar.update(weigh_task, completed=done, total=total)
                out["study"] = study(games, worlds, workers, seed, played, weighed)
                out["study"]["games"] = games
    except KeyboardInterrupt:
        err.print("liverpool bench review: interrupted; no figures")
        return 130
    out["wall_s"] = round(time.perf_counter() - started, 1)
    out["command"] = (f"liverpool bench review --part {part} --games {games} --worlds {worlds} "
                      f"--workers {workers} --seed {seed} --repeat {repeat}")
    ok = out["study"]["ordered"] if "study" in out else True
    if args.json:
        print(json.dumps(out))
    else:
        console = Console()
        if "timing" in out:
            t = out["timing"]
            console.print(f"timing: one seat of a 4-player standard game between basic bots "
                          f"({t['actions']} actions, {t['decisions']} decisions), {worlds} "
                          f"worlds, {workers} workers: {t['seconds']} s, median of "
                          f"{len(t['runs_s'])} ({', '.join(map(str, t['runs_s']))}); target "
                          f"{TARGET_S:.0f} s: " + ("met" if t["within_target"] else "MISSED"))
        if "study" in out:
            s = out["study"]
            table = Table(title=f"review accuracy by level: {games} games, {worlds} worlds, "
                                f"seed {seed} (loss: mean per decision; decisions and "
                                f"?! inaccuracies, ? mistakes, ?? blunders: per game)")
            # (narrow headings: the table fits 80 columns)
            for col in ("level", "accuracy", "95% interval", "loss", "decs.", "?!", "?", "??"):
                table.add_column(col, justify="left" if col == "level" else "right")
            for level in reversed(LEVELS):
                row = s["levels"][level]
                table.add_row(level, f"{row['accuracy']:.1f}",
                              f"{row['ci95'][0]:.1f} to {row['ci95'][1]:.1f}",
                              f"{row['mean_loss']:.2f}", f"{row['decisions_per_game']:.0f}",
                              *(f"{row['labels_per_game'][lab]:.2f}" for lab in LABELS))
            console.print(table)
            ex = s["expert"]
            console.print("the expert's own decisions (" + str(ex["decisions"]) + "): "
                          + ", ".join(f"{lab} {100 * ex['share'][lab]:.1f}%" for lab in LABELS)
                          + "; loss quantiles " + ", ".join(
                              f"{q}%: {v}" for q, v in ex["loss_quantiles"].items()))
            w = Table(title="the expert's labels per game under other thresholds")
            w.add_column("thresholds / noise (se)", justify="left")
            for col in ("inaccuracies", "mistakes", "blunders"):
                w.add_column(col, justify="right")
            for row in ex["what_if"]:
                th = row["thresholds"]
                w.add_row(" / ".join(f"{x:g}" for x in th[:3]) + f", {th[3]:g} se",
                          *(f"{row['per_game'][lab]:.2f}" for lab in LABELS))
            console.print(w)
            if ok:
                console.print("[green]ordered: expert > basic > random, the intervals apart[/]")
            else:
                console.print("[bold red]NOT ORDERED: the review's accuracy does not put expert "
                              "> basic > random with the 95% intervals apart[/]")
        console.print(f"{out['wall_s']} s in all; core: {out['core']}")
    return 0 if ok else 1
