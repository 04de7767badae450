"""Stopping the review processes while a review is being made: the decisions not yet weighed are
dropped, the processes end at once, and no thread of the process pool fails on the way out (the
pool's own thread once did, now and then, when it failed again the decisions given up: a stop
in the middle of a review is tried many times over). A review process that dies fails its
review only: the next one gets new processes.

Domain words: *review processes* (``Reviews``' process pool), *decision* (one task of a review,
weighed in a review process), *stuck* (a decision that never ends by itself).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import process
from typing import Any, cast

import pytest

from liverpool.web.limits import Limits
from liverpool.web.reviews import Reviews
from liverpool.web.store import Store

ROUNDS = 12  # stops tried: the old failure came about one stop in four


def many(record: dict[str, Any], seat: int, worlds: int) -> tuple[str, list[int]]:
    return "expert", list(range(400))


def quick(task: int) -> None:
    time.sleep(0.0005)


def stuck(task: int) -> None:
    time.sleep(600)


def dies(task: int) -> None:
    os._exit(3)


class Kept:
    """The store's one method reviews use: what was saved."""

    def __init__(self) -> None:
        self.saved: list[tuple[str, int, int, dict[str, Any]]] = []

    async def save_review(self, table: str, seat: int, worlds: int,
                          review: dict[str, Any]) -> None:
        self.saved.append((table, seat, worlds, review))


async def stop_while_running(decide: Any, weighed: int) -> Reviews:
    """A review started, stopped once ``weighed`` decisions came back and the pool's thread
    has ended."""
    reviews = Reviews(cast(Store, None), Limits(review_workers=2))
    reviews.plan = many  # type: ignore[assignment]
    reviews.decide = decide
    job = reviews.start(("t", 0, 2), {})
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    while job.total == 0 or job.done < weighed:
        assert loop.time() < end, job
        await asyncio.sleep(0.005)
    await reviews.close()
    for t in threading.enumerate():
        if isinstance(t, process._ExecutorManagerThread):
            await asyncio.to_thread(t.join, 60)
            assert not t.is_alive(), "the pool's thread did not end"
    assert job.status == "failed" and job.message == "the server stopped"
    return reviews


async def test_stopping_reviews_fails_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    for _ in range(ROUNDS):
        await stop_while_running(quick, 3)
        assert [str(f.exc_value) for f in failures] == []


async def test_a_stuck_decision_does_not_hold_the_stop() -> None:
    started = time.perf_counter()
    await stop_while_running(stuck, 0)
    assert time.perf_counter() - started < 60


async def test_a_dead_review_process_fails_its_review_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    monkeypatch.setattr("liverpool.web.reviewwork.review_json",
                        lambda seat, name, decisions, worlds: {"decisions": len(decisions)})
    kept = Kept()
    reviews = Reviews(cast(Store, kept), Limits(review_workers=2))
    reviews.plan = many  # type: ignore[assignment]
    reviews.decide = dies
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    first = reviews.start(("t", 0, 2), {})
    while first.status not in ("done", "failed"):
        assert loop.time() < end, first
        await asyncio.sleep(0.01)
    reviews.decide = quick
    second = reviews.start(("t", 1, 2), {})
    while second.status not in ("done", "failed"):
        assert loop.time() < end, second
        await asyncio.sleep(0.01)
    await reviews.close()
    assert first.status == "failed" and "could not be made" in first.message
    assert second.status == "done", second.message
    assert kept.saved == [("t", 1, 2, {"decisions": 400})]
    assert [str(f.exc_value) for f in failures] == []
