"""Ratings of players and bots on one scale: OpenSkill's Weng-Lin model (Plackett-Luce) over a
game's places (docs/ratings.md says why this model and how the bots' ratings were measured).

Domain words: *rating* (``Rating``: the model's belief about a player's skill, a mean ``mu``
and an uncertainty ``sigma``, both in rating points), *shown rating* (``mu`` rounded, what a
person reads; *provisional* while ``sigma`` is large, shown with a "?"), *conservative rating*
(``mu - 2 sigma``: what the leaderboard orders by, so that one lucky game does not top it),
*place* (1 = best; seats that tie share a place), *entry* (one seat of a rated game: its rating
before, its place, and whether it is *fixed*: a built-in bot, whose rating the game does not
change), *update* (``rate``: every seat's rating after one game, applied once per game).

The scale is OpenSkill's defaults times 60: a new player starts at 1500 +- 500, the
basic bot sits at 1500 (the anchor of the bots' measurement), and a difference of 250 (the
model's ``beta``) is about a 76% chance of finishing above a 2-player opponent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SCALE = 60.0
MU = 25.0 * SCALE  # 1500: a new player's rating
SIGMA = MU / 3  # 500: a new player's uncertainty
BETA = SIGMA / 2  # 250: the spread of one game's performance around the skill
TAU = MU / 300  # 5: the drift added each game, so that a rating can still move after many
PROVISIONAL_SIGMA = 230.0  # above this a rating is shown with "?" (a few games' worth)
FAMILY = "all"  # one rating for every preset (docs/ratings.md: why not one per preset)


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating: mean skill and its uncertainty, in rating points."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> int:
        return round(self.mu)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    @property
    def conservative(self) -> float:
        return self.mu - 2 * self.sigma

    def text(self) -> str:
        return f"{self.shown}{'?' if self.provisional else ''}"

    def to_json(self) -> dict[str, float | int | bool]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3), "rating": self.shown,
                "provisional": self.provisional}

    @staticmethod
    def from_json(obj: object) -> Rating:
        if not isinstance(obj, dict):
            raise ValueError("a rating is an object {mu, sigma}")
        mu, sigma = obj.get("mu"), obj.get("sigma")
        if isinstance(mu, bool) or isinstance(sigma, bool) or not isinstance(mu, int | float) \
                or not isinstance(sigma, int | float) or not sigma > 0:
            raise ValueError("a rating needs a number mu and a positive number sigma")
        return Rating(float(mu), float(sigma))


# The ladder's ratings, fixed (basic, level 5, held at 1500; mu the Plackett-Luce maximum
# likelihood, sigma the bootstrap's standard error, at least 40). Levels 1 and 5 (random,
# basic) from ``liverpool bench bot-ratings --games 7500 --workers 1 --seed 1`` (7422 games of
# 2 to 4 seats; docs/ratings-bots.md); levels 2 to 4 from the round robin in duplicate
# ``liverpool bench ladder --games 8 --workers 2 --seed 1`` of an earlier version (448 2-player
# games; their bots have not changed since); level 6 (the learned discard and buy) from the same
# command's run before the borrow, levels 7 and 8 (the expert, which now reads the other hand
# at a table of two) from its run on this version (docs/bots.md, "The ladder's ratings"), which
# put the unchanged levels within the earlier intervals.
# Sigma is the measurement's uncertainty, so a game against a bot moves a
# person as far as the model says a game against a player so well known should.
BOT_RATINGS: dict[str, Rating] = {
    "level:1": Rating(-813.8, 71.0),
    "level:2": Rating(475.6, 190.3),
    "level:3": Rating(1107.2, 106.4),
    "level:4": Rating(1353.1, 94.7),
    "level:5": Rating(1500.0, 40.0),
    "level:6": Rating(1833.0, 107.2),
    "level:7": Rating(1819.3, 103.2),
    "level:8": Rating(2019.2, 114.7),
}


def bot_rating(level: str | None) -> Rating | None:
    """A built-in bot level's fixed rating (``level:N`` or an alias: ``expert`` is level 7);
    None for a level that has none (a host's own command bot, whose strength nobody
    measured)."""
    from .bots.ladder import canonical
    return BOT_RATINGS.get(canonical(level or ""))


@dataclass(frozen=True, slots=True)
class Entry:
    """One seat of a game to rate: its rating before, its place, and whether it is fixed."""

    rating: Rating
    place: int
    fixed: bool = False


def entry_for(place: int, bot: bool, level: str | None = None,
              rating: Rating | None = None) -> Entry:
    """One seat's entry in a game's update, the same for every front end: a built-in bot with
    its fixed rating; anybody else with their rating, or a newcomer's (a guest, a bot whose
    strength was never measured): only a player's own seat keeps what the update gives it."""
    fixed = bot_rating(level) if bot else None
    if fixed is not None:
        return Entry(fixed, place, True)
    return Entry(rating or Rating(), place)


def places(totals: Sequence[int], last: Sequence[int] = ()) -> tuple[int, ...]:
    """Each seat's place from its total points (fewest first; equal totals share a place).
    The seats in ``last`` (people who left before the end) come after every other seat,
    sharing the last place whatever their points."""
    stay = [s for s in range(len(totals)) if s not in set(last)]
    out = [0] * len(totals)
    for s in stay:
        out[s] = 1 + sum(1 for o in stay if totals[o] < totals[s])
    for s in last:
        out[s] = len(stay) + 1
    return tuple(out)


def _model() -> Any:
    from openskill.models import PlackettLuce  # (imported when first needed: a second of start)
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


_MODEL: Any = None


def rate(entries: Sequence[Entry]) -> list[Rating]:
    """Every seat's rating after a game (a fixed seat's is its rating before). Fewer than two
    seats: nothing to learn, the ratings are returned as they were."""
    global _MODEL
    if len(entries) < 2:
        return [e.rating for e in entries]
    if _MODEL is None:
        _MODEL = _model()
    model = _MODEL
    teams = [[model.rating(mu=e.rating.mu, sigma=e.rating.sigma)] for e in entries]
    after = model.rate(teams, ranks=[e.place for e in entries])
    return [e.rating if e.fixed else Rating(float(t[0].mu), float(t[0].sigma))
            for e, t in zip(entries, after, strict=True)]
