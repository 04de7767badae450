"""Hints: what a seat might play now, and why in words a player understands.

Domain words: *hint* (a suggested action and its reason), *habit* (the basic bot's rule of thumb,
which gives the reason), *hinter* (the bot whose search picks the hint: the ladder's strongest
level, ``HINT_LEVEL``), *view key* (a number fixed by what the seat sees, which seeds the search
so that asking twice gives the same answer and the hidden cards never change it).
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Sequence

from ..actions import Action
from ..engine import SeatView
from .base import Bot
from .basic import BasicBot
from .belief import HandBelief
from .heuristics import BORROW_REASON
from .ladder import LADDER, make_level
from .race import RACE_REASON, race_discard

HINT_LEVEL = LADDER[-1].name  # the strongest level searches for the hint
SEARCH_PREFERS = "the expert's search over sampled deals prefers it"  # a hint's reason


def view_key(view: SeatView) -> int:
    """A number fixed by what the seat saw (its view: its hand, the table, what it knows of the
    others), never by cards hidden from it."""
    return zlib.crc32(json.dumps(view.to_json(), sort_keys=True, default=str).encode())


def hint(view: SeatView, legal: Sequence[Action]) -> tuple[Action, str]:
    """The habit's suggestion for a seat, at once, with its reason."""
    if not legal:
        raise ValueError("no decision is waiting for this seat")
    return BasicBot().decide(view, legal)


def hinter() -> Bot:
    """A bot of the strongest level, to give ``searched_hint`` (a host may cap its search)."""
    bot = make_level(HINT_LEVEL)
    assert bot is not None
    return bot


def searched_hint(view: SeatView, legal: Sequence[Action], bot: Bot | None = None,
                  belief: HandBelief | None = None) -> tuple[Action, str]:
    """The strongest level's suggestion (``bot``, else a new ``hinter()``), with the habit's
    reason where the two agree. ``belief``: what the seat heard of the other hands this hand
    (``recall.belief_now`` of the game's record), which the search's worlds then follow. The
    search is seeded by the view, so the same position always gets the same hint."""
    basic, why = hint(view, legal)
    if len(legal) == 1:
        return basic, why
    bot = bot or hinter()
    follow = getattr(bot, "follow", None)
    if belief is not None and callable(follow):
        follow(belief)
    chosen = bot.choose(view, legal, random.Random(view_key(view)))
    if chosen == basic:
        return chosen, why
    if chosen.type == "borrow":  # the expert's rule, not a search
        return chosen, BORROW_REASON
    if chosen.type == "discard" and chosen == race_discard(view, legal):
        return chosen, RACE_REASON  # the race's rule, not a search
    return chosen, SEARCH_PREFERS
