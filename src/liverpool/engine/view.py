"""Seat views: what one seat may know of a game, and its one JSON form.

Domain words: *view* (the public state plus the seat's own hand), *known cards* (cards a seat
holds that everyone saw it take), *codec* (how one field of a view is written as JSON and read
back).

The public fields are declared once in ``engine.state`` (``PUBLIC_FIELDS``); ``SeatView`` repeats
them with their types so that bots read typed values (a test checks that the two agree), and its
JSON is written and read field by field from each field's codec, in the order declared here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from ..cards import Card, card_str, new_deck, parse_card
from ..melds import Meld
from ..rules import Contract, RuleSet
from . import fields

# ---- codecs: (write, read) per kind of field; ``read`` gets the JSON value, the rules and how
# an error names the field (``fields``: a value of the wrong type is refused, not converted) ----
Codec = tuple[Callable[[Any], Any], Callable[[Any, RuleSet, str], Any]]
INT: Codec = (lambda v: v, lambda v, r, w: fields.whole(v, w))
TEXT: Codec = (lambda v: v, lambda v, r, w: fields.text(v, w))
FLAG: Codec = (lambda v: v, lambda v, r, w: fields.flag(v, w))
NAMES: Codec = (list, lambda v, r, w: tuple(fields.text(p, w)
                                            for p in fields.items(v, w, "names")))
INTS: Codec = (list, lambda v, r, w: fields.wholes(v, w))
FLAGS: Codec = (list, lambda v, r, w: fields.flags(v, w))
CARDS: Codec = (lambda v: [card_str(c) for c in v], lambda v, r, w: fields.cards(v, w))
CARD: Codec = (lambda v: None if v is None else card_str(v),
               lambda v, r, w: None if v is None else parse_card(v))
CARD_LISTS: Codec = (lambda v: [[card_str(c) for c in k] for k in v],
                     lambda v, r, w: tuple(fields.cards(k, w)
                                           for k in fields.items(v, w, "lists of cards")))
INT_LISTS: Codec = (lambda v: [list(x) for x in v],
                    lambda v, r, w: tuple(fields.wholes(x, w)
                                          for x in fields.items(v, w, "lists of whole numbers")))
SEAT: Codec = (lambda v: v, lambda v, r, w: None if v is None else fields.whole(v, w))
SEATS_OR_NONE: Codec = (lambda v: None if v is None else list(v),
                        lambda v, r, w: None if v is None else fields.wholes(v, w))
CONTRACTS: Codec = (lambda v: [c.to_json() for c in v],
                    lambda v, r, w: tuple(fields.contract(c, w)
                                          for c in fields.items(v, w, "contracts")))
MELDS: Codec = (lambda v: [m.to_json() for m in v],
                lambda v, r, w: tuple(Meld.from_json(m, r) for m in fields.items(v, w, "melds")))
_NO_DEFAULT = object()


# Every field of a view in constructor order: its name, its JSON codec (None: not in the JSON),
# its JSON name when it differs, and the value an older host that did not write it means.
_DECLARED: tuple[tuple[str, Codec | None, str, Any], ...] = (
    ("seat", SEAT, "", _NO_DEFAULT),
    ("players", NAMES, "", _NO_DEFAULT),
    ("rules", TEXT, "", _NO_DEFAULT),
    ("phase", TEXT, "", _NO_DEFAULT),
    ("to_act", INTS, "", _NO_DEFAULT),
    ("hand_number", INT, "", _NO_DEFAULT),
    ("contract", CONTRACTS, "", _NO_DEFAULT),
    ("dealer", INT, "", _NO_DEFAULT),
    ("turn", INT, "", _NO_DEFAULT),
    ("hand", CARDS, "", _NO_DEFAULT),
    ("hand_sizes", INTS, "", _NO_DEFAULT),
    ("known", CARD_LISTS, "", _NO_DEFAULT),
    ("melds", MELDS, "", _NO_DEFAULT),
    ("discard", CARDS, "", _NO_DEFAULT),
    ("fresh", FLAG, "", _NO_DEFAULT),
    ("stock_size", INT, "", _NO_DEFAULT),
    ("down", FLAGS, "", _NO_DEFAULT),
    ("floating", FLAGS, "", _NO_DEFAULT),
    ("out", FLAGS, "", _NO_DEFAULT),
    ("buys", INTS, "", _NO_DEFAULT),
    ("progress", INTS, "", _NO_DEFAULT),
    ("scores", INT_LISTS, "", _NO_DEFAULT),
    ("totals", INTS, "", _NO_DEFAULT),
    ("penalties", INTS, "", _NO_DEFAULT),
    ("taken", CARD, "", _NO_DEFAULT),
    ("must_play", CARDS, "", _NO_DEFAULT),
    ("winners", INTS, "", _NO_DEFAULT),
    ("discarder", SEAT, "", _NO_DEFAULT),
    ("asked", INTS, "", _NO_DEFAULT),
    ("ruleset", None, "", _NO_DEFAULT),
    ("hand_index", INT, "", None),
    ("window_mode", TEXT, "", ""),
    ("pending_draw", FLAG, "", False),
    ("reshuffles", INT, "", 0),
    ("turns", INT, "turns_played", 0),
    ("final_queue", SEATS_OR_NONE, "", None),
    ("bonus_caller", INT, "", -1),
    ("gd_swaps", CARDS, "go_down_swaps", []),
    ("went_down_now", FLAG, "went_down_this_turn", False),
    ("need_layoff", FLAG, "must_lay_off", False),
    ("bonus_laid", FLAG, "bonus_laid_off", False),
)
FIELDS: tuple[str, ...] = tuple(name for name, _, _, _ in _DECLARED)


class SeatView:
    """What one seat may know. Everything here is public except ``hand`` (the seat's own); a
    spectator's view (``seat`` None) has no hand. Immutable (the attributes are final), equal
    views compare and hash alike, ``replace`` makes a changed copy.

    A plain class rather than a frozen dataclass, as ``Action`` is: a view is made at every
    decision of every player, bot and learning agent, and a frozen dataclass sets each of its
    41 fields through ``object.__setattr__``, which the compiled core cannot make fast (most of
    the time of making a view). The fields are listed in ``FIELDS`` (``_DECLARED``: their JSON)
    in constructor order; a test checks both against the constructor."""

    __slots__ = FIELDS

    def __init__(self, seat: int | None, players: tuple[str, ...], rules: str, phase: str,
                 to_act: tuple[int, ...], hand_number: int, contract: tuple[Contract, ...],
                 dealer: int, turn: int, hand: tuple[Card, ...], hand_sizes: tuple[int, ...],
                 known: tuple[tuple[Card, ...], ...], melds: tuple[Meld, ...],
                 discard: tuple[Card, ...], fresh: bool, stock_size: int,
                 down: tuple[bool, ...], floating: tuple[bool, ...], out: tuple[bool, ...],
                 buys: tuple[int, ...], progress: tuple[int, ...],
                 scores: tuple[tuple[int, ...], ...], totals: tuple[int, ...],
                 penalties: tuple[int, ...], taken: Card | None, must_play: tuple[Card, ...],
                 winners: tuple[int, ...], discarder: int | None, asked: tuple[int, ...],
                 ruleset: RuleSet, hand_index: int, window_mode: str, pending_draw: bool,
                 reshuffles: int, turns: int, final_queue: tuple[int, ...] | None,
                 bonus_caller: int, gd_swaps: tuple[Card, ...], went_down_now: bool,
                 need_layoff: bool, bonus_laid: bool) -> None:
        self.seat: Final = seat
        self.players: Final = players
        self.rules: Final = rules
        self.phase: Final = phase
        self.to_act: Final = to_act
        self.hand_number: Final = hand_number
        # per seat (differs under 'own')
        self.contract: Final = contract
        self.dealer: Final = dealer
        self.turn: Final = turn
        self.hand: Final = hand
        self.hand_sizes: Final = hand_sizes
        # seen taken, still held
        self.known: Final = known
        self.melds: Final = melds
        self.discard: Final = discard
        self.fresh: Final = fresh
        self.stock_size: Final = stock_size
        self.down: Final = down
        self.floating: Final = floating
        self.out: Final = out
        self.buys: Final = buys
        self.progress: Final = progress
        self.scores: Final = scores
        self.totals: Final = totals
        # points owed this hand (rummy points, cut)
        self.penalties: Final = penalties
        # the card the player on turn took from the pile
        self.taken: Final = taken
        # wilds swapped out, still to be played
        self.must_play: Final = must_play
        self.winners: Final = winners
        self.discarder: Final = discarder
        # seats still to answer (buy, call, give)
        self.asked: Final = asked
        # the rest of the public state: what a bot needs to continue the game in a sampled
        # world (the rule set itself is not in the JSON: a bot has it from game_start)
        self.ruleset: Final = ruleset
        self.hand_index: Final = hand_index  # None in old JSON: hand_number - 1
        self.window_mode: Final = window_mode
        self.pending_draw: Final = pending_draw
        self.reshuffles: Final = reshuffles
        self.turns: Final = turns
        self.final_queue: Final = final_queue
        self.bonus_caller: Final = bonus_caller
        self.gd_swaps: Final = gd_swaps
        self.went_down_now: Final = went_down_now
        self.need_layoff: Final = need_layoff
        self.bonus_laid: Final = bonus_laid

    def values(self) -> tuple[Any, ...]:
        """Every field's value, in ``FIELDS`` order."""
        return tuple(getattr(self, name) for name in FIELDS)

    def replace(self, **changes: Any) -> SeatView:
        """A copy with ``changes`` (field names) made; ``TypeError`` names an unknown field."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise TypeError(f"a seat view has no field {', '.join(sorted(unknown))}")
        values = dict(zip(FIELDS, self.values(), strict=True))
        values.update(changes)
        return SeatView(**values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatView):
            return NotImplemented
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return "SeatView(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS) \
            + ")"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return SeatView, self.values()  # pickles and copies in the compiled core too

    @property
    def me(self) -> int:
        """The seat whose view this is; ``ValueError`` for a spectator's view."""
        if self.seat is None:
            raise ValueError("a spectator's view belongs to no seat")
        return self.seat

    def to_json(self) -> dict[str, Any]:
        return {json_name: write(getattr(self, name)) for name, json_name, (write, _), _ in _JSON}

    @staticmethod
    def from_json(obj: Any, ruleset: RuleSet) -> SeatView:
        """The view ``to_json`` wrote, rebuilt exactly (``ruleset`` is the game's rule set, which
        the JSON names but does not carry). Fields a host of an earlier version left out take
        their values at the start of a turn. ``ValueError`` says what is wrong with bad JSON."""
        if not isinstance(obj, dict):
            raise ValueError("not a seat view: a view is a JSON object")
        values: dict[str, Any] = {"ruleset": ruleset}
        try:
            for name, json_name, (_, read), default in _JSON:
                what = f"not a seat view: \"{json_name}\""
                if json_name not in obj and default is not _NO_DEFAULT:
                    values[name] = None if default is None else read(default, ruleset, what)
                else:
                    values[name] = read(obj[json_name], ruleset, what)
            if values["hand_index"] is None:
                values["hand_index"] = values["hand_number"] - 1
            return SeatView(**values)
        except ValueError:
            raise
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(f"not a seat view: {what}") from None


_JSON: tuple[tuple[str, str, Codec, Any], ...] = tuple(
    (name, json_name or name, codec, default)
    for name, codec, json_name, default in _DECLARED if codec is not None)


def unseen_cards(view: SeatView) -> Counter[Card]:
    """The cards ``view``'s seat cannot place: the pack less its hand, the table (the discard
    pile, the melds) and the cards known to be in the other hands. A world deals exactly these
    (``Game.from_view``); a belief guesses where they lie (``bots.belief``)."""
    if view.seat is None:
        raise ValueError("a world is sampled from a seat's view, not a spectator's")
    rules = view.ruleset
    out = Counter(new_deck(rules.decks_for(len(view.players)), rules.jokers_per_deck))
    out.subtract(view.hand)
    out.subtract(view.discard)
    for m in view.melds:
        out.subtract(m.cards)
    for s, k in enumerate(view.known):
        if s != view.seat:
            out.subtract(k)
    return +out
