"""The game engine: a whole Liverpool game as a deterministic state machine.

Domain words: see ``engine.game`` (the game and its public surface), ``engine.state`` (the state
as a value), ``engine.turns`` (hands and turns), ``engine.draw`` (taking, drawing, buying),
``engine.play`` (going down, laying off, swaps, borrows, discards), ``engine.calls`` (the
playable-discard window) and ``engine.view`` (seat views and their JSON).

Interfaces use the public surface written down in docs/engine.md: ``Game.legal_actions``,
``is_legal``/``why_illegal``, ``apply`` (which returns the events of engine.events),
``view_for`` (a seat's view, or a spectator's) and the few read-only facts listed there.
"""

from . import events
from .events import Event, HandEnded, HandStarted
from .game import Game
from .play import NextMelds
from .state import HandEnd, IllegalActionError, Phase
from .turns import stacked_deck
from .view import SeatView, unseen_cards

__all__ = ["Event", "Game", "HandEnd", "HandEnded", "HandStarted", "IllegalActionError",
           "NextMelds", "Phase", "SeatView", "events", "stacked_deck", "unseen_cards"]
