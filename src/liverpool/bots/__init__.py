"""Computer players: ``random``, ``basic`` and ``expert`` (with ``expert:400it`` or
``expert:200ms`` budgets), all behind one interface (``Bot``), and hints for a seat."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..actions import Action
from ..engine import SeatView
from .base import Bot, RandomBot, bot_event, close_bot
from .basic import BasicBot
from .expert import ExpertBot

LEVELS = ("random", "basic", "expert")


class BotSpecError(ValueError):
    """A bot name that is not a level (or has a malformed budget)."""


def make_bot(spec: str) -> Bot:
    """``random``, ``basic``, ``expert``, ``expert:400it``, ``expert:200ms``."""
    text = spec.strip().lower()
    if text == "random":
        return RandomBot()
    if text == "basic":
        return BasicBot()
    if text == "expert":
        return ExpertBot()
    m = re.fullmatch(r"expert:(\d+)(it|ms)", text)
    if m:
        amount = int(m.group(1))
        if amount <= 0:
            raise BotSpecError(f"{spec!r}: the budget must be positive")
        return ExpertBot(iterations=amount) if m.group(2) == "it" else ExpertBot(millis=amount)
    raise BotSpecError(f"unknown bot {spec!r}: use random, basic, expert, expert:400it or "
                       f"expert:200ms")


def hint(view: SeatView, legal: Sequence[Action]) -> tuple[Action, str]:
    """The suggested action for a seat, with a short reason a player understands."""
    if not legal:
        raise ValueError("no decision is waiting for this seat")
    return BasicBot().decide(view, legal)


__all__ = ["LEVELS", "BasicBot", "Bot", "BotSpecError", "ExpertBot", "RandomBot", "bot_event",
           "close_bot", "hint", "make_bot"]
