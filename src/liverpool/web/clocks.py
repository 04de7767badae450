"""A web table's clocks: named timers on the owner's queue, each with its key and due time.

Domain words: *clock* (one timer: ``bot`` a bot's move, ``turn`` a person's turn timer,
``window`` how long a discard may be asked for, ``pause`` the end-of-hand screen, ``grace:N``
seat N's grace before a bot covers it), *key* (what a clock runs for: a version, a version and a
seat; a clock set again for the same key keeps running), *due once* (a due time fixed the first
time a key asks for it, so that nothing a client sends puts a clock off), *firing* (a clock that
runs out posts its callback to the owner's queue: timers are inputs of the table's owner, never
changes made beside it).

The clocks decide nothing: the table's driver (liverpool.web.tabledrive) says which run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Post = Callable[..., None]


class Clocks:
    """The table's timers, one handle per name."""

    def __init__(self, post: Post) -> None:
        self._post = post
        self._handles: dict[str, asyncio.TimerHandle] = {}
        self._keys: dict[str, object] = {}
        self._due: dict[str, float] = {}
        # the first due time asked for each name's key (``due_once``)
        self._first: dict[str, tuple[object, float]] = {}

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    def start(self, name: str, key: object, due: float,
              fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run ``fn(*args)`` on the owner's queue at loop time ``due`` (a clock of that name
        already running is replaced)."""
        self.stop(name)
        loop = asyncio.get_running_loop()
        self._keys[name], self._due[name] = key, due
        self._handles[name] = loop.call_later(max(0.0, due - loop.time()), self._post, fn, *args)

    def due_once(self, name: str, key: object, length: float) -> float:
        """The due time of ``name`` for ``key``: ``length`` from now the first time the key
        asks, the same time after."""
        first = self._first.get(name)
        if first is None or first[0] != key:
            first = self._first[name] = (key, self.now() + length)
        return first[1]

    def stop(self, name: str) -> None:
        handle = self._handles.pop(name, None)
        if handle is not None:
            handle.cancel()
        self._keys.pop(name, None)
        self._due.pop(name, None)

    def forget(self, name: str) -> None:
        """Stop ``name`` and drop its remembered due time (a turn that failed starts again)."""
        self.stop(name)
        self._first.pop(name, None)

    def stop_all(self) -> None:
        for name in list(self._handles):
            self.stop(name)

    def running(self, name: str) -> bool:
        return name in self._handles

    def key(self, name: str) -> object:
        return self._keys.get(name)

    def due(self, name: str) -> float | None:
        return self._due.get(name)

    def fired(self, name: str) -> None:
        """``name`` ran out (its callback runs now): it no longer counts as running."""
        self._handles.pop(name, None)

    def ms_left(self, name: str) -> int:
        due = self._due.get(name)
        return 0 if due is None else max(0, int((due - self.now()) * 1000))
