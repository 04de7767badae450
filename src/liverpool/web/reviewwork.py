"""The work of a game review as the review processes do it (``reviews.py`` queues it): the
decisions of one seat planned from a finished game's record, each weighed and judged, and the
verdicts put together as the review page reads them.

Domain words: *plan* (the seat's decisions to weigh, ``review.tasks_of``), *decision* (one
action of the seat where it had a real choice, weighed in *worlds* sampled from its own view
then), *candidate* (an action weighed at a decision, with its *loss*: the expected points it
gives away against the best one), *review JSON* (``review.Review.to_json`` of one seat, each
decision with its candidates: what "Learn from your mistakes" asks about).

This module is imported by the review processes: it imports only the core's review, nothing of
the server.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from ..review import Decision, Review, SeatReview, Task, judge, tasks_of, weigh

NICE = 10  # how much lower the review processes' priority is than the server's


def lower_priority() -> None:
    """A review process's start: the tables' server goes first whenever both want a core."""
    with contextlib.suppress(OSError):  # not allowed here: it runs at the server's priority
        os.nice(NICE)


def plan(record: dict[str, Any], seat: int, worlds: int) -> tuple[str, list[Task]]:
    """The seat's name and its decisions to weigh, in the record's order."""
    game, tasks = tasks_of(record, [seat], worlds)
    return str(game.players[seat]), tasks


def decide(task: Task) -> Decision:
    """One decision weighed in its worlds and judged."""
    return judge(task, weigh(task))


def review_json(seat: int, name: str, decisions: list[Decision], worlds: int) -> dict[str, Any]:
    """The review of one seat as the page reads it: ``Review.to_json``'s seat, each decision
    with its candidates, best first, and each one's loss against the best."""
    out = Review([SeatReview(seat, name, list(decisions))], worlds).to_json()
    for d, obj in zip(decisions, out["seats"][0]["decisions"], strict=True):
        best = d.values[0][1] if d.values else 0.0
        obj["candidates"] = [{"action": a.to_json(), "loss": round(max(0.0, v - best), 2)}
                             for a, v in d.values]
    return out
