"""The observation tensor of the learning interfaces: one seat's view as a flat float32 vector.

Domain words: see ``rl.features`` (planes, relative seats, meld places, pending tokens), which
works out the numbers; this module lays them into the vector. ``Layout(players).parts`` names
every slice; docs/rl.md prints the table.

Built only from ``SeatView`` (what the seat may know) and the pending tokens, so two states
that look the same to a seat give it the same observation.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..engine import SeatView
from . import codec
from .features import MELD_FACTS, PHASES, SEAT_FACTS, Layout, card_places, facts, meld_table

__all__ = ["MELD_FACTS", "PHASES", "SEAT_FACTS", "Layout", "Vector", "observe"]

Vector = npt.NDArray[np.float32]


def observe(view: SeatView, pending: tuple[int, ...] = (), layout: Layout | None = None
            ) -> Vector:
    """The observation of ``view``'s seat, with ``pending`` the ids already chosen."""
    lay = layout or Layout(len(view.players))
    out = np.zeros(lay.size, dtype=np.float32)
    planes = lay.planes_end
    unseen: list[int] = []
    out[:planes] = np.bincount(np.asarray(card_places(view, lay, unseen), dtype=np.intp),
                               minlength=planes)
    out[lay.unseen_start:lay.unseen_start + len(unseen)] = unseen
    numbers = facts(view) + meld_table(view, lay)  # the melds' rows follow the seat facts
    out[lay.facts_start:lay.facts_start + len(numbers)] = numbers
    if pending:
        out[lay.pending_start:] = np.bincount(np.asarray(pending, dtype=np.intp),
                                              minlength=codec.SIZE)
    return out
