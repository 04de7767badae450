"""``liverpool review``: a recorded game's decisions judged by the expert, in the terminal.

Domain words: *record* (a game's JSON: rules, players, seed or deals, actions), *review* (per
seat: accuracy, mean points lost, labels, by kind, the worst decisions with what was better and
why: liverpool.review), *move number* (an action's index in the record plus one, as the watch
counts moves).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from .record import RecordError, ReplayError, replay
from .review import KINDS, LABELS, WORLDS, Review, SeatReview, action_words, review

BADGES = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def load_record(path: str) -> dict[str, Any]:
    """The record in ``path``, replayed once to check it: ``SystemExit`` with the reason (and
    the move number) when it is not a whole, legal game record."""
    try:
        rec = json.loads(Path(path).read_text())
    except OSError as e:
        raise SystemExit(f"liverpool review: cannot read {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise SystemExit(f"liverpool review: {path} is not JSON: {e}") from None
    if not isinstance(rec, dict):
        raise SystemExit(f"liverpool review: {path} is not a game record (a JSON object)")
    try:
        result = replay(rec)
    except (RecordError, ReplayError) as e:
        raise SystemExit(f"liverpool review: {path}: {e}") from None
    if result.error is not None:
        raise SystemExit(f"liverpool review: {path}: action {result.error['number']} is "
                         f"illegal: {result.error['reason']}")
    return rec


def seats_wanted(args: argparse.Namespace, players: int) -> list[int]:
    if args.all:
        return list(range(players))
    seat = 0 if args.seat is None else int(args.seat)
    if not 0 <= seat < players:
        raise SystemExit(f"liverpool review: --seat must be 0 to {players - 1} (the game has "
                         f"{players} players)")
    return [seat]


def seat_lines(s: SeatReview, console: Console) -> None:
    labels = s.labels()
    plural = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
    counts = ", ".join(f"{labels[lab]} {lab if labels[lab] == 1 else plural[lab]}"
                       for lab in LABELS)
    console.print(f"[bold]{s.name}[/bold] (seat {s.seat}): accuracy [bold]{s.accuracy:.1f}[/bold],"
                  f" {s.mean_loss:.1f} points lost per decision on average; {counts}")
    table = Table(show_edge=False)
    for col in ("kind", "decisions", "accuracy", "mean loss"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    kinds = s.by_kind()
    for kind in KINDS:
        if kind in kinds:
            k = kinds[kind]
            table.add_row(kind.replace("_", " "), str(int(k["decisions"])),
                          f"{k['accuracy']:.1f}", f"{k['mean_loss']:.1f}")
    console.print(table)
    worst = s.worst()
    if worst:
        console.print("The worst decisions:")
        for d in worst:
            console.print(f"  move {d.index + 1} (hand {d.hand}): {action_words(d.action)} "
                          f"{BADGES[d.label or '']} {d.label}, -{d.loss:.0f} ± {d.se:.0f} points."
                          f" {d.why}")
    labelled = [d for d in s.decisions if d.label is not None and d not in worst]
    if labelled:
        console.print("Also:")
        for d in labelled:
            console.print(f"  move {d.index + 1} (hand {d.hand}): {action_words(d.action)} "
                          f"{BADGES[d.label or '']} better: {action_words(d.best)} "
                          f"(-{d.loss:.0f} ± {d.se:.0f})")
    console.print()


def main(args: argparse.Namespace) -> int:
    if args.worlds is None:
        args.worlds = WORLDS
    if int(args.worlds) < 2:
        raise SystemExit("liverpool review: --worlds must be at least 2 (a loss needs a spread)")
    workers = int(args.workers) or os.cpu_count() or 1
    target = Path(args.record)
    if target.is_dir():
        return review_dir(args, target, workers)
    rec = load_record(args.record)
    players = rec.get("players")
    n = len(players) if isinstance(players, list) else 0
    seats = seats_wanted(args, n)
    err = Console(stderr=True)
    with Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task("decisions", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
        result = review(rec, seats, int(args.worlds), workers, progress)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print_review(result, Console())
    return 0


def print_review(result: Review, console: Console) -> None:
    console.print(f"Each decision weighed in {result.worlds} worlds dealt from what the seat "
                  f"knew then; loss in points of the hand (docs/review.md).\n")
    for s in result.seats:
        seat_lines(s, console)


def review_dir(args: argparse.Namespace, folder: Path, workers: int) -> int:
    """Every record in ``folder``, weighed as one batch (``--backend ray`` spreads it): a
    table per seat."""
    from .reviewrun import ReviewRunError, records_in, review_many
    paths = records_in(folder)
    if not paths:
        raise SystemExit(f"liverpool review: no records (*.json) in {folder}")
    for p in paths:
        load_record(str(p))  # each checked whole first: a bad one is named before any work
    seats = None if args.all else [0 if args.seat is None else int(args.seat)]
    err = Console(stderr=True)
    try:
        with Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=err, transient=True) as bar:
            task = bar.add_task("decisions", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)
            results = review_many(paths, seats, int(args.worlds), workers, args.backend,
                                  progress)
    except ReviewRunError as e:
        raise SystemExit(f"liverpool review: {e}") from None
    if args.json:
        print(json.dumps({"games": [{"file": path, **r.to_json()}
                                    for path, r in results.items()]}))
        return 0
    console = Console()
    table = Table(title=f"{len(results)} games reviewed, {int(args.worlds)} worlds a decision")
    for col in ("game", "seat", "name", "accuracy", "mean loss", *LABELS):
        table.add_column(col, justify="left" if col in ("game", "name") else "right")
    for path, r in results.items():
        for s in r.seats:
            labels = s.labels()
            table.add_row(Path(path).name, str(s.seat), s.name, f"{s.accuracy:.1f}",
                          f"{s.mean_loss:.1f}", *(str(labels[lab]) for lab in LABELS))
    console.print(table)
    return 0
