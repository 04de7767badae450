"""Computer players: the ladder's levels ``level:1`` to ``level:8`` (``random``, ``basic`` and
``expert`` are levels 1, 5 and 7), the expert with a budget (``expert:400it``,
``expert:200ms``), external programs (``cmd:COMMAND``, ``cmd@2s:COMMAND``: the bot
protocol), all behind one interface (``Bot``), and hints for a seat."""

from __future__ import annotations

import re

from .base import Bot, RandomBot, bot_event, close_bot
from .basic import BasicBot
from .expert import ExpertBot
from .external import ExternalBot, make_external
from .hints import HINT_LEVEL, SEARCH_PREFERS, hint, hinter, searched_hint, view_key
from .ladder import (
    ALIASES,
    LADDER,
    Level,
    SlipBot,
    canonical,
    level_of,
    level_words,
    make_level,
)
from .recall import belief_now, recalled_hint

LEVELS = tuple(lv.name for lv in LADDER)  # the levels offered, weakest first


class BotSpecError(ValueError):
    """A bot name that is not a level (or has a malformed budget)."""


_CMD = re.compile(r"cmd(?:@(\d+(?:\.\d+)?)(ms|s))?:(.*)", re.IGNORECASE | re.DOTALL)


def make_bot(spec: str, *, timeout: float | None = None, cwd: str | None = None) -> Bot:
    """``level:1`` .. ``level:8`` (or ``random``, ``basic``, ``expert``), ``expert:400it``,
    ``expert:200ms``, or an external program: ``cmd:COMMAND`` (split like a shell would, run
    without one) with the per-decision time limit ``timeout`` (seconds; default
    ``LIVERPOOL_BOT_TIMEOUT`` or 5), or
    ``cmd@500ms:COMMAND`` / ``cmd@2s:COMMAND`` to give the limit in the spec. ``cwd`` is the
    directory the command runs in (default: the current one). No process starts until the
    bot's first game."""
    m = _CMD.fullmatch(spec.strip())
    if m:
        command = m.group(3).strip()
        if m.group(1) is not None:
            amount = float(m.group(1))
            timeout = amount / 1000 if m.group(2).lower() == "ms" else amount
            if not timeout > 0:
                raise BotSpecError(f"{spec!r}: the time limit must be positive")
        try:
            return make_external(command, timeout=timeout, cwd=cwd, name=spec.strip())
        except ValueError as e:
            raise BotSpecError(f"{spec!r}: {e}") from None
    text = spec.strip().lower()
    bot = make_level(text)
    if bot is not None:
        return bot
    m = re.fullmatch(r"expert:(\d+)(it|ms)", text)
    if m:
        amount = int(m.group(1))
        if amount <= 0:
            raise BotSpecError(f"{spec!r}: the budget must be positive")
        return ExpertBot(iterations=amount) if m.group(2) == "it" else ExpertBot(millis=amount)
    raise BotSpecError(f"unknown bot {spec!r}: use level:1 to level:{len(LADDER)} (or random, "
                       f"basic, expert), expert:400it, expert:200ms or cmd:COMMAND")


__all__ = ["ALIASES", "HINT_LEVEL", "LADDER", "LEVELS", "SEARCH_PREFERS", "BasicBot", "Bot",
           "BotSpecError", "ExpertBot", "ExternalBot", "Level", "RandomBot", "SlipBot",
           "belief_now", "bot_event", "canonical", "close_bot", "hint", "hinter", "level_of",
           "level_words", "make_bot", "recalled_hint", "searched_hint", "view_key"]
