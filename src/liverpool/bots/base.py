"""The bot interface: a bot sees one seat's view and that seat's legal actions, gets its own
seeded RNG, and returns one of the legal actions, at every decision point.

Domain words: *view* (``SeatView``: what the seat may know), *legal actions* (from the engine),
*decision* (one call of ``choose``), *level* (random, basic, expert).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..actions import Action
from ..engine import Event, SeatView


class Bot(Protocol):
    """Anything that picks an action from a view and the legal actions."""

    name: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        ...


def by_type(legal: Sequence[Action]) -> dict[str, list[Action]]:
    out: dict[str, list[Action]] = {}
    for a in legal:
        out.setdefault(a.type, []).append(a)
    return out


def random_choice(legal: Sequence[Action], rng: random.Random) -> Action:
    """Random legal play over one seat's legal actions: the suggested go-down whenever there is
    one (otherwise a random player would almost never go down), else a uniform action type,
    then a uniform action of that type."""
    groups = by_type(legal)
    if "go_down" in groups:
        return groups["go_down"][0]
    kind = rng.choice(sorted(groups))
    return rng.choice(groups[kind])


class RandomBot:
    """Random legal play as a bot (``random_choice``)."""

    name = "random"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return random_choice(legal, rng)


def bot_event(bot: object, event: dict[str, object]) -> None:
    """Tell a bot about a game event (``game_start``, ``hand_end``, ``game_end``) if it listens;
    built-in bots don't need them, external ones (``cmd:``) forward them to their program."""
    listener = getattr(bot, "event", None)
    if callable(listener):
        listener(event)


def bot_observe(bot: object, event: Event) -> None:
    """Tell a bot an engine event as its seat may see it, if it reads them (``observe``: the
    expert's belief of the other hands). It must only note the event: it is told on the
    host's loop, perhaps while it thinks on another thread."""
    observer = getattr(bot, "observe", None)
    if callable(observer):
        observer(event)


def close_bot(bot: object) -> None:
    """Release what a bot holds (an external bot's process); a no-op for built-in bots."""
    closer = getattr(bot, "close", None)
    if callable(closer):
        closer()
