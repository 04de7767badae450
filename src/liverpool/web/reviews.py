"""Game reviews on the server: asked for a finished table's seat, made in processes of their
own one review at a time, kept in the store, and answered from there ever after.

Domain words: *review* (what the expert's search thinks of every decision one seat made,
``liverpool.review``), *key* (table, seat and worlds per decision: one review), *job* (the making
of one review: *queued*, *running*, then *done* or *failed*; its *progress* is the decisions
weighed of all), *queue* (the jobs waiting: at most ``review_queue``, past that a new one is
refused ``busy``), *review processes* (at most ``review_workers``, at a lower priority than the
server: no table's move waits for a review, and none runs on the event loop or among the bots'
workers), *cache* (the store's ``lv_reviews``: a review made is never made again, also after a
restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ..review import Decision, Task
from . import reviewwork
from .limits import ApiError, Limits
from .store import Store

log = logging.getLogger("liverpool.web")

JOBS_KEPT = 64  # finished jobs remembered here (done ones are in the store anyway)

Key = tuple[str, int, int]  # table, seat, worlds


@dataclass
class ReviewJob:
    key: Key
    record: dict[str, Any] | None  # dropped once the job has run
    status: str = "queued"
    done: int = 0
    total: int = 0
    review: dict[str, Any] | None = None
    message: str = ""


def answer_of(status: str, review: dict[str, Any] | None = None, done: int = 0,
              total: int = 0, ahead: int | None = None, message: str = "") -> dict[str, Any]:
    """A review's state as the API answers it (docs/web-protocol.md)."""
    out: dict[str, Any] = {"status": status, "progress": [done, total]}
    if ahead is not None:
        out["ahead"] = ahead
    if review is not None:
        out["review"] = review
    if message:
        out["message"] = message
    return out


class Reviews:
    """The reviews of one server: its jobs, its queue and its review processes."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.jobs: OrderedDict[Key, ReviewJob] = OrderedDict()
        self.waiting: deque[ReviewJob] = deque()
        self.started = 0  # jobs started since the server started (what the tests count)
        # what the review processes run (the tests put a gate before ``decide``)
        self.plan: Callable[[dict[str, Any], int, int], tuple[str, list[Task]]] = \
            reviewwork.plan
        self.decide: Callable[[Task], Decision] = reviewwork.decide
        self.current: ReviewJob | None = None  # the job running
        self._pool: ProcessPoolExecutor | None = None
        self._runner: asyncio.Task[None] | None = None

    @property
    def worlds(self) -> int:
        return self.limits.review_worlds

    def key(self, table_id: str, seat: int) -> Key:
        return (table_id, seat, self.worlds)

    def job_answer(self, job: ReviewJob) -> dict[str, Any]:
        ahead = None
        if job.status == "queued":
            ahead = next((i for i, j in enumerate(self.waiting) if j is job), 0)
        return answer_of(job.status, job.review, job.done, job.total, ahead, job.message)

    async def known(self, key: Key) -> dict[str, Any] | None:
        """What is known of a review without starting one: a job's state (not a failed one:
        asking again starts it anew), or the review kept in the store; None: nothing."""
        job = self.jobs.get(key)
        if job is not None and job.status != "failed":
            return self.job_answer(job)
        kept = await self.store.load_review(*key)
        if kept is not None:
            n = sum(len(seat.get("decisions", ())) for seat in kept.get("seats", ()))
            return answer_of("done", kept, n, n)
        return None if job is None else self.job_answer(job)

    def refuse_if_full(self) -> None:
        """503 ``busy`` when no job may wait any more (one runs, ``review_queue`` wait)."""
        if len(self.waiting) + (self.current is not None) > self.limits.review_queue:
            raise ApiError(503, "busy", f"the server is making as many game reviews as it can "
                                        f"({len(self.waiting)} are waiting): ask again in a few "
                                        f"minutes", retry_after=60)

    def start(self, key: Key, record: dict[str, Any]) -> ReviewJob:
        """Queue a new job (the caller checked the queue, the limits and the cache)."""
        self.refuse_if_full()
        job = ReviewJob(key, record)
        self.jobs[key] = job
        self.jobs.move_to_end(key)
        self.waiting.append(job)
        self.started += 1
        self._forget_old()
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run_all(), name="reviews")
        return job

    def _forget_old(self) -> None:
        finished = [k for k, j in self.jobs.items() if j.status in ("done", "failed")]
        for k in finished[:max(0, len(finished) - JOBS_KEPT)]:
            del self.jobs[k]

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawned, not forked: the server's threads (store, bots) hold locks a fork would
            # copy held
            self._pool = ProcessPoolExecutor(
                self.limits.review_workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=reviewwork.lower_priority)
        return self._pool

    async def _run_all(self) -> None:
        while self.waiting:
            job = self.current = self.waiting.popleft()
            try:
                await self._run(job)
            except asyncio.CancelledError:
                job.status, job.message = "failed", "the server stopped"
                raise
            except Exception as e:
                job.status = "failed"
                job.message = "the review could not be made; ask again later"
                log.warning("review of table %s seat %d failed: %s: %s", job.key[0],
                            job.key[1], type(e).__name__, str(e)[:300])
                if isinstance(e, BrokenProcessPool):
                    self._drop_pool()
            finally:
                job.record = None
                self.current = None

    async def _run(self, job: ReviewJob) -> None:
        pool = self._executor()
        table_id, seat, worlds = job.key
        assert job.record is not None
        job.status = "running"
        name, tasks = await _call(pool, self.plan, job.record, seat, worlds)
        job.total = len(tasks)
        # no more decisions in the pool than it has processes: each one given is taken at once,
        # so none waits there to be given up (a decision is never cancelled: the pool's own
        # thread failed when one was, and the processes were stopped)
        decisions: list[Any] = [None] * len(tasks)
        given = 0
        weighing: dict[asyncio.Future[Any], int] = {}
        try:
            while given < len(tasks) or weighing:
                while given < len(tasks) and len(weighing) < self.limits.review_workers:
                    weighing[_call(pool, self.decide, tasks[given])] = given
                    given += 1
                done, _ = await asyncio.wait(weighing, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    decisions[weighing.pop(fut)] = fut.result()
                    job.done += 1
        finally:
            for fut in weighing:
                # this side's wait only (the process finishes or is stopped); an error already
                # come back for a review given up is looked at, not logged as never retrieved
                if not fut.cancel() and not fut.cancelled():
                    fut.exception()
        review = reviewwork.review_json(seat, name, decisions, worlds)
        await self.store.save_review(table_id, seat, worlds, review)
        job.review = review
        job.status = "done"

    def _drop_pool(self) -> None:
        """Stop the review processes now: a review half made is made again when asked."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # (the executor itself would wait for the decisions being weighed)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()

    async def close(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self._drop_pool()


def _call(pool: ProcessPoolExecutor, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """``fn(*args)`` in the pool, as a future of the running loop. Unlike ``run_in_executor``,
    cancelling the answer does not cancel the work: the pool's futures are never cancelled."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Any] = loop.create_future()
    work = pool.submit(fn, *args)

    def settle() -> None:
        if answer.done():
            return
        if work.cancelled():
            answer.cancel()
        elif (error := work.exception()) is not None:
            answer.set_exception(error)
        else:
            answer.set_result(work.result())

    def settled(_: Future[Any]) -> None:
        # (in the pool's thread; once the loop has closed, nobody waits any more)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle)
    work.add_done_callback(settled)
    return answer
