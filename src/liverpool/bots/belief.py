"""What one seat believes of the other seats' hands, from what it has seen them do this hand.

Domain words: *belief* (for each other seat that is not down, ``PARTICLES`` guesses of its
unseen cards, each with a weight: a particle filter), *guess* (one particle: the cards of that
seat's hand nobody has seen), *hearing* (an engine event as this seat may see it,
``Event.for_seat``: queued by ``hear``, read at the seat's next decision by ``update``),
*sign* (what an event says of a hand: a discard, a take, a discard let go), *resampling* (the
guesses drawn again in proportion to their weights once a few carry most of it), *world*
(``Game.from_view`` with each followed seat's unseen cards those of a guess drawn by weight).

Why: the expert's search plays its candidates out in worlds, and the hand of the other seat in
those worlds decides what a discard costs. Dealt at random (``worlds.sample_world``) that hand
holds the cards another seat was seen to take and nothing else it did counts; with the true
hand the same search wins far more (docs/bots.md, "What the hidden cards are worth"). A belief
reads every sign of the hand, each judged with the hand the guess held then, as the playouts
judge a seat: the basic player's keep values and its test for taking a card.

How each event moves the guesses of the seat that made it:

- a card drawn from the stock: each guess draws one of the cards still unseen (the stock, as
  this seat knows it, is what no hand of the guess holds);
- the top discard let go (drawn from the stock instead, or passed in a buy round): a guess in
  which that seat would have wanted it weighs ``SLIP`` as much as one in which it would not;
- a card taken or bought: a guess that would have wanted it weighs ``1 - SLIP``, else ``SLIP``;
  the card is known to be in that hand from then on (the view's ``known``);
- a discard: a guess without that card is made to hold it (one of its unseen cards was that
  card), then weighs as likely as a player throwing it: ``exp(-SHARPNESS x keep)`` over the
  hand's cards, lowest keep first (a soft basic discard, so that another player's discard, or
  an expert's, is unlikely rather than impossible);
- going down: that seat's hand is on the table, no longer guessed (worlds deal its few cards
  at random as before).

At each update the guesses are brought back within what the seat sees now (cards since seen
elsewhere taken out, the hand's size as the view says). The first update of a hand starts
from random deals of the unseen cards, as ``Game.from_view`` would; a belief that has heard
nothing this hand (a bot driven without its events; hints and reviews rebuild a belief from
the game's record, ``recall``) gives the worlds of ``worlds.sample_world``, and so does a
belief at a table of more than ``MOST_PLAYERS`` (where it played worse when measured). Everything
random comes from the generator the bot is given.
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import Card
from ..engine import Game, SeatView, unseen_cards
from ..engine.events import Bought, Discarded, Drew, Event, HandStarted, Passed, Took, WentDown
from ..frozen import reduce_frozen
from .policy import fast_keep_values, wants
from .worlds import sample_world

PARTICLES = 512  # guesses per followed seat (256 played no better than random deals)
# the largest table followed: a belief is measured to pay at a table of two and to cost points
# at a table of four (docs/bots.md), where the worlds are dealt as before
MOST_PLAYERS = 2
SHARPNESS = 0.1  # how sharply a discard says the thrower kept its other cards (0: not at all)
SLIP = 0.15  # the weight of a guess whose seat would have taken a card it let go, and so on
WANT = 1.6  # the basic player's thresholds for taking and for buying a card (``BasicBot``)
BUY_WANT = 2.4


class HandBelief:
    """One seat's belief of the other hands (module docstring). ``hear`` may be called from
    another thread than ``update`` and ``sample`` (a host's loop while the bot thinks)."""

    def __init__(self, particles: int = PARTICLES, most_players: int = MOST_PLAYERS) -> None:
        if particles < 1:
            raise ValueError(f"a belief needs at least one guess, not {particles}")
        self.particles = particles
        self.most_players = most_players
        self.idle = False  # a hand at a larger table: nothing noted until the next hand
        self.queue: deque[Event] = deque()
        self.seat = -1
        self.hand_index = -1
        # per followed seat: its guesses (unseen cards) and their weights
        self.guesses: dict[int, list[list[Card]]] = {}
        self.weights: dict[int, list[float]] = {}
        self.known: dict[int, list[Card]] = {}  # cards seen taken, as the events tell
        self.offer: tuple[int, Card] | None = None  # the fresh top discard and who threw it
        self.heard = False  # whether this hand's guesses exist (an update since its start)

    # ---- hearing and updating --------------------------------------------------------------
    def hear(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self.idle = len(event.contract) > self.most_players
            if self.idle:
                self.queue.clear()
                self.queue.append(event)  # (the last hand's guesses go)
                return
        if not self.idle:
            self.queue.append(event)

    def update(self, view: SeatView, rng: random.Random) -> None:
        """Read what was heard since the last decision, with ``view`` (this seat's, now)."""
        events: list[Event] = []
        while self.queue:
            events.append(self.queue.popleft())
        cut = -1
        for i, event in enumerate(events):
            if isinstance(event, HandStarted):
                cut = i
        if cut >= 0:
            self.heard = False
            self.guesses = {}
            self.weights = {}
            events = events[cut + 1:]
        if view.seat is None or self.idle:
            return
        if not self.heard or view.hand_index != self.hand_index or view.seat != self.seat:
            # a new hand (or seat): the guesses start from random deals of what is unseen now;
            # only a hand whose start was heard is followed
            if cut < 0 and not self.heard:
                return
            self._start(view, rng)
            return
        pool = unseen_cards(view)
        cards = list(pool.elements())
        for event in events:
            self._read(event, view, pool, cards, rng)
        self._fit(view, pool, cards, rng)

    def _start(self, view: SeatView, rng: random.Random) -> None:
        self.seat = view.me
        self.hand_index = view.hand_index
        self.heard = True
        self.guesses = {}
        self.weights = {}
        self.offer = None
        cards = list(unseen_cards(view).elements())
        for s in range(len(view.players)):
            if s == view.me or view.down[s]:
                continue
            size = view.hand_sizes[s] - len(view.known[s])
            if size > len(cards):
                continue
            self.guesses[s] = [rng.sample(cards, size) for _ in range(self.particles)]
            self.weights[s] = [1.0] * self.particles
        self.known = {s: list(k) for s, k in enumerate(view.known)}

    def _read(self, event: Event, view: SeatView, pool: Counter[Card], cards: list[Card],
              rng: random.Random) -> None:
        if isinstance(event, Discarded):
            if event.seat in self.guesses:
                self._discarded(event.seat, event.card, view, rng)
            self.offer = (event.seat, event.card)
            return
        if isinstance(event, Drew):
            offer = self.offer
            self.offer = None
            followed = event.seat in self.guesses
            if followed and offer is not None and offer[0] != event.seat \
                    and not event.after_buys:
                self._weigh(event.seat, offer[1], view, WANT, SLIP, 1.0 - SLIP)
            if not followed or (event.buy_round and not event.after_buys):
                return  # (after a buy round the card comes with a second event)
            for guess in self.guesses[event.seat]:
                _draw(guess, pool, cards, rng)
            return
        if isinstance(event, (Took, Bought)):
            self.offer = None
            taken = [event.card] if isinstance(event, Took) else list(event.cards)
            if event.seat not in self.guesses:
                return
            threshold = WANT if isinstance(event, Took) else BUY_WANT
            self._weigh(event.seat, taken[-1], view, threshold, 1.0 - SLIP, SLIP)
            self.known.setdefault(event.seat, []).extend(taken)
            if isinstance(event, Bought):
                for guess in self.guesses[event.seat]:
                    for _ in range(event.penalty):
                        _draw(guess, pool, cards, rng)
            return
        if isinstance(event, Passed):
            if event.card is not None and event.seat in self.guesses:
                threshold = BUY_WANT if event.on == "buy" else WANT
                self._weigh(event.seat, event.card, view, threshold, SLIP, 1.0 - SLIP)
            return
        if isinstance(event, WentDown):
            self.guesses.pop(event.seat, None)
            self.weights.pop(event.seat, None)

    def _weigh(self, seat: int, card: Card, view: SeatView, threshold: float, wanted: float,
               unwanted: float) -> None:
        """Each guess's weight times ``wanted`` if its seat would have wanted ``card`` (the
        basic player's test at ``threshold``), else times ``unwanted``."""
        known = self.known.get(seat, [])
        contract, rules, melds = view.contract[seat], view.ruleset, view.melds
        weights = self.weights[seat]
        for i, guess in enumerate(self.guesses[seat]):
            w = wants([*known, *guess], card, contract, rules, melds, threshold)
            weights[i] *= wanted if w else unwanted

    def _discarded(self, seat: int, card: Card, view: SeatView, rng: random.Random) -> None:
        known = self.known.get(seat, [])
        contract, rules, melds = view.contract[seat], view.ruleset, view.melds
        weights = self.weights[seat]
        from_known = card in known
        for i, guess in enumerate(self.guesses[seat]):
            if not from_known and card not in guess and guess:
                guess[rng.randrange(len(guess))] = card
            keep = fast_keep_values([*known, *guess], contract, rules, False, melds)
            low = min(keep.values())
            total = sum(math.exp(-SHARPNESS * (v - low)) for v in keep.values())
            weights[i] *= math.exp(-SHARPNESS * (keep[card] - low)) / total
            if not from_known and card in guess:
                guess.remove(card)
        if from_known:
            known.remove(card)

    def _fit(self, view: SeatView, pool: Counter[Card], cards: list[Card],
             rng: random.Random) -> None:
        """The guesses brought within the view: no card seen elsewhere since, the hand's size;
        resampled when the weights concentrate."""
        for seat in list(self.guesses):
            if view.down[seat]:
                del self.guesses[seat]
                del self.weights[seat]
                continue
            size = view.hand_sizes[seat] - len(view.known[seat])
            for guess in self.guesses[seat]:
                for card, count in Counter(guess).items():
                    for _ in range(count - pool[card]):
                        guess.remove(card)
                while len(guess) > size:
                    guess.pop(rng.randrange(len(guess)))
                while len(guess) < size and _draw(guess, pool, cards, rng):
                    pass
            self._resample(seat, rng)
        self.known = {s: list(k) for s, k in enumerate(view.known)}

    def _resample(self, seat: int, rng: random.Random) -> None:
        weights = self.weights[seat]
        total = sum(weights)
        n = len(weights)
        if total <= 0.0 or math.isnan(total):
            self.weights[seat] = [1.0] * n
            return
        weights = [w / total for w in weights]
        if 1.0 / sum(w * w for w in weights) >= n / 2:
            self.weights[seat] = weights
            return
        # systematic resampling: one random offset, n evenly spaced draws
        guesses = self.guesses[seat]
        chosen: list[list[Card]] = []
        start = rng.random() / n
        cumulative = weights[0]
        j = 0
        for i in range(n):
            x = start + i / n
            while x > cumulative and j < n - 1:
                j += 1
                cumulative += weights[j]
            chosen.append(list(guesses[j]))
        self.guesses[seat] = chosen
        self.weights[seat] = [1.0 / n] * n

    # ---- worlds ----------------------------------------------------------------------------
    def follows(self, view: SeatView) -> bool:
        """Whether this belief has guesses for ``view``'s hand."""
        return self.heard and view.hand_index == self.hand_index and view.seat == self.seat \
            and bool(self.guesses)

    def sample(self, view: SeatView, rng: random.Random) -> Game:
        """A world for ``view``: each followed seat's unseen cards from a guess drawn by weight
        (a guess that no longer fits the world's cards leaves that hand dealt at random)."""
        if not self.follows(view):
            return sample_world(view, rng)
        return _deal(view, self.guesses, self.weights, rng)

    def snapshot(self, view: SeatView) -> Guesses | None:
        """The guesses for ``view``'s hand as they stand, frozen (None: none are followed)."""
        if not self.follows(view):
            return None
        return Guesses(tuple((seat, tuple(tuple(g) for g in guesses),
                              tuple(self.weights[seat]))
                             for seat, guesses in sorted(self.guesses.items())))

    def expected(self, seat: int) -> dict[Card, float]:
        """Expected copies of each card among ``seat``'s unseen cards (empty: not followed)."""
        out: dict[Card, float] = {}
        weights = self.weights.get(seat, [])
        total = sum(weights)
        for guess, w in zip(self.guesses.get(seat, []), weights, strict=True):
            for c in guess:
                out[c] = out.get(c, 0.0) + w / total
        return out


@dataclass(frozen=True, slots=True)
class Guesses:
    """A belief's guesses at one decision, frozen: per followed seat its guesses and their
    weights (``HandBelief.snapshot``). A review's decision carries them to the process that
    weighs it, which deals its worlds from them as the belief would."""

    seats: tuple[tuple[int, tuple[tuple[Card, ...], ...], tuple[float, ...]], ...]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    def sample(self, view: SeatView, rng: random.Random) -> Game:
        """A world for ``view`` (the view the guesses were taken at), as ``HandBelief.sample``."""
        if not self.seats:
            return sample_world(view, rng)
        return _deal(view, {s: g for s, g, _ in self.seats}, {s: w for s, _, w in self.seats},
                     rng)


def _deal(view: SeatView, guesses: Mapping[int, Sequence[Sequence[Card]]],
          weights: Mapping[int, Sequence[float]], rng: random.Random) -> Game:
    """``Game.from_view`` with each seat of ``guesses`` not down holding a guess drawn by
    weight (a guess that no longer fits the world's cards leaves that hand dealt at random)."""
    world = Game.from_view(view, rng)
    for seat, seat_guesses in guesses.items():
        if view.down[seat]:
            continue
        known = Counter(view.known[seat])
        dealt = Counter(world.hands[seat]) - known
        pool = dealt + Counter(world.stock)
        guess = Counter(rng.choices(seat_guesses, weights=weights[seat])[0])
        if sum(dealt.values()) != sum(guess.values()) or guess - pool:
            continue
        world.hands[seat] = [*known.elements(), *guess.elements()]
        rest = list((pool - guess).elements())
        rng.shuffle(rest)
        world.stock = rest
    return world


def _draw(guess: list[Card], pool: Counter[Card], cards: list[Card], rng: random.Random) -> bool:
    """One unseen card not already used up by ``guess`` added to it (False: none is left)."""
    if len(guess) >= len(cards):
        return False
    held = Counter(guess)
    for _ in range(64):
        # a copy drawn uniformly among the unseen, kept if the guess does not hold it already
        c = cards[rng.randrange(len(cards))]
        if rng.randrange(pool[c]) < pool[c] - held[c]:
            guess.append(c)
            return True
    free = list((pool - held).elements())
    if not free:
        return False
    guess.append(free[rng.randrange(len(free))])
    return True
