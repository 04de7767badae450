"""Bot thinking shared fairly between tables, and between the clients who made them.

Domain words: *job* (one bot decision, hint or event for an external bot), *lane* (``light``:
the random and basic bots and hints, cheap and bounded, on a worker of their own so that they
never wait behind a search; ``heavy``: the expert and host-configured bots, on ``bot_workers``
workers), *client* (the address that created a table), *turn* (a lane takes jobs client by
client in turn, each client's in the order they came: a job waits behind at most one job of
each other client with work waiting, never behind another client's whole queue; a table has
one job at a time, so a client's tables take turns too), *cap* (the most time an expert search
may think now: ``expert_max_ms`` shared among the heavy jobs waiting and running, so that a
table's wait stays near that whatever the number of tables).

Jobs are queued and dispatched on the event loop, so the queues need no locks; only the work
runs in the lanes' threads, and its result comes back to the loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from ..bots import BasicBot, Bot, ExpertBot, RandomBot, SlipBot

# an expert search is never capped below this (it then scores one world at least anyway)
MIN_CAP_MS = 100.0
# how often a thread holding the interpreter lock is asked to let another run while searches
# run (Python's default, kept otherwise: 5 ms): the server's loop and the light lane wait for
# the lock behind them; with 1 ms, another client's basic bot took a move in 0.62 s instead of
# 0.68 s (think time 0.6 s) beside five tables of 2 s experts, the experts as fast. Without
# searches it stays 5 ms: the loop and the store's writer thread hand the lock over less often
SEARCH_SWITCH_INTERVAL = 0.001


class Lane:
    """Worker threads and the queues of jobs, one per client, served in turn."""

    def __init__(self, name: str, workers: int,
                 on_busy: Callable[[bool], None] | None = None) -> None:
        self.name = name
        self.on_busy = on_busy  # told when the lane starts and stops running jobs
        self.workers = workers
        self.executor = concurrent.futures.ThreadPoolExecutor(
            workers, thread_name_prefix=f"liverpool-bots-{name}")
        self.queues: OrderedDict[str, deque[tuple[Callable[[], Any],
                                                  asyncio.Future[Any]]]] = OrderedDict()
        self.running = 0
        self.waiting = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    def busy(self) -> int:
        """Jobs running or waiting."""
        return self.running + self.waiting

    async def run(self, client: str, job: Callable[[], Any]) -> Any:
        """Run ``job`` in a worker when ``client``'s turn comes; its result."""
        self._loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = self._loop.create_future()
        self.queues.setdefault(client, deque()).append((job, fut))
        self.waiting += 1
        self._dispatch()
        return await fut

    def _dispatch(self) -> None:
        while self.running < self.workers and self.queues:
            client, jobs = self.queues.popitem(last=False)
            job, fut = jobs.popleft()
            self.waiting -= 1
            if jobs:  # to the back: every other client with work waiting goes first
                self.queues[client] = jobs
            if fut.done():  # its table stopped waiting for it
                continue
            self.running += 1
            if self.running == 1 and self.on_busy is not None:
                self.on_busy(True)
            done = self.executor.submit(job)
            done.add_done_callback(self._back(fut))

    def _back(self, fut: asyncio.Future[Any]
              ) -> Callable[[concurrent.futures.Future[Any]], None]:
        """What a worker calls when a job is done: the result goes back to the loop."""
        loop = self._loop
        assert loop is not None

        def back(done: concurrent.futures.Future[Any]) -> None:
            loop.call_soon_threadsafe(self._finished, done, fut)
        return back

    def _finished(self, done: concurrent.futures.Future[Any], fut: asyncio.Future[Any]) -> None:
        self.running -= 1
        if not fut.done():
            error = done.exception()
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(done.result())
        self._dispatch()
        if self.running == 0 and self.on_busy is not None:
            self.on_busy(False)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def is_light(bot: object) -> bool:
    """Bots whose decisions cost milliseconds, whatever the hand."""
    if isinstance(bot, SlipBot):
        return is_light(bot.inner)
    return isinstance(bot, BasicBot | RandomBot)


class BotPools:
    """The light and heavy lanes of one server."""

    def __init__(self, heavy_workers: int, expert_max_ms: float) -> None:
        self.light = Lane("light", 1)
        self.heavy = Lane("heavy", heavy_workers, self._searching)
        self.expert_max_ms = expert_max_ms
        self._switch = sys.getswitchinterval()

    def _searching(self, busy: bool) -> None:
        sys.setswitchinterval(SEARCH_SWITCH_INTERVAL if busy else self._switch)

    def cap_ms(self) -> float:
        """What one expert search may think now: the heavy workers' time within
        ``expert_max_ms`` shared by the heavy jobs running and waiting."""
        lane = self.heavy
        return max(MIN_CAP_MS,
                   self.expert_max_ms * lane.workers / max(lane.workers, lane.busy()))

    async def think(self, client: str, bot: Bot | None, fn: Callable[..., Any],
                    *args: Any) -> Any:
        """``fn(*args)``, work of ``bot`` (None: a hint) for a table ``client`` made."""
        if bot is None or is_light(bot):
            return await self.light.run(client, lambda: fn(*args))
        if isinstance(bot, ExpertBot):
            def capped() -> Any:
                # set when the job starts, from the lane as it is then
                bot.cap_ms = self.cap_ms()
                return fn(*args)
            return await self.heavy.run(client, capped)
        return await self.heavy.run(client, lambda: fn(*args))

    def shutdown(self) -> None:
        self.light.shutdown()
        self.heavy.shutdown()
