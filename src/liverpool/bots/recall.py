"""Recall: what a seat believed of the other hands at each of its moves, rebuilt from a game's
record.

Domain words: *recall* (the record replayed by the core's replayer, ``record.steps``, each
engine event told to each followed seat's belief as that seat saw it, ``Event.for_seat``),
*moment* (the game just before one of the record's actions, with the beliefs as they stood),
*update* (a seat's belief reads what it heard at each of that seat's own actions, as the
expert's belief does at each of its decisions; its generator is seeded by what the seat saw
then, ``hints.view_key``, and the action's index, so two games a seat saw alike give it the
same beliefs whatever the hidden cards were).

Why: a review weighs each decision in worlds that hold what the player could tell of the other
hand then, and a hint asked in the middle of a hand searches with what the seat has heard since
the deal, as the expert at that seat would have; both rebuild that belief here, the same way.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..engine import Event, Game, SeatView
from ..record import new_game_from_record, steps
from .base import Bot
from .belief import MOST_PLAYERS, HandBelief
from .hints import searched_hint, view_key


@dataclass(frozen=True, slots=True)
class Moment:
    """The replay just before the record's action ``index`` (the game ``recall`` replays on
    stands there until the next moment); the beliefs given to ``recall`` stand as they were
    then, the acting seat's updated."""

    index: int
    action: Action


def followed(players: int, seats: Iterable[int]) -> dict[int, HandBelief]:
    """A fresh belief for each of ``seats`` at a table of ``players`` (none at a table larger
    than the belief follows, ``belief.MOST_PLAYERS``)."""
    if players > MOST_PLAYERS:
        return {}
    return {s: HandBelief() for s in sorted(set(seats)) if 0 <= s < players}


def recall(rec: dict[str, Any], beliefs: dict[int, HandBelief], game: Game | None = None,
           from_hand: int = 0) -> Iterator[Moment]:
    """Replay ``rec`` (on ``game``, default ``new_game_from_record``), telling ``beliefs`` (by
    seat) what their seats heard and updating each at its seat's actions; ``from_hand``: no
    update before that hand (its index), whose guesses a new hand drops anyway.
    ``record.ReplayError`` at an action that is not one or is illegal."""
    if game is None:
        game = new_game_from_record(rec)
    it = steps(rec, game)

    def tell(events: Sequence[Event]) -> None:
        for s, belief in beliefs.items():
            for event in events:
                belief.hear(event.for_seat(s))

    tell(next(it).events)  # the deal
    for i, obj in enumerate(rec.get("actions", [])):
        action = Action.from_json(obj)
        belief = beliefs.get(action.player)
        if belief is not None and game.hand_index >= from_hand:
            _update(belief, game, action.player, i)
        yield Moment(i, action)
        tell(next(it).events)


def _update(belief: HandBelief, game: Game, seat: int, index: int) -> None:
    view = game.view_for(seat)
    belief.update(view, random.Random(zlib.crc32(f"{view_key(view)}:{index}".encode())))


def belief_now(rec: dict[str, Any], seat: int) -> HandBelief | None:
    """``seat``'s belief at the end of ``rec``, its hand in progress followed from the deal,
    ready for the seat's next decision; None where the belief does not follow the table."""
    game = new_game_from_record(rec)
    beliefs = followed(game.n, [seat])
    if seat not in beliefs:
        return None
    for _ in steps(rec, game):  # (the engine alone: which hand is in progress)
        pass
    for _ in recall(rec, beliefs, from_hand=game.hand_index):
        pass
    if not game.over:  # updated for the next action as ``recall`` updates it for each
        _update(beliefs[seat], game, seat, len(rec.get("actions", [])))
    return beliefs[seat]


def recalled_hint(view: SeatView, legal: Sequence[Action], bot: Bot | None,
                  rec: dict[str, Any], seat: int) -> tuple[Action, str]:
    """``hints.searched_hint`` for ``seat`` of the game in ``rec`` (the record up to now), its
    search's worlds following what the seat heard this hand (``belief_now``)."""
    return searched_hint(view, legal, bot, belief_now(rec, seat))
