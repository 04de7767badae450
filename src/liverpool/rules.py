"""The rule set: every knob of docs/rules.md (Knobs), and the five presets (Presets) as data.

Domain words: *knob* (one field of ``RuleSet``), *preset* (a named set of knob values: hoyle,
classic, arena, standard, house), *override* (a knob value given by name over a preset),
*contract* (the sets and runs a hand asks for, optionally with exact sizes).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from .cards import JOKER, RANK_NAMES, Card
from .frozen import reduce_frozen

PRESET_NAMES = ("hoyle", "classic", "arena", "standard", "house")
DEFAULT_PRESET = "standard"

GOING_OUT = ("discard", "empty", "float")
PLAYABLE_DISCARD = ("none", "bonus", "take_back", "give_cards", "points", "standard")
JOKER_SWAP = ("none", "runs", "runs_and_sets")
BUY_PRIORITY = ("seat", "first_call")
PROGRESSION = ("all", "own")


class RulesError(ValueError):
    """An override or rule set that cannot be played; the message names the knob, and so does
    ``knob`` where the error is about one (None: the preset, the overrides as a whole)."""

    def __init__(self, message: str, knob: str | None = None) -> None:
        super().__init__(message)
        self.knob = knob


@dataclass(frozen=True, slots=True)
class Contract:
    """What a hand asks for: ``sets`` sets and ``runs`` runs, optionally of exact sizes."""

    sets: int
    runs: int
    set_size: int | None = None
    run_size: int | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    def describe(self) -> str:
        parts = []
        if self.sets:
            size = f" of {self.set_size}" if self.set_size else ""
            parts.append(f"{self.sets} set{'s' if self.sets > 1 else ''}{size}")
        if self.runs:
            size = f" of {self.run_size}" if self.run_size else ""
            parts.append(f"{self.runs} run{'s' if self.runs > 1 else ''}{size}")
        return " + ".join(parts)

    def to_json(self) -> dict[str, int]:
        out = {"sets": self.sets, "runs": self.runs}
        if self.set_size is not None:
            out["set_size"] = self.set_size
        if self.run_size is not None:
            out["run_size"] = self.run_size
        return out

    @staticmethod
    def from_json(obj: Any) -> Contract:
        """The contract ``to_json`` wrote (``sets`` or ``runs`` left out: none); ``ValueError``
        naming what is wrong for anything else: an object with other keys, a count that is not
        a whole number (true and false are not)."""
        if not isinstance(obj, dict) or not set(obj) <= _CONTRACT_KEYS:
            raise ValueError(f"a contract is an object with sets, runs, set_size, run_size, "
                             f"not {obj!r}")

        def count(key: str) -> int:
            v = obj.get(key, 0)
            if not is_whole(v):
                raise ValueError(f"a contract's {key} must be a whole number, not {v!r}")
            return v

        def size(key: str) -> int | None:
            return None if obj.get(key) is None else count(key)

        return Contract(count("sets"), count("runs"), size("set_size"), size("run_size"))


_CONTRACT_KEYS = frozenset({"sets", "runs", "set_size", "run_size"})


def is_whole(value: object) -> TypeGuard[int]:
    """Whether a JSON value is a whole number (true and false, ints in Python, are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _points(ace: int, joker: int, low: int | None, ten_to_king: int, deuce: int | None = None
            ) -> tuple[int, ...]:
    """Points by rank index: 0 = joker, 1 = ace, 2..13; ``low`` None means face value."""
    table = [joker, ace]
    for rank in range(2, 10):
        table.append(rank if low is None else low)
    table += [ten_to_king] * 4
    if deuce is not None:
        table[2] = deuce
    return tuple(table)


_CLASSIC_CONTRACTS = (
    Contract(2, 0), Contract(1, 1), Contract(0, 2), Contract(3, 0),
    Contract(2, 1), Contract(1, 2), Contract(0, 3),
)

_HOYLE_CONTRACTS = (
    Contract(2, 0), Contract(1, 1), Contract(0, 2), Contract(3, 0),
    Contract(2, 1), Contract(1, 2), Contract(2, 1, set_size=3, run_size=7),
)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every knob of docs/rules.md (Knobs). Build one with ``RuleSet.preset(name, overrides)``."""

    name: str = "standard"
    min_players: int = 3
    max_players: int = 8
    # decks: (max players, decks) steps; the first step whose max covers the table applies
    decks: tuple[tuple[int, int], ...] = ((5, 2), (8, 3))
    jokers_per_deck: int = 2
    deuces_wild: bool = False
    deal_sizes: tuple[int, ...] = (10,) * 7
    contracts: tuple[Contract, ...] = _CLASSIC_CONTRACTS
    min_set: int = 3
    min_run: int = 4
    # (set, run) minimum naturals when a meld is first laid down; None: naturals outnumber wilds
    naturals: tuple[int, int] | None = None
    final_all_out: bool = False
    extra_melds_at_go_down: bool = False
    layoff_same_turn: bool = True
    layoff_needs_second_down: bool = False
    down_may_take_discard: bool = True
    buying: bool = True
    penalty_cards: int = 1
    max_buys: int | None = None
    buy_priority: str = "seat"
    deep_pickup: bool = False
    joker_swap: str = "runs"
    swap_needs_down: bool = True
    swap_at_go_down: int = 0
    swapped_joker_must_be_played: bool = False
    going_out: str = "discard"
    no_discard_of_taken_card: bool = False
    playable_discard: str = "none"
    stock_reshuffles: int = 2
    turn_limit: int = 300
    fits_own_melds: bool = True
    final_turns: bool = False
    layoff_instead_of_draw: bool = False
    borrow: bool = False
    card_points: tuple[int, ...] = field(default=_points(15, 20, 5, 10))
    rummy_points: int = 0
    cut_bonus: int = 0
    progression: str = "all"
    own_max_hands: int = 20
    hands: tuple[int, ...] | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    # ---- construction -------------------------------------------------------------------
    @staticmethod
    def preset(name: object = DEFAULT_PRESET, overrides: Mapping[str, Any] | None = None
               ) -> RuleSet:
        # any object, as it often comes from JSON: the compiled core would make a name that is
        # not text a TypeError at the call, before this could say what is wrong
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown preset {str(name)[:40]!r}; choose one of "
                             f"{', '.join(PRESET_NAMES)}")
        base = PRESETS[name]
        return base.with_overrides(overrides or {})

    def with_overrides(self, overrides: Mapping[str, Any]) -> RuleSet:
        if not isinstance(overrides, Mapping):
            raise RulesError("overrides must be an object of knob: value")
        changes: dict[str, Any] = {}
        for knob, value in overrides.items():
            if knob not in KNOBS:
                raise RulesError(f"unknown knob {knob!r}; knobs are: {', '.join(sorted(KNOBS))}")
            changes[knob] = _coerce(self, knob, value)
        rules = dataclasses.replace(self, **changes)
        rules.check()
        return rules

    def check(self) -> None:
        """Fail with a message naming the knob on an impossible value or a contradiction."""
        def need(ok: bool, knob: str, why: str) -> None:
            if not ok:
                raise RulesError(f"{knob}: {why}", knob)

        need(2 <= self.min_players <= self.max_players <= 8, "players",
             "player counts must satisfy 2 <= min <= max <= 8")
        need(len(self.decks) > 0 and all(1 <= d <= 8 for _, d in self.decks), "decks",
             "each deck count must be 1..8")
        need(self.decks[-1][0] >= self.max_players, "decks",
             f"no deck count given for {self.max_players} players")
        need(0 <= self.jokers_per_deck <= 8, "jokers_per_deck", "must be 0..8")
        need(len(self.contracts) >= 1, "contracts", "at least one contract is needed")
        need(len(self.deal_sizes) >= 1 and all(1 <= d <= 60 for d in self.deal_sizes),
             "deal_sizes", "each deal size must be 1..60")
        if self.progression == "all":
            need(len(self.deal_sizes) == len(self.contracts), "deal_sizes",
                 f"needs one size per contract ({len(self.contracts)})")
        need(self.min_set >= 2, "min_set", "must be at least 2")
        need(3 <= self.min_run <= 13, "min_run", "must be 3..13")
        for i, c in enumerate(self.contracts, 1):
            need(c.sets >= 0 and c.runs >= 0 and c.sets + c.runs >= 1, "contracts",
                 f"contract {i} must ask for at least one meld")
            if c.set_size is not None:
                need(c.set_size >= self.min_set, "contracts",
                     f"contract {i}: set_size below min_set")
            if c.run_size is not None:
                need(self.min_run <= c.run_size <= 13, "contracts",
                     f"contract {i}: run_size must be min_run..13")
        if self.naturals is not None:
            need(1 <= self.naturals[0] <= self.min_set and 1 <= self.naturals[1] <= self.min_run,
                 "naturals", "set minimum must be 1..min_set and run minimum 1..min_run")
        need(self.penalty_cards >= 0, "penalty_cards", "must be 0 or more")
        need(self.max_buys is None or self.max_buys >= 0, "max_buys", "must be 0 or more")
        need(self.buy_priority in BUY_PRIORITY, "buy_priority", f"one of {BUY_PRIORITY}")
        need(self.joker_swap in JOKER_SWAP, "joker_swap", f"one of {JOKER_SWAP}")
        need(self.going_out in GOING_OUT, "going_out", f"one of {GOING_OUT}")
        need(self.playable_discard in PLAYABLE_DISCARD, "playable_discard",
             f"one of {PLAYABLE_DISCARD}")
        need(self.progression in PROGRESSION, "progression", f"one of {PROGRESSION}")
        need(self.stock_reshuffles >= 0, "stock_reshuffles", "must be 0 or more")
        need(self.turn_limit >= 1, "turn_limit", "must be at least 1")
        need(self.own_max_hands >= 1, "own_max_hands", "must be at least 1")
        need(len(self.card_points) == 14 and all(p >= 0 for p in self.card_points),
             "card_points", "needs a non-negative value for JK and each rank A..K")
        need(self.rummy_points >= 0, "rummy_points", "must be 0 or more")
        need(self.cut_bonus >= 0, "cut_bonus", "must be 0 or more (points taken off)")
        need(self.swap_at_go_down >= 0, "swap_at_go_down", "must be 0 or more")
        need(not (self.swap_at_go_down and self.joker_swap == "none"), "swap_at_go_down",
             "needs joker_swap other than none")
        need(not (self.swapped_joker_must_be_played and not self.swap_needs_down
                  and self.deuces_wild and self.joker_swap != "none"),
             "swapped_joker_must_be_played",
             "with swap_needs_down off needs deuces_wild off (a player who is not down plays "
             "the swapped wilds in the go-down, and a joker and a 2 may each fit it but not "
             "both)")
        need(not (self.swap_at_go_down > 1 and self.deuces_wild), "swap_at_go_down",
             "above 1 needs deuces_wild off (the go-down must use every wild taken, and wilds "
             "of different kinds, a joker and a 2, can each fit a go-down but not both)")
        need(not (self.deep_pickup and not self.buying), "deep_pickup", "needs buying on")
        if self.playable_discard in ("bonus", "standard"):
            need(self.down_may_take_discard, "playable_discard",
                 f"{self.playable_discard!r} needs down_may_take_discard (a caller is down)")
        need(not (self.layoff_instead_of_draw and self.going_out == "float"),
             "layoff_instead_of_draw", "cannot be combined with going_out 'float'")
        if self.hands is not None:
            need(self.progression == "all", "hands", "does not apply with progression 'own'")
            need(len(self.hands) >= 1 and all(1 <= h <= len(self.contracts) for h in self.hands),
                 "hands", f"contract numbers must be 1..{len(self.contracts)}")

    # ---- derived facts ------------------------------------------------------------------
    def decks_for(self, players: int) -> int:
        for max_players, decks in self.decks:
            if players <= max_players:
                return decks
        return self.decks[-1][1]

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise RulesError(f"players: {self.name} is for {self.min_players}-"
                             f"{self.max_players} players, not {players}", "players")
        total = self.decks_for(players) * (52 + self.jokers_per_deck)
        biggest = max(self.deal_sizes)
        if players * biggest + 1 > total:
            raise RulesError(f"deal_sizes: dealing {biggest} cards to {players} players needs "
                             f"{players * biggest + 1} cards but the decks hold {total}",
                             "deal_sizes")

    def hand_list(self) -> tuple[int, ...]:
        """Contract numbers (1-based) of the hands played, in order (``all`` progression)."""
        return self.hands if self.hands is not None else tuple(range(1, len(self.contracts) + 1))

    def contract_number(self, hand_index: int, progress: int) -> int:
        """The 1-based contract a seat plays in hand ``hand_index`` (0-based) having made
        ``progress`` contracts (counted only by ``own`` progression)."""
        if self.progression == "own":
            return min(progress, len(self.contracts) - 1) + 1
        hands = self.hand_list()
        return hands[min(hand_index, len(hands) - 1)]

    def all_out(self, number: int) -> bool:
        """Whether contract ``number``'s go-down must meld every card (``final_all_out``: the
        seventh contract)."""
        return self.final_all_out and number == 7

    def points(self, card: Card) -> int:
        return self.card_points[0 if card == JOKER else card % 13 + 1]

    def set_naturals(self, size: int) -> int:
        return self.naturals[0] if self.naturals else size // 2 + 1

    def run_naturals(self, size: int) -> int:
        return self.naturals[1] if self.naturals else size // 2 + 1

    def overrides_from(self, base: RuleSet) -> dict[str, Any]:
        """The knob values that differ from ``base``, in override (JSON) form."""
        out: dict[str, Any] = {}
        for knob in KNOBS:
            mine, theirs = getattr(self, knob), getattr(base, knob)
            if mine != theirs:
                out[knob] = knob_to_json(knob, mine)
        return out

    def to_json(self) -> dict[str, Any]:
        return {knob: knob_to_json(knob, getattr(self, knob)) for knob in KNOBS}


KNOBS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RuleSet) if f.name != "name")

_POINT_KEYS = ("JK", *RANK_NAMES[1:])


def knob_to_json(knob: str, value: Any) -> Any:
    if knob == "contracts":
        return [c.to_json() for c in value]
    if knob == "card_points":
        return dict(zip(_POINT_KEYS, value, strict=True))
    if knob == "decks":
        return [list(step) for step in value]
    if isinstance(value, tuple):
        return list(value)
    return value


def _coerce(base: RuleSet, knob: str, value: Any) -> Any:
    """Turn an override's JSON value into the knob's type, or fail naming the knob."""
    def bad(why: str) -> RulesError:
        return RulesError(f"{knob}: {why} (got {value!r})", knob)

    def as_int(v: Any) -> int:
        if not is_whole(v):
            raise bad("must be a whole number")
        return v

    current = getattr(base, knob)
    if knob == "decks":
        if is_whole(value):
            return ((8, as_int(value)),)
        if isinstance(value, list) and all(isinstance(s, list) and len(s) == 2 for s in value):
            return tuple((as_int(a), as_int(b)) for a, b in value)
        raise bad("give a number of decks or a list of [max players, decks] steps")
    if knob == "contracts":
        if not isinstance(value, list):
            raise bad("must be a list of {sets, runs} objects")
        try:
            return tuple(Contract.from_json(item) for item in value)
        except ValueError as e:
            raise bad(str(e)) from None
    if knob == "card_points":
        table = list(current)
        if isinstance(value, dict):
            for key, pts in value.items():
                k = str(key).upper().replace("T", "10")
                if k not in _POINT_KEYS:
                    raise bad(f"unknown card {key!r}; use JK, A, 2..10, J, Q, K")
                table[_POINT_KEYS.index(k)] = as_int(pts)
            return tuple(table)
        if isinstance(value, list) and len(value) == 14:
            return tuple(as_int(v) for v in value)
        raise bad("give an object like {\"A\": 15, \"JK\": 20} or 14 numbers JK, A..K")
    if knob == "naturals":
        if value is None:
            return None
        if isinstance(value, list) and len(value) == 2:
            return (as_int(value[0]), as_int(value[1]))
        raise bad("give [set minimum, run minimum] or null")
    if knob in ("deal_sizes", "hands"):
        if knob == "hands" and value is None:
            return None
        if not isinstance(value, list) or not value:
            raise bad("must be a non-empty list of numbers")
        return tuple(as_int(v) for v in value)
    if knob == "max_buys":
        return None if value is None else as_int(value)
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise bad("must be true or false")
        return value
    if isinstance(current, int):
        return as_int(value)
    if isinstance(current, str):
        if not isinstance(value, str):
            raise bad("must be text")
        return value
    raise bad("cannot be overridden")  # pragma: no cover - every knob type is handled above


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """Overrides written ``KNOB=VALUE`` (the commands' ``--override``): VALUE is JSON
    (``max_buys=3``, ``naturals=[2,3]``) or else plain text (``going_out=float``). An item that
    cannot be read is a ``RulesError`` naming its knob (or the item, when it names none); the
    values themselves are judged when the rule set is built (``RuleSet.with_overrides``)."""
    out: dict[str, Any] = {}
    for item in items:
        knob, sep, text = item.partition("=")
        knob, text = knob.strip(), text.strip()
        if not sep or not knob:
            raise RulesError(f"override {item!r}: write KNOB=VALUE, like max_buys=3")
        if knob not in KNOBS:
            raise RulesError(f"unknown knob {knob!r} (override {item!r}); knobs are: "
                             f"{', '.join(sorted(KNOBS))}")
        if not text:
            raise RulesError(f"{knob}: give a value after the '=', like {knob}=VALUE")
        try:
            out[knob] = json.loads(text)
        except json.JSONDecodeError:
            out[knob] = text
    return out


_TWO_THREE_FOUR = ((4, 2), (6, 3), (8, 4))

PRESETS: dict[str, RuleSet] = {
    "hoyle": RuleSet(
        name="hoyle", min_players=2, max_players=8, decks=_TWO_THREE_FOUR,
        deal_sizes=(7, 10, 10, 10, 12, 12, 12), contracts=_HOYLE_CONTRACTS,
        final_all_out=True, deep_pickup=True, joker_swap="none", going_out="empty",
        playable_discard="give_cards", fits_own_melds=False,
        card_points=_points(25, 50, 5, 10),
    ),
    "classic": RuleSet(
        name="classic", min_players=2, max_players=8, decks=_TWO_THREE_FOUR,
        deal_sizes=(11,) * 7, final_all_out=True, down_may_take_discard=False,
        joker_swap="runs", swapped_joker_must_be_played=True, going_out="empty",
        card_points=_points(15, 15, None, 10),
    ),
    "arena": RuleSet(
        name="arena", min_players=2, max_players=8, decks=((4, 2), (8, 3)),
        deal_sizes=(10, 11, 11, 12, 12, 12, 12), joker_swap="runs_and_sets", swap_at_go_down=1,
        going_out="discard", playable_discard="bonus", card_points=_points(15, 20, 5, 10),
    ),
    "standard": RuleSet(
        name="standard", min_players=3, max_players=8, decks=((5, 2), (8, 3)),
        deal_sizes=(10,) * 7, naturals=(2, 3), final_all_out=True, joker_swap="runs",
        swapped_joker_must_be_played=True, going_out="float", no_discard_of_taken_card=True,
        playable_discard="standard", card_points=_points(15, 20, 5, 10),
    ),
    "house": RuleSet(
        name="house", min_players=2, max_players=8, decks=((4, 2), (6, 3), (8, 4)),
        deuces_wild=True, deal_sizes=(9, 9, 9, 9, 12, 12, 12), min_run=3,
        joker_swap="runs_and_sets", swapped_joker_must_be_played=True, going_out="discard",
        playable_discard="points", rummy_points=25, fits_own_melds=False,
        layoff_needs_second_down=True, final_turns=True, layoff_instead_of_draw=True,
        borrow=True, card_points=_points(20, 50, 5, 10, deuce=20),
    ),
}
for _rules in PRESETS.values():
    _rules.check()
