"""The first-game walk-through of ``liverpool play``: one turn (draw, go down, lay off, discard)
and the "May I?" question, told as short notes beside what they describe on the live table,
each when the game reaches it.

Domain words: *walk-through* (``Guide``: the notes not yet read, and whether it is on), *step*
(one note: what it explains, the panel it sits by, and the decision it belongs to), *read* (a
step is read once the person has acted on the decision it was shown at), *done* (every step
read, or the walk-through skipped: remembered in the data directory's ``guide.json``, so it
is never offered again; it can still be asked for, ``i`` or ``--guide``), *first game* (no
finished game in the profile's history and the walk-through not done yet: the app offers it
then; the plain mode only with ``--guide``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import write_atomic

GUIDE_FILE = "guide.json"  # in the data directory: the walk-through was done or skipped


@dataclass(frozen=True, slots=True)
class Step:
    """One note: ``name``, the ``phase`` of the person's decision it is shown at, the panel it
    sits by (``near``: ``pile``, ``melds``, ``hand``, ``prompt``), its words for the app and
    the words of the plain mode (its commands instead of keys)."""

    name: str
    phase: str
    near: str
    text: str
    plain: str


STEPS = (
    Step("draw", "draw", "pile", "Draw: a turn starts with a card: d from the stock, or t the "
         "discard shown above.",
         "Draw: every turn starts by taking a card. Type draw for the top card of the stock, "
         "or take for the discard."),
    Step("go down", "play", "hand", "Go down: once your cards make this hand's contract (top "
         "line), g then a puts those melds on the table.",
         "Go down: when your cards make this hand's contract, type down to lay those melds "
         "on the table."),
    Step("lay off", "play", "melds", "Lay off: once down, l puts the card at the cursor on "
         "a meld here that it fits.",
         "Lay off: once you are down, type lay CARD MELD to add a card to a meld on the "
         "table."),
    Step("discard", "play", "prompt", "Discard: ← → to a card, d discards it and ends your "
         "turn. No cards left: you go out.",
         "Discard: type discard CARD to end your turn. Whoever has no cards left goes out."),
    Step("may i", "buy", "prompt", "May I?: a discard nobody took may be bought out of turn: "
         "b buys it (with a penalty card), p passes, n passes all this hand.",
         "May I?: a discard the next player did not take can be bought out of turn: type "
         "buy (you take a penalty card too) or pass, or pass hand for the rest of the hand."),
)


# the actions that end a decision of each phase: its notes are read then (a go-down does not
# end the play: the notes of laying off and discarding stay until the discard)
ENDS = {"draw": {"draw", "take_discard", "no_draw"}, "buy": {"buy", "pass"},
        "play": {"discard"}}


def guide_done(folder: Path) -> bool:
    """The walk-through was done or skipped in the data directory ``folder``."""
    return (folder / GUIDE_FILE).exists()


@dataclass
class Guide:
    """The walk-through of one game: the steps still to read; ``folder``: the data directory
    where it is remembered once done (None: not remembered)."""

    folder: Path | None = None
    read: set[str] = field(default_factory=set)
    on: bool = True

    def notes(self, phase: str, buying: bool = True) -> list[Step]:
        """The notes to show at a decision of ``phase``, in the order of a turn."""
        if not self.on:
            return []
        return [s for s in STEPS if s.phase == phase and s.name not in self.read
                and (buying or s.phase != "buy")]

    def acted(self, phase: str, action: str, buying: bool = True) -> bool:
        """The person did ``action`` (its type) at a decision of ``phase``: the notes of that
        decision are read when the action ends it. True when that read the last of them (the
        walk-through is done, and remembered)."""
        if not self.on or action not in ENDS.get(phase, ()):
            return False
        shown = self.notes(phase, buying)
        self.read |= {s.name for s in shown}
        if shown and not any(s.name not in self.read and (buying or s.phase != "buy")
                             for s in STEPS):
            self.finish()
            return True
        return False

    def finish(self) -> None:
        """Done or skipped: never offered again (``folder``), the notes gone."""
        self.on = False
        if self.folder is not None:
            write_atomic(self.folder / GUIDE_FILE, json.dumps(
                {"done": True, "note": "the first-game walk-through of liverpool play was "
                                       "done or skipped; i (or --guide) shows it again"}))
