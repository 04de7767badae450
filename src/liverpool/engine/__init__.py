"""The game engine: a whole Liverpool game as a deterministic state machine.

Domain words: see ``engine.game`` (the game and its public surface), ``engine.state`` (the state
as a value), ``engine.turns`` (hands and turns), ``engine.draw`` (taking, drawing, buying),
``engine.play`` (going down, laying off, swaps, borrows, discards), ``engine.calls`` (the
playable-discard window) and ``engine.view`` (seat views and their JSON).

Interfaces use ``Game.legal_actions``, ``is_legal``, ``apply`` and ``view_for``; nothing else
leaves the engine.
"""

from .game import Game
from .state import HandEnd, IllegalActionError, Phase
from .turns import stacked_deck
from .view import SeatView

__all__ = ["Game", "HandEnd", "IllegalActionError", "Phase", "SeatView", "stacked_deck"]
