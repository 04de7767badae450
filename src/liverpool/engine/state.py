"""The game's state as a value: every field declared once, with how it is copied, compared and
shown to a seat.

Domain words: *phase* (the decision point the game waits at), *state field* (one piece of the
state; its *scope* says when it is reset: fixed for the game, kept across hands, dealt each hand,
reset each turn), *copy kind* (how a clone copies it), *view* (whether a seat's view shows it as
it is, derives something from it, or hides it), *hand end* (the table as it was scored).

``clone``, ``snapshot``, the seat views and the sampled worlds all derive from ``GameState``'s
field list (``STATE_FIELDS``); a new field is declared here once and nowhere else.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from ..actions import Action
from ..cards import Card
from ..frozen import reduce_frozen
from ..melds import Meld
from ..rules import RuleSet


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why in a player's words."""


class Phase(Enum):
    CUT = "cut"  # the seat right of the dealer cuts (cut_bonus)
    DRAW = "draw"  # the player about to draw: take the discard, draw, or no_draw
    BUY = "buy"  # out-of-turn buyers are asked buy/pass
    PLAY = "play"  # go down, lay off, swap, borrow, then discard
    CALL = "call"  # the playable-discard window: call/pass
    BONUS = "bonus"  # a bonus caller lays off at most one card, then discards
    GIVE = "give"  # give_cards: every other player gives the discarder a card
    OVER = "over"  # the game has ended

    def __hash__(self) -> int:
        # members are singletons compared by identity: Enum's own hash (of the name) is Python
        # code, called on every action where a phase keys a table
        return object.__hash__(self)


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The table as it was scored at the end of a hand, before the next deal. Public once the
    hand is over: the players show their cards to count their points."""

    hand_number: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    melds: tuple[Meld, ...]
    discard: tuple[Card, ...]
    stock_size: int
    down: tuple[bool, ...]
    buys: tuple[int, ...]
    out: tuple[bool, ...]  # who went out (a floater, hand empty but not out, did not)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too


# ---- how a field is copied -----------------------------------------------------------------

SHARED = "shared"  # immutable, or never changed in place: the copy shares it
LIST = "list"  # a list of immutable values
LISTS = "lists"  # a list of lists of immutable values
COUNTERS = "counters"  # a list of Counters
OPTIONAL_LIST = "optional_list"  # None or a list
RNG = "rng"  # the game's random generator: the copy continues from the same point

# ---- what a seat's view does with a field ----------------------------------------------------
PUBLIC = "public"  # shown as it is (lists as tuples), under the same name in ``SeatView``
DERIVED = "derived"  # shown through something computed from it (the seat's own hand, sizes)
HIDDEN = "hidden"  # never shown

# ---- when a field is set ---------------------------------------------------------------------
FIXED = "fixed"  # for the whole game
GAME = "game"  # across hands
HAND = "hand"  # dealt with each hand
TURN = "turn"  # reset at each turn


def declared(copy: str, view: str, scope: str) -> dict[str, str]:
    """A state field's declaration, as the field's metadata (the game sets every value)."""
    return {"copy": copy, "view": view, "scope": scope}


@dataclass(init=False, eq=False, repr=False)
class GameState:
    """Every field of a game's state. ``Game`` (engine.game) gives it its behaviour."""

    # ---- fixed for the game
    rules: RuleSet = field(metadata=declared(SHARED, DERIVED, FIXED))
    players: tuple[str, ...] = field(metadata=declared(SHARED, PUBLIC, FIXED))
    n: int = field(metadata=declared(SHARED, DERIVED, FIXED))
    seed: int = field(metadata=declared(SHARED, HIDDEN, FIXED))
    first_dealer: int = field(metadata=declared(SHARED, HIDDEN, FIXED))
    # the unshuffled pack, never changed
    pack: list[Card] = field(metadata=declared(SHARED, HIDDEN, FIXED))
    # decks a record gives, in order
    deals: list[list[Card]] = field(metadata=declared(SHARED, HIDDEN, FIXED))
    # visits of a search state the go-down searches of one check or one listing may make
    # (solver), None: no limit; a server's bound on CPU
    search_budget: int | None = field(metadata=declared(SHARED, HIDDEN, FIXED))
    # ---- kept across hands
    rng: random.Random = field(metadata=declared(RNG, HIDDEN, GAME))
    actions: list[Action] = field(metadata=declared(LIST, HIDDEN, GAME))
    # 0-based position in the hand list
    hand_index: int = field(metadata=declared(SHARED, PUBLIC, GAME))
    dealer: int = field(metadata=declared(SHARED, PUBLIC, GAME))
    # per finished hand, per seat
    scores: list[list[int]] = field(metadata=declared(LISTS, PUBLIC, GAME))
    # per finished hand: who was down
    downs: list[tuple[bool, ...]] = field(metadata=declared(LIST, HIDDEN, GAME))
    last_hand_end: HandEnd | None = field(metadata=declared(SHARED, HIDDEN, GAME))
    totals: list[int] = field(metadata=declared(LIST, PUBLIC, GAME))
    # contracts completed ('own' progression)
    progress: list[int] = field(metadata=declared(LIST, PUBLIC, GAME))
    winners: tuple[int, ...] = field(metadata=declared(SHARED, PUBLIC, GAME))
    phase: Phase = field(metadata=declared(SHARED, DERIVED, GAME))
    # ---- dealt with each hand
    hands: list[list[Card]] = field(metadata=declared(LISTS, DERIVED, HAND))
    discard: list[Card] = field(metadata=declared(LIST, PUBLIC, HAND))
    # the top of the stock is the end
    stock: list[Card] = field(metadata=declared(LIST, DERIVED, HAND))
    melds: list[Meld] = field(metadata=declared(LIST, PUBLIC, HAND))
    down: list[bool] = field(metadata=declared(LIST, PUBLIC, HAND))
    floating: list[bool] = field(metadata=declared(LIST, PUBLIC, HAND))
    out: list[bool] = field(metadata=declared(LIST, PUBLIC, HAND))
    buys: list[int] = field(metadata=declared(LIST, PUBLIC, HAND))
    # seen taken, still held
    known: list[Counter[Card]] = field(metadata=declared(COUNTERS, DERIVED, HAND))
    # points owed this hand already
    penalties: list[int] = field(metadata=declared(LIST, PUBLIC, HAND))
    reshuffles: int = field(metadata=declared(SHARED, PUBLIC, HAND))
    turns: int = field(metadata=declared(SHARED, PUBLIC, HAND))
    # house final turns
    final_queue: list[int] | None = field(metadata=declared(OPTIONAL_LIST, PUBLIC, HAND))
    # the top discard was just thrown: buyable
    fresh: bool = field(metadata=declared(SHARED, PUBLIC, HAND))
    # None: the upcard opening the hand
    discarder: int | None = field(metadata=declared(SHARED, PUBLIC, HAND))
    turn: int = field(metadata=declared(SHARED, PUBLIC, HAND))
    # seats still to answer (buy, call, give)
    asked: list[int] = field(metadata=declared(LIST, PUBLIC, HAND))
    # the drawer draws once the buys end
    pending_draw: bool = field(metadata=declared(SHARED, PUBLIC, HAND))
    window_mode: str = field(metadata=declared(SHARED, PUBLIC, HAND))
    bonus_caller: int = field(metadata=declared(SHARED, PUBLIC, HAND))
    # ---- reset at each turn
    # the card taken from the pile
    taken: Card | None = field(metadata=declared(SHARED, PUBLIC, TURN))
    # wilds swapped out, owed to the table
    must_play: list[Card] = field(metadata=declared(LIST, PUBLIC, TURN))
    # wilds swapped in to go down
    gd_swaps: list[Card] = field(metadata=declared(LIST, PUBLIC, TURN))
    went_down_now: bool = field(metadata=declared(SHARED, PUBLIC, TURN))
    # no_draw chosen: a lay-off is owed
    need_layoff: bool = field(metadata=declared(SHARED, PUBLIC, TURN))
    bonus_laid: bool = field(metadata=declared(SHARED, PUBLIC, TURN))


STATE_FIELDS: tuple[tuple[str, str, str, str], ...] = tuple(
    (f.name, f.metadata["copy"], f.metadata["view"], f.metadata["scope"])
    for f in fields(GameState))
PUBLIC_FIELDS = tuple(name for name, _, view, _ in STATE_FIELDS if view == PUBLIC)


def _copy_rng(rng: random.Random) -> random.Random:
    out = random.Random(0)  # any seed: the state is replaced (no seed reads the OS's entropy)
    out.setstate(rng.getstate())
    return out


_COPIERS: dict[str, Any] = {
    SHARED: lambda v: v,
    LIST: list,
    LISTS: lambda v: [list(x) for x in v],
    COUNTERS: lambda v: [Counter(x) for x in v],
    OPTIONAL_LIST: lambda v: None if v is None else list(v),
    RNG: _copy_rng,
}
_FREEZERS: dict[str, Any] = {
    SHARED: lambda v: v,
    LIST: tuple,
    LISTS: lambda v: tuple(tuple(x) for x in v),
    COUNTERS: lambda v: tuple(tuple(sorted(x.items())) for x in v),
    OPTIONAL_LIST: lambda v: None if v is None else tuple(v),
    RNG: lambda v: v.getstate(),
}
_COPY_PLAN = tuple((name, _COPIERS[copy]) for name, copy, _, _ in STATE_FIELDS)
_SNAPSHOT_PLAN = tuple((name, _FREEZERS[copy]) for name, copy, _, scope in STATE_FIELDS
                       if scope != FIXED and name != "actions")
_VIEW_PLAN = tuple((name, _FREEZERS[copy]) for name, copy, view, _ in STATE_FIELDS
                   if view == PUBLIC)
_THAW_PLAN = tuple((name, _COPIERS[copy]) for name, copy, view, _ in STATE_FIELDS
                   if view == PUBLIC)


def copy_state(source: GameState, target: GameState) -> None:
    """Make ``target`` an independent copy of ``source``'s state."""
    for name, copier in _COPY_PLAN:
        setattr(target, name, copier(getattr(source, name)))


def snapshot(st: GameState) -> tuple[object, ...]:
    """Every field but the fixed ones and the action list, frozen for comparing states."""
    return tuple(freeze(getattr(st, name)) for name, freeze in _SNAPSHOT_PLAN)


def public_fields(st: GameState) -> dict[str, Any]:
    """The fields every seat may see as they are, frozen (lists as tuples)."""
    return {name: freeze(getattr(st, name)) for name, freeze in _VIEW_PLAN}


def set_public_fields(st: GameState, values: Any) -> None:
    """Set the public fields of ``st`` from an object having them (a seat's view), as fresh
    mutable copies."""
    for name, thaw in _THAW_PLAN:
        setattr(st, name, thaw(getattr(values, name)))
