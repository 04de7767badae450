"""What a web table waits for from its people: the end-of-hand pause, and a dropped person's
grace before a bot covers their seat.

Domain words: *pause* (after a hand, the next deal waits until each connected person says they
are ready, or the table's ``hand_pause`` runs out), *ready*, *awaited* (the connected people the
pause still waits for), *grace* (how long a person who dropped may come back before the basic bot
covers their seat), *covered* (a bot plays the seat until its person says hello again).

The clocks are the table's (liverpool.web.clocks); when a wait ends the driver moves the game on
(liverpool.web.tabledrive).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .table import TableOwner


class Waits:
    """The table's waits for people (``t``: its owner)."""

    def __init__(self, t: TableOwner) -> None:
        self.t = t
        self.pause_due: float | None = None

    @property
    def paused(self) -> bool:
        return self.pause_due is not None

    def pause_json(self) -> dict[str, Any] | None:
        if self.pause_due is None:
            return None
        seating = self.t.seating
        return {"kind": "hand_end", "ms_left": self.t.clocks.ms_left("pause"),
                "ready": sorted(seating.ready), "waiting": seating.awaited()}

    # ---- the end-of-hand pause -------------------------------------------------------------
    def start_pause(self) -> None:
        """Hold the next hand while the people look at the last one: until each connected
        person says they are ready, or the table's hand_pause runs out."""
        t = self.t
        t.seating.ready = set()
        self.pause_due = t.clocks.now() + t.hand_pause
        t.clocks.start("pause", self.pause_due, self.pause_due, self.pause_timeout,
                       self.pause_due)

    async def pause_timeout(self, due: float) -> None:
        if self.pause_due == due:
            await self.end_pause()

    async def end_pause(self) -> None:
        if self.pause_due is None:
            return
        t = self.t
        self.pause_due = None
        t.clocks.stop("pause")
        t.seating.ready = set()
        t.msg.broadcast(lambda seat: {"type": "pause", "version": t.version, "pause": None})
        await t.driver.drive()

    async def ready(self, seat: int) -> None:
        """``seat`` is ready for the next hand; the pause ends when nobody is awaited."""
        if self.pause_due is None:
            return
        t = self.t
        t.seating.ready.add(seat)
        if not t.seating.awaited():
            await self.end_pause()
            return
        t.msg.broadcast(lambda s: {"type": "pause", "version": t.version,
                                   "pause": self.pause_json()})

    # ---- covering a seat -------------------------------------------------------------------
    def start_grace(self, seat: int) -> None:
        t = self.t
        if t.clocks.running(f"grace:{seat}") or t.seating.seats[seat].covered:
            return
        t.clocks.start(f"grace:{seat}", seat, t.clocks.now() + t.settings.grace, self.cover,
                       seat)

    def end_grace(self, seat: int) -> None:
        self.t.clocks.stop(f"grace:{seat}")

    async def cover(self, seat: int) -> None:
        t = self.t
        t.clocks.stop(f"grace:{seat}")
        s = t.seating.seats[seat]
        if s.conns or s.covered or t.status != "playing":
            return
        s.covered = True
        t.seating.broadcast(t.msg.lobby_text())
        await t.driver.drive()
