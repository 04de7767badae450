"""The expert bot: determinized Monte Carlo search over the cards it cannot see.

Domain words: *world* (a full game state consistent with the bot's view: the hidden cards dealt
at random to the other seats' unknown places and the stock, cards they were seen to take kept in
their hands), *candidate* (a legal action worth comparing), *playout* (the world played on to
the end of the hand by the playout policy, ``policy.play_out``), *budget* (worlds per searched
decision, ``expert:400it``, or time, ``expert:200ms``; the default looks at 8 worlds and adds 8
at a time up to 32 while an alternative is ahead of the basic choice but not clearly), *obvious
decision* (one the bot answers without searching).

Worlds come from the bot's *belief* (``belief.HandBelief``): told the engine's events as its seat
sees them (``observe``, by the match), it follows each other seat's hand through the hand with
weighted guesses, each sign (a discard, a take, a card let go) judged with the hand the guess
held then; a world takes a seat's unseen cards from a guess (a hint or a review rebuilds the
belief from the game's record, ``recall``, and gives it to the bot, ``follow``). Without the
hand's events or with ``belief=False``: ``worlds.sample_world``, the hidden cards dealt at random,
then the seat that just threw the top discard away (and the seat that just let it go) dealt
again where needed so that, judged as the basic bot judges, it would have done what it was
seen to do.

The default a search must beat is the basic bot's choice, except for the discard and the buy of
a seat not down (and its take, where a learned take has weights: none has shown a gain yet),
where it is the learned choice (``learned``; ``learned=False`` keeps the basic choice there
too).

Only decisions that matter are searched: taking the discard or drawing when the top card would
help, buying a card that would help, and the discard of a seat not down (among its cards of
lowest keep value, however far apart: the lowest is often a card another seat collects). In a
*race hand* (``race``: a runs-only contract whose go-down melds every card) the discard of a
seat not down is not searched but made by the race's own rule, the card that leaves the hand
nearest to going out: playouts cut short are scored by the points held, which is not what a
race is played for.
Every candidate is played out in the same worlds with the same random numbers (common random
numbers), so the comparison measures the decision, not the luck of the deal, and each
playout is scored by the end-of-hand points: the expert's points minus the other seats' mean.
The default stays unless the paired differences say clearly that an alternative scores better.
A down seat that may borrow (``house``) borrows at once, the borrow that sheds most cards
(``heuristics.best_borrow``): the basic rules never borrow, and a seat that does goes out
sooner and pays less when the hand ends. Everything else (lay-offs, calls, gives, the cut, a
useless card offered for sale) is answered at once by the basic rules.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from ..actions import Action
from ..cards import Card, wild_cards
from ..engine import Event, Game, SeatView
from .base import by_type
from .basic import BasicBot
from .belief import HandBelief
from .heuristics import best_borrow, fits_table, keep_values, unseen_by_rank, usefulness
from .learned import BUY_FLOOR, BUY_MOST_HAND, CANDIDATES, TAKE_FLOOR, learned_option
from .learned import best as learned_best
from .learned import candidates as discard_candidates
from .policy import play_out
from .race import race_discard
from .worlds import sample_world

Sampler = Callable[[SeatView, random.Random], Game]  # a world for a view, from a generator

DEFAULT_ITERATIONS = 8  # worlds before the search first looks at its scores
DEFAULT_MOST = 32  # worlds at most (default budget), while no candidate is clearly ahead
STEP = 8  # worlds added at a time while the answer is open
CLEAR = 2.5  # standard errors of the paired differences that settle a search early
PLAYOUT_ROUNDS = 10  # a playout stops after this many rounds of turns if the hand goes on
CONFIDENCE = 1.0  # standard errors by which an alternative must beat the basic choice
DISCARD_CANDIDATES = CANDIDATES  # the discards of lowest keep value weighed by a search
TAKE_THRESHOLD = TAKE_FLOOR  # usefulness below which the top discard is not worth a search
BUY_THRESHOLD = BUY_FLOOR
MAX_HAND_FOR_BUY = BUY_MOST_HAND
LIVE_WEIGHT = 2.0  # keep points per unseen copy of a rank (sets-only contracts)
LIVE_PIVOT = 3  # unseen copies at which a card is judged as the basic bot judges it


class ExpertBot:
    """``clock`` (seconds) measures a time budget; ``worlds_sampled`` counts the worlds the
    bot has sampled in all its searches (0 when every decision was obvious); ``worlds`` deals
    them."""

    def __init__(self, iterations: int | None = None, millis: float | None = None,
                 clock: Callable[[], float] = time.perf_counter, most: int | None = None,
                 learned: bool = True, worlds: Sampler | None = None, belief: bool = True
                 ) -> None:
        if most is not None and (iterations is None or most < iterations):
            raise ValueError("most (worlds at most) needs iterations, and at least as many")
        if most is None:
            most = iterations
        if iterations is None and millis is None:
            iterations = DEFAULT_ITERATIONS
            most = DEFAULT_MOST
        self.iterations = iterations
        self.most = most  # worlds at most: more than ``iterations`` only while the answer is open
        self.millis = millis
        if millis is not None:
            self.name = f"expert:{millis:g}ms"
        elif most == DEFAULT_MOST and iterations == DEFAULT_ITERATIONS:
            self.name = "expert"
        elif most != iterations:
            self.name = f"expert:{iterations}-{most}it"
        else:
            self.name = f"expert:{iterations}it"
        # the learned discard as the default a search must beat (a seat not down), not the
        # basic bot's
        self.learned = learned
        if not learned:
            self.name += "+basic-first"
        self.basic = BasicBot()
        # what it believes of the other hands, from the events it is told (``observe``);
        # ``belief=False``: the worlds of ``worlds.sample_world``, as the expert before it
        self.belief = HandBelief() if belief else None
        if not belief:
            self.name += "+no-belief"
        # where the search's worlds come from: the belief in play; a study of what the hidden
        # cards are worth gives one that deals the true hands (scripts/expert_sighted.py)
        self.own_worlds = worlds is None  # (``follow`` swaps the belief's worlds, not a study's)
        self.worlds: Sampler = worlds if worlds is not None else \
            self.belief.sample if self.belief is not None else sample_world
        self.clock = clock
        self.worlds_sampled = 0
        # the most milliseconds one search may take, whatever its budget: set by a host that
        # shares its workers between tables (the web server), None elsewhere
        self.cap_ms: float | None = None

    def observe(self, event: Event) -> None:
        """An engine event as this seat may see it (the match tells it): noted for the belief."""
        if self.belief is not None:
            self.belief.hear(event)

    def follow(self, belief: HandBelief) -> None:
        """Take ``belief`` for its own from now on: a hint's, rebuilt from the game's record
        (``bots.recall``) for a seat this bot has not been playing. An expert without a belief
        (``belief=False``) stays without."""
        if self.belief is None:
            return
        self.belief = belief
        if self.own_worlds:
            self.worlds = belief.sample

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if self.belief is not None:
            self.belief.update(view, rng)
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
        seat = view.me
        down = view.down[seat]
        rules = view.ruleset
        contract = view.contract[seat]
        if phase == "draw" and "take_discard" in groups and view.discard and not down:
            top = view.discard[-1]
            if usefulness([*view.hand, top], contract, rules)[top] < TAKE_THRESHOLD:
                return [first]
            if self.learned:
                first = learned_option(view, legal) or first
            return _unique([first, *groups["take_discard"], *groups.get("draw", []),
                            *groups.get("no_draw", [])])
        if phase == "buy" and "buy" in groups and not down:
            top = view.discard[-1]
            if len(view.hand) > MAX_HAND_FOR_BUY or \
                    usefulness([*view.hand, top], contract, rules)[top] < BUY_THRESHOLD:
                return [first]
            plain = [a for a in groups["buy"] if a.depth is None]
            if self.learned:
                first = learned_option(view, legal) or first
            return _unique([first, *plain[:1], *groups["pass"]])
        if phase == "play" and down and "borrow" in groups and "swap_joker" not in groups:
            borrow = best_borrow(groups["borrow"], rules)
            if borrow is not None:
                return [borrow]
        if phase == "play" and not down and "discard" in groups and "go_down" not in groups \
                and "swap_joker" not in groups:
            race = race_discard(view, groups["discard"])
            if race is not None:
                return [race]
            keep = keep_values(view.hand, contract, rules, False, view.melds)
            close = discard_candidates(view, keep, groups["discard"])
            if self.learned:
                first = learned_best(view, close, keep) or first
            if contract.sets and not contract.runs:
                dead = deadest_discard(view, groups["discard"], keep)
                if dead is not None:
                    close.append(dead)
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
        cap = None if self.cap_ms is None else self.clock() + self.cap_ms / 1000
        worlds = 0
        horizon = PLAYOUT_ROUNDS * len(view.players)
        while True:
            if cap is not None and worlds > 0 and self.clock() >= cap:
                break
            if deadline is None:
                if worlds >= (self.iterations or 0) and (
                        worlds >= (self.most or 0) or (worlds % STEP == 0 and not is_open(scores))):
                    break
            elif worlds > 0 and self.clock() >= deadline:
                break
            world = self.worlds(view, rng)
            self.worlds_sampled += 1
            seed = rng.getrandbits(32)
            for i, cand in enumerate(candidates):
                g = world.clone()
                g.apply(cand)
                scores[i].append(play_out(g, view.me, random.Random(seed), horizon))
            worlds += 1
        return pick(scores)


def deadest_discard(view: SeatView, options: Sequence[Action], keep: dict[Card, float]
                    ) -> Action | None:
    """In a contract of sets only: the discard of lowest keep value once each card not yet in
    a made group is judged by how many copies of its rank are still unseen (a lone card or a
    pair whose rank is mostly gone will hardly become a set; one with many copies left may)."""
    rules = view.ruleset
    unseen = unseen_by_rank(view)
    use = usefulness(view.hand, view.contract[view.me], rules)
    wilds = wild_cards(rules.deuces_wild)
    best: Action | None = None
    best_value = 0.0
    for a in options:
        c = a.card
        if c is None or c in wilds or fits_table(c, view.melds, rules):
            continue
        value = keep[c]
        if use[c] < 3.0:
            value += LIVE_WEIGHT * (unseen[c % 13] - LIVE_PIVOT)
        if best is None or value < best_value:
            best, best_value = a, value
    return best


def paired(scores: Sequence[Sequence[float]], i: int) -> tuple[float, float]:
    """Mean and standard error of candidate ``i``'s score minus candidate 0's, world by world."""
    n = len(scores[0])
    diffs = [a - b for a, b in zip(scores[i], scores[0], strict=True)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def is_open(scores: Sequence[Sequence[float]]) -> bool:
    """Whether more worlds could still change the answer: some alternative scores better than
    the basic choice so far, but not yet by ``CLEAR`` standard errors."""
    any_ahead = False
    for i in range(1, len(scores)):
        mean, se = paired(scores, i)
        if mean < -CLEAR * se:
            return False
        if mean < 0:
            any_ahead = True
    return any_ahead


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
