"""The ladder: eight levels of computer player, from ``level:1`` (a beginner who often misses a
meld) to ``level:8`` (the strongest expert), each a fixed configuration of the built-in bots
with a rating on the players' scale (``ratings.BOT_RATINGS``, measured by ``liverpool bench
ladder``: docs/bots.md, "The ladder"). The first names stay as aliases: ``random`` is level 1,
``basic`` level 5 and ``expert`` level 7.

Domain words: *level* (a rung of the ladder: number, title, the bot it builds), *slip* (a
decision a careless player makes without thinking: a kind of action picked uniformly, then an
action of that kind, so a slip at the moment to go down misses the meld as often as not),
*alias* (an older name of a level).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..actions import Action
from ..engine import SeatView
from .base import Bot, RandomBot, by_type
from .basic import BasicBot
from .expert import ExpertBot
from .learned import LearnedBot


class SlipBot:
    """A bot that, before each decision with a choice, slips with probability ``slip`` (drawn
    from the seat's own seeded RNG, so a game stays a function of its seed) and otherwise asks
    ``inner``."""

    def __init__(self, inner: Bot, slip: float, name: str) -> None:
        if not 0.0 <= slip <= 1.0:
            raise ValueError(f"a slip is a probability (0 to 1), not {slip!r}")
        self.inner = inner
        self.slip = slip
        self.name = name

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) > 1 and rng.random() < self.slip:
            groups = by_type(legal)
            return rng.choice(groups[rng.choice(sorted(groups))])
        return self.inner.choose(view, legal, rng)


@dataclass(frozen=True, slots=True)
class Level:
    """One rung: ``level:number``, a title and a line for people, and how its bot is built."""

    number: int
    title: str
    about: str
    build: Callable[[str], Bot]
    alias: str | None = None

    @property
    def name(self) -> str:
        return f"level:{self.number}"


def _random(name: str) -> Bot:
    bot = RandomBot()
    bot.name = name
    return bot


def _slipping(slip: float) -> Callable[[str], Bot]:
    return lambda name: SlipBot(BasicBot(), slip, name)


def _basic(name: str) -> Bot:
    bot = BasicBot()
    bot.name = name
    return bot


def _learned(name: str) -> Bot:
    bot = LearnedBot()
    bot.name = name
    return bot


def _expert(iterations: int, most: int) -> Callable[[str], Bot]:
    def build(name: str) -> Bot:
        bot = ExpertBot(iterations=iterations, most=most)
        bot.name = name
        return bot
    return build


LADDER: tuple[Level, ...] = (
    Level(1, "Beginner", "plays any legal move at random, but always goes down when it can",
          _random, alias="random"),
    Level(2, "Novice", "the basic player, but half its decisions made without thinking: "
                       "often misses a meld or throws a card it needed", _slipping(0.5)),
    Level(3, "Learner", "the basic player, one decision in four made without thinking",
          _slipping(0.25)),
    Level(4, "Casual", "the basic player, one decision in ten made without thinking",
          _slipping(0.1)),
    Level(5, "Solid", "sound habits: keeps what builds its contract, goes down at once, lays "
                      "off all it can, throws its least useful card", _basic, alias="basic"),
    Level(6, "Sharp", "the solid player with a learned eye for the discard and the buy: it "
                      "throws the card least likely to cost it and buys what pays, as learned "
                      "from deals where every hand was seen",
          _learned),
    Level(7, "Expert", "searches each draw, buy and discard that matters over 8 to 32 "
                       "sampled deals", _expert(8, 32), alias="expert"),
    Level(8, "Master", "the expert with a deeper search: 16 to 64 sampled deals a decision",
          _expert(16, 64)),
)
BY_NAME: dict[str, Level] = {lv.name: lv for lv in LADDER}
ALIASES: dict[str, str] = {lv.alias: lv.name for lv in LADDER if lv.alias}


def level_of(spec: str) -> Level | None:
    """The ladder's level named ``spec`` (``level:N`` or an alias, any case), else None."""
    text = spec.strip().lower()
    return BY_NAME.get(ALIASES.get(text, text))


def canonical(spec: str) -> str:
    """``level:N`` for a level or alias; any other spec as given."""
    lv = level_of(spec)
    return lv.name if lv is not None else spec


def level_words(spec: str) -> str:
    """A bot's level for people: ``level 2, Novice`` (an alias: ``expert, level 7``); any other
    spec as given."""
    lv = level_of(spec)
    if lv is None:
        return spec
    text = spec.strip().lower()
    if text in ALIASES:
        return f"{text}, level {lv.number}"
    return f"level {lv.number}, {lv.title}"


def make_level(spec: str) -> Bot | None:
    """The bot of a level (named as written: an alias keeps its name), else None."""
    lv = level_of(spec)
    if lv is None:
        return None
    text = spec.strip().lower()
    return lv.build(text if text in ALIASES else lv.name)
