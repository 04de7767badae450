"""Seat views: what one seat may know of a game, and its one JSON form.

Domain words: *view* (the public state plus the seat's own hand), *known cards* (cards a seat
holds that everyone saw it take), *codec* (how one field of a view is written as JSON and read
back).

The public fields are declared once in ``engine.state`` (``PUBLIC_FIELDS``); ``SeatView`` repeats
them with their types so that bots read typed values (a test checks that the two agree), and its
JSON is written and read field by field from each field's codec, in the order declared here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ..cards import Card, card_str, parse_card
from ..frozen import reduce_frozen
from ..melds import Meld
from ..rules import Contract, RuleSet


def _ints(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError(f"not a seat view: expected a list of numbers, got {value!r}")
    return tuple(value)


def _bools(value: Any) -> tuple[bool, ...]:
    if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
        raise ValueError(f"not a seat view: expected a list of true/false, got {value!r}")
    return tuple(value)


def _cards(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise ValueError(f"not a seat view: expected a list of cards, got {value!r}")
    return tuple(parse_card(c) for c in value)


def _contract(value: Any) -> Contract:
    return Contract(int(value["sets"]), int(value["runs"]),
                    None if value.get("set_size") is None else int(value["set_size"]),
                    None if value.get("run_size") is None else int(value["run_size"]))


# ---- codecs: (write, read) per kind of field; ``read`` gets the JSON value and the rules ----
Codec = tuple[Callable[[Any], Any], Callable[[Any, RuleSet], Any]]
INT: Codec = (lambda v: v, lambda v, r: int(v))
TEXT: Codec = (lambda v: v, lambda v, r: str(v))
FLAG: Codec = (lambda v: v, lambda v, r: bool(v))
NAMES: Codec = (list, lambda v, r: tuple(str(p) for p in v))
INTS: Codec = (list, lambda v, r: _ints(v))
FLAGS: Codec = (list, lambda v, r: _bools(v))
CARDS: Codec = (lambda v: [card_str(c) for c in v], lambda v, r: _cards(v))
CARD: Codec = (lambda v: None if v is None else card_str(v),
               lambda v, r: None if v is None else parse_card(v))
CARD_LISTS: Codec = (lambda v: [[card_str(c) for c in k] for k in v],
                     lambda v, r: tuple(_cards(k) for k in v))
INT_LISTS: Codec = (lambda v: [list(x) for x in v], lambda v, r: tuple(_ints(x) for x in v))
SEAT: Codec = (lambda v: v, lambda v, r: None if v is None else int(v))
SEATS_OR_NONE: Codec = (lambda v: None if v is None else list(v),
                        lambda v, r: None if v is None else _ints(v))
CONTRACTS: Codec = (lambda v: [c.to_json() for c in v],
                    lambda v, r: tuple(_contract(c) for c in v))
MELDS: Codec = (lambda v: [m.to_json() for m in v],
                lambda v, r: tuple(Meld.from_json(m, r) for m in v))
_NO_DEFAULT = object()


def as_json(codec: Codec, name: str = "", default: Any = _NO_DEFAULT) -> dict[str, Any]:
    """A view field's JSON form, as the field's metadata: its codec, its JSON name when it
    differs, and the value an older host that did not write it means."""
    return {"codec": codec, "json": name, "default": default}


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know. Everything here is public except ``hand`` (the seat's own); a
    spectator's view (``seat`` None) has no hand."""

    seat: int | None = field(metadata=as_json(SEAT))
    players: tuple[str, ...] = field(metadata=as_json(NAMES))
    rules: str = field(metadata=as_json(TEXT))
    phase: str = field(metadata=as_json(TEXT))
    to_act: tuple[int, ...] = field(metadata=as_json(INTS))
    hand_number: int = field(metadata=as_json(INT))
    # per seat (differs under 'own')
    contract: tuple[Contract, ...] = field(metadata=as_json(CONTRACTS))
    dealer: int = field(metadata=as_json(INT))
    turn: int = field(metadata=as_json(INT))
    hand: tuple[Card, ...] = field(metadata=as_json(CARDS))
    hand_sizes: tuple[int, ...] = field(metadata=as_json(INTS))
    # seen taken, still held
    known: tuple[tuple[Card, ...], ...] = field(metadata=as_json(CARD_LISTS))
    melds: tuple[Meld, ...] = field(metadata=as_json(MELDS))
    discard: tuple[Card, ...] = field(metadata=as_json(CARDS))
    fresh: bool = field(metadata=as_json(FLAG))
    stock_size: int = field(metadata=as_json(INT))
    down: tuple[bool, ...] = field(metadata=as_json(FLAGS))
    floating: tuple[bool, ...] = field(metadata=as_json(FLAGS))
    out: tuple[bool, ...] = field(metadata=as_json(FLAGS))
    buys: tuple[int, ...] = field(metadata=as_json(INTS))
    progress: tuple[int, ...] = field(metadata=as_json(INTS))
    scores: tuple[tuple[int, ...], ...] = field(metadata=as_json(INT_LISTS))
    totals: tuple[int, ...] = field(metadata=as_json(INTS))
    # points owed this hand (rummy points, cut)
    penalties: tuple[int, ...] = field(metadata=as_json(INTS))
    # the card the player on turn took from the pile
    taken: Card | None = field(metadata=as_json(CARD))
    # wilds swapped out, still to be played
    must_play: tuple[Card, ...] = field(metadata=as_json(CARDS))
    winners: tuple[int, ...] = field(metadata=as_json(INTS))
    discarder: int | None = field(metadata=as_json(SEAT))
    # seats still to answer (buy, call, give)
    asked: tuple[int, ...] = field(metadata=as_json(INTS))
    # the rest of the public state: what a bot needs to continue the game in a sampled world
    # (the rule set itself is not in the JSON: a bot has it from game_start)
    ruleset: RuleSet = field(metadata={"codec": None})
    hand_index: int = field(metadata=as_json(INT, default=None))  # None: hand_number - 1
    window_mode: str = field(metadata=as_json(TEXT, default=""))
    pending_draw: bool = field(metadata=as_json(FLAG, default=False))
    reshuffles: int = field(metadata=as_json(INT, default=0))
    turns: int = field(metadata=as_json(INT, "turns_played", default=0))
    final_queue: tuple[int, ...] | None = field(metadata=as_json(SEATS_OR_NONE, default=None))
    bonus_caller: int = field(metadata=as_json(INT, default=-1))
    gd_swaps: tuple[Card, ...] = field(metadata=as_json(CARDS, "go_down_swaps", default=[]))
    went_down_now: bool = field(metadata=as_json(FLAG, "went_down_this_turn", default=False))
    need_layoff: bool = field(metadata=as_json(FLAG, "must_lay_off", default=False))
    bonus_laid: bool = field(metadata=as_json(FLAG, "bonus_laid_off", default=False))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

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
                if json_name not in obj and default is not _NO_DEFAULT:
                    values[name] = None if default is None else read(default, ruleset)
                else:
                    values[name] = read(obj[json_name], ruleset)
            if values["hand_index"] is None:
                values["hand_index"] = values["hand_number"] - 1
            return SeatView(**values)
        except ValueError:
            raise
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(f"not a seat view: {what}") from None


_JSON: tuple[tuple[str, str, Codec, Any], ...] = tuple(
    (f.name, f.metadata["json"] or f.name, f.metadata["codec"], f.metadata["default"])
    for f in fields(SeatView) if f.metadata["codec"] is not None)
