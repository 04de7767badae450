"""The expert bot: determinized Monte Carlo search over the cards it cannot see.

Domain words: *world* (a full game state consistent with the bot's view: the hidden cards dealt
at random to the other seats' unknown places and the stock, cards they were seen to take kept in
their hands), *candidate* (a legal action worth comparing), *playout* (the world played on to
the end of the hand by the playout policy, ``policy.play_out``), *budget* (worlds per searched
decision, ``expert:400it``, or time, ``expert:200ms``), *obvious decision* (one the bot answers
without searching).

Only decisions that matter are searched: taking the discard or drawing when the top card would
help, buying a card that would help, and the discard when several cards are close in keep
value. Every candidate is played out in the same worlds with the same random numbers (common
random numbers), so the comparison measures the decision, not the luck of the deal, and each
playout is scored by the end-of-hand points: the expert's points minus the other seats' mean.
The basic choice is the default; the search overrules it only when the paired differences say
clearly that an alternative scores better.
Everything else (lay-offs, calls, gives, the cut, a useless card offered for sale) is answered
at once by the basic rules.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from ..actions import Action
from ..engine import Game, SeatView
from .base import by_type
from .basic import BasicBot
from .heuristics import fits_table, keep_values, usefulness
from .policy import play_out

DEFAULT_ITERATIONS = 8
PLAYOUT_ROUNDS = 10  # a playout stops after this many rounds of turns if the hand goes on
CONFIDENCE = 1.0  # standard errors by which an alternative must beat the basic choice
DISCARD_CANDIDATES = 3
DISCARD_MARGIN = 14.0  # keep-value gap beyond which the lowest card is plainly the discard
TAKE_THRESHOLD = 0.8  # usefulness below which the top discard is not worth a search
BUY_THRESHOLD = 1.6
MAX_HAND_FOR_BUY = 18


class ExpertBot:
    """``clock`` (seconds) measures a time budget; ``worlds_sampled`` counts the worlds the
    bot has sampled in all its searches (0 when every decision was obvious)."""

    def __init__(self, iterations: int | None = None, millis: float | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if iterations is None and millis is None:
            iterations = DEFAULT_ITERATIONS
        self.iterations = iterations
        self.millis = millis
        if millis is not None:
            self.name = f"expert:{millis:g}ms"
        elif iterations == DEFAULT_ITERATIONS:
            self.name = "expert"
        else:
            self.name = f"expert:{iterations}it"
        self.basic = BasicBot()
        self.clock = clock
        self.worlds_sampled = 0

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        candidates = self.candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        return candidates[self.search(view, candidates, rng)]

    # ---- which decisions are searched, and between what ----------------------------------
    def candidates(self, view: SeatView, legal: Sequence[Action]) -> list[Action]:
        """The legal actions worth comparing, the basic choice first; one means obvious."""
        first = self.basic.decide(view, legal)[0]
        phase = view.phase
        groups = by_type(legal)
        seat = view.seat
        down = view.down[seat]
        rules = view.ruleset
        contract = view.contract[seat]
        if phase == "draw" and "take_discard" in groups and view.discard and not down:
            top = view.discard[-1]
            if usefulness([*view.hand, top], contract, rules)[top] < TAKE_THRESHOLD:
                return [first]
            return _unique([first, *groups["take_discard"], *groups.get("draw", []),
                            *groups.get("no_draw", [])])
        if phase == "buy" and "buy" in groups and not down:
            top = view.discard[-1]
            if len(view.hand) > MAX_HAND_FOR_BUY or \
                    usefulness([*view.hand, top], contract, rules)[top] < BUY_THRESHOLD:
                return [first]
            plain = [a for a in groups["buy"] if a.depth is None]
            return _unique([first, *plain[:1], *groups["pass"]])
        if phase == "play" and not down and "discard" in groups and "go_down" not in groups \
                and "swap_joker" not in groups:
            keep = keep_values(view.hand, contract, rules, False, view.melds)
            ranked = sorted(groups["discard"],
                            key=lambda a: (keep[a.card] if a.card is not None else 0.0,
                                           -(a.card or 0)))
            low = keep[ranked[0].card] if ranked[0].card is not None else 0.0
            close = [a for a in ranked[:DISCARD_CANDIDATES]
                     if a.card is not None and keep[a.card] - low <= DISCARD_MARGIN
                     and not fits_table(a.card, view.melds, rules)]
            return _unique([first, *close])
        return [first]

    # ---- the search --------------------------------------------------------------------------
    def search(self, view: SeatView, candidates: Sequence[Action], rng: random.Random) -> int:
        """Index of the chosen candidate. Every candidate is scored in the same worlds; an
        alternative replaces the first candidate (the basic choice) only when its mean score is
        better by more than ``CONFIDENCE`` standard errors of the paired differences, so a
        small budget's noise does not make the bot play worse than its heuristic."""
        scores: list[list[float]] = [[] for _ in candidates]
        deadline = None if self.millis is None else self.clock() + self.millis / 1000
        worlds = 0
        horizon = PLAYOUT_ROUNDS * len(view.players)
        while True:
            if deadline is None:
                if worlds >= (self.iterations or 0):
                    break
            elif worlds > 0 and self.clock() >= deadline:
                break
            world = Game.from_view(view, rng)
            self.worlds_sampled += 1
            seed = rng.getrandbits(32)
            for i, cand in enumerate(candidates):
                g = world.clone()
                g.apply(cand)
                scores[i].append(play_out(g, view.seat, random.Random(seed), horizon))
            worlds += 1
        return pick(scores)


def pick(scores: Sequence[Sequence[float]]) -> int:
    """The candidate to play from per-world scores (lower is better), candidate 0 the default:
    the alternative with the best mean, if its paired advantage over candidate 0 is clear."""
    n = len(scores[0])
    base = scores[0]
    best, best_mean = 0, 0.0
    for i in range(1, len(scores)):
        diffs = [a - b for a, b in zip(scores[i], base, strict=True)]
        mean = sum(diffs) / n
        if n > 1:
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean > -CONFIDENCE * math.sqrt(var / n):
                continue
        elif mean >= 0:
            continue
        if mean < best_mean:
            best, best_mean = i, mean
    return best


def _unique(actions: Sequence[Action]) -> list[Action]:
    return list(dict.fromkeys(actions))
