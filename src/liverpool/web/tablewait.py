"""What a web table waits for from its people after a hand: the end-of-hand pause.

Domain words: *pause* (after a hand, the next deal waits until each connected person says they
are ready, or the table's ``hand_pause`` runs out), *ready*, *awaited* (the connected people the
pause still waits for).

The clock is the table's (liverpool.web.clocks); when the pause ends the driver moves the game
on (liverpool.web.tabledrive), which is why ending it says whether it ended.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .tablecore import TableCore
from .tablemsg import Messages


class Waits:
    """The end-of-hand pause of one table (``t``: its facts; ``msg``: its messages)."""

    def __init__(self, t: TableCore, msg: Messages) -> None:
        self.t = t
        self.msg = msg

    def start_pause(self, on_end: Callable[[float], Awaitable[Any]]) -> None:
        """Hold the next hand while the people look at the last one: until each connected
        person says they are ready, or the table's hand_pause runs out (``on_end`` is posted
        with the pause's due time)."""
        t = self.t
        t.seating.ready = set()
        due = t.pause_due = t.clocks.now() + t.hand_pause
        t.clocks.start("pause", due, due, on_end, due)

    def end_pause(self, due: float | None = None) -> bool:
        """End the pause (``due``: only the pause due then, as its clock posted); True if it
        ended now, and the game goes on."""
        t = self.t
        if t.pause_due is None or (due is not None and t.pause_due != due):
            return False
        t.pause_due = None
        t.clocks.stop("pause")
        t.seating.ready = set()
        self.msg.broadcast(lambda seat: {"type": "pause", "version": t.version, "pause": None})
        return True

    def ready(self, seat: int) -> bool:
        """``seat`` is ready for the next hand; True if that ended the pause (nobody else is
        awaited)."""
        t = self.t
        if t.pause_due is None:
            return False
        t.seating.ready.add(seat)
        if not t.seating.awaited():
            return self.end_pause()
        self.msg.broadcast(lambda s: {"type": "pause", "version": t.version,
                                      "pause": t.pause_json()})
        return False
