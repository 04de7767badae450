"""Many recorded games reviewed at once: on this machine's processes or on a Ray cluster.

Domain words: *batch* (the records reviewed together: the decisions of all of them weighed as
one list, so every worker stays busy to the last game), *backend* (``local``: processes of
this machine, as ``review.run_tasks`` uses them; ``ray``: tasks of a Ray cluster, started
here unless an address is given), *chunk* (the decisions one Ray task weighs in a row).

Each decision is weighed exactly as ``review.review`` weighs it (its worlds seeded by the
seat's view and the decision's index), so a batch gives each record the review it would get
alone, whatever the backend and the worker count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .raysession import ray_session
from .record import RecordError, ReplayError
from .review import WORLDS, Review, SeatReview, Task, Weighed, judge, run_tasks, tasks_of, weigh

BACKENDS = ("local", "ray")


class ReviewRunError(ValueError):
    """A file of the batch that is not a record the review can replay (the file is named)."""


def records_in(folder: Path | str) -> list[Path]:
    """The game records of a folder (its ``*.json`` files), in name order."""
    return sorted(p for p in Path(folder).glob("*.json") if p.is_file())


def load_record(path: Path | str) -> dict[str, Any]:
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ReviewRunError(f"{path}: cannot read it: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ReviewRunError(f"{path}: not JSON: {e}") from e
    if not isinstance(rec, dict):
        raise ReviewRunError(f"{path}: a record is a JSON object")
    return rec


def review_records(recs: Sequence[dict[str, Any]], seats: Iterable[int] | None = None,
                   worlds: int = WORLDS, workers: int = 1, backend: str = "local",
                   progress: Callable[[int, int], None] | None = None,
                   address: str | None = None,
                   names: Sequence[str] | None = None) -> list[Review]:
    """Each record's review of ``seats`` (None: every seat), in the records' order.
    ``progress(done, total)`` counts the batch's decisions; ``names`` label the records in
    errors (default: their positions)."""
    wanted = None if seats is None else sorted(set(seats))
    return review_jobs([(rec, wanted) for rec in recs], worlds, workers, backend, progress,
                       address, names)


def review_jobs(jobs: Sequence[tuple[dict[str, Any], Iterable[int] | None]],
                worlds: int = WORLDS, workers: int = 1, backend: str = "local",
                progress: Callable[[int, int], None] | None = None,
                address: str | None = None,
                names: Sequence[str] | None = None) -> list[Review]:
    """Each job's review: a record and the seats to review in it (None: every seat)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: one of {', '.join(BACKENDS)}")
    batch: list[Task] = []
    shells: list[tuple[dict[int, SeatReview], list[Task]]] = []
    for k, (rec, seats) in enumerate(jobs):
        label = names[k] if names is not None else f"record {k + 1}"
        wanted = None if seats is None else sorted(set(seats))
        try:
            game, tasks = tasks_of(rec, wanted, worlds)
        except (RecordError, ReplayError) as e:
            raise ReviewRunError(f"{label}: {e}") from e
        chosen = wanted if wanted is not None else list(range(game.n))
        if any(s >= game.n or s < 0 for s in chosen):
            raise ReviewRunError(f"{label}: the game has {game.n} seats")
        shells.append(({s: SeatReview(s, game.players[s]) for s in chosen}, tasks))
        batch.extend(tasks)
    if backend == "ray":
        scores = run_ray(batch, workers, address, progress)
    else:
        scores = run_tasks(batch, workers, progress)
    out: list[Review] = []
    at = 0
    for seat_reviews, tasks in shells:
        for task, task_scores in zip(tasks, scores[at:at + len(tasks)], strict=True):
            seat_reviews[task.candidates[0].player].decisions.append(judge(task, task_scores))
        at += len(tasks)
        out.append(Review(list(seat_reviews.values()), worlds))
    return out


def review_many(paths: Sequence[Path | str], seats: Iterable[int] | None = None,
                worlds: int = WORLDS, workers: int = 1, backend: str = "local",
                progress: Callable[[int, int], None] | None = None,
                address: str | None = None) -> dict[str, Review]:
    """Each file's review, by its path as given (in the paths' order): the records' decisions
    weighed as one batch on ``backend``."""
    recs = [load_record(p) for p in paths]
    names = [str(p) for p in paths]
    reviews = review_records(recs, seats, worlds, workers, backend, progress, address, names)
    return dict(zip(names, reviews, strict=True))


def _weigh_chunk(tasks: list[Task]) -> list[Weighed]:
    return [weigh(t) for t in tasks]


def run_ray(tasks: Sequence[Task], workers: int, address: str | None = None,
            progress: Callable[[int, int], None] | None = None) -> list[Weighed]:
    """Each task's scores, in order, weighed by Ray tasks (a local Ray of ``workers`` CPUs,
    or the cluster at ``address``)."""
    total = len(tasks)
    if not total:
        return []
    with ray_session(workers, address) as ray:
        remote = ray.remote(_weigh_chunk)
        # small chunks: a decision takes a fraction of a second, a game's worth takes minutes
        chunk = max(1, min(16, total // (max(1, workers) * 8) or 1))
        order = {}
        pending = []
        for i in range(0, total, chunk):
            ref = remote.remote(list(tasks[i:i + chunk]))
            order[ref] = i
            pending.append(ref)
        results: list[Weighed | None] = [None] * total
        done_count = 0
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                part = ray.get(ref)
                start = order[ref]
                results[start:start + len(part)] = part
                done_count += len(part)
                if progress:
                    progress(done_count, total)
        return [r for r in results if r is not None]
