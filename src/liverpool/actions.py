"""Actions: the small immutable values players send, in the one JSON form of docs/rules.md
(Records).

Action types: take_discard, draw, no_draw, buy (depth), pass, go_down (melds), lay_off (card, meld,
end), swap_joker (card, meld, wild), borrow (meld, card, new_meld), discard (card), call (meld,
end), give (card), cut (count). Every action has ``player`` and ``type``.
"""

from __future__ import annotations

import json
from typing import Any, Final

from .cards import Card, CardError, card_str, parse_card

ACTION_TYPES = ("take_discard", "draw", "no_draw", "buy", "pass", "go_down", "lay_off",
                "swap_joker", "borrow", "discard", "call", "give", "cut")

# which optional fields each type may carry (and which it must)
_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "take_discard": (frozenset(), frozenset()),
    "draw": (frozenset(), frozenset()),
    "no_draw": (frozenset(), frozenset()),
    "buy": (frozenset({"depth"}), frozenset()),
    "pass": (frozenset(), frozenset()),
    "go_down": (frozenset({"melds"}), frozenset({"melds"})),
    "lay_off": (frozenset({"card", "meld", "end"}), frozenset({"card", "meld"})),
    "swap_joker": (frozenset({"card", "meld", "wild"}), frozenset({"card", "meld"})),
    "borrow": (frozenset({"meld", "card", "new_meld"}), frozenset({"meld", "card", "new_meld"})),
    "discard": (frozenset({"card"}), frozenset({"card"})),
    "call": (frozenset({"meld", "end"}), frozenset()),
    "give": (frozenset({"card"}), frozenset({"card"})),
    "cut": (frozenset({"count"}), frozenset({"count"})),
}


class ActionFormatError(ValueError):
    """A message that is not an action at all (unknown type, bad card, missing field)."""


_FIELD_NAMES = ("type", "player", "card", "meld", "end", "wild", "depth", "melds", "new_meld",
                "count")


class Action:
    """One player's action. Immutable: the attributes are final (the compiled core refuses an
    assignment at run time, the type checker everywhere); equal actions hash alike.

    A plain class rather than a frozen dataclass: actions are made by the thousand in every
    listing of legal actions, and a frozen dataclass sets each field through
    ``object.__setattr__``, which the compiled core cannot make fast."""

    __slots__ = _FIELD_NAMES

    def __init__(self, type: str, player: int, card: Card | None = None, meld: int | None = None,
                 end: str | None = None, wild: Card | None = None, depth: int | None = None,
                 melds: tuple[tuple[Card, ...], ...] | None = None,
                 new_meld: tuple[Card, ...] | None = None, count: int | None = None) -> None:
        self.type: Final = type
        self.player: Final = player
        self.card: Final = card
        self.meld: Final = meld
        self.end: Final = end
        self.wild: Final = wild
        self.depth: Final = depth
        self.melds: Final = melds
        self.new_meld: Final = new_meld
        self.count: Final = count

    def _key(self) -> tuple[object, ...]:
        return (self.type, self.player, self.card, self.meld, self.end, self.wild, self.depth,
                self.melds, self.new_meld, self.count)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type[Action], tuple[object, ...]]:
        # pickled and copied through the constructor: the compiled core's classes cannot be
        # made without __init__ (which the default way of unpickling does)
        return Action, self._key()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(_FIELD_NAMES, self._key(),
                                                                      strict=True)
                          if value is not None or name in ("type", "player"))
        return f"Action({shown})"

    def replace(self, **changes: Any) -> Action:
        """This action with some fields changed (``dataclasses.replace`` for an action)."""
        unknown = set(changes) - set(_FIELD_NAMES)
        if unknown:
            raise TypeError(f"an action has no field {', '.join(sorted(unknown))}")
        values: dict[str, Any] = dict(zip(_FIELD_NAMES, self._key(), strict=True))
        values.update(changes)
        return Action(**values)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "type": self.type}
        if self.card is not None:
            out["card"] = card_str(self.card)
        if self.meld is not None:
            out["meld"] = self.meld
        if self.end is not None:
            out["end"] = self.end
        if self.wild is not None:
            out["wild"] = card_str(self.wild)
        if self.depth is not None:
            out["depth"] = self.depth
        if self.melds is not None:
            out["melds"] = [[card_str(c) for c in m] for m in self.melds]
        if self.new_meld is not None:
            out["new_meld"] = [card_str(c) for c in self.new_meld]
        if self.count is not None:
            out["count"] = self.count
        return out

    def __str__(self) -> str:
        return json.dumps(self.to_json(), separators=(", ", ": "))

    @staticmethod
    def from_json(obj: Any) -> Action:
        """Read an action; raise ``ActionFormatError`` saying what is wrong with it."""
        if not isinstance(obj, dict):
            raise ActionFormatError("an action must be a JSON object")
        kind = obj.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise ActionFormatError(f"unknown action type {str(kind)[:40]!r}")
        player = obj.get("player")
        if isinstance(player, bool) or not isinstance(player, int):
            raise ActionFormatError("an action needs \"player\", a seat number")
        allowed, required = _FIELDS[kind]
        extra = set(obj) - allowed - {"type", "player"}
        if extra:
            raise ActionFormatError(f"{kind} does not take {', '.join(sorted(extra))}")
        missing = required - set(obj)
        if missing:
            raise ActionFormatError(f"{kind} needs {', '.join(sorted(missing))}")

        def card(key: str) -> Card | None:
            if key not in obj or (key in ("wild",) and obj[key] is None):
                return None
            try:
                return parse_card(obj[key])
            except CardError as e:
                raise ActionFormatError(f"{key}: {e}") from None

        def number(key: str) -> int | None:
            v = obj.get(key)
            if v is None:
                return None
            if isinstance(v, bool) or not isinstance(v, int):
                raise ActionFormatError(f"{key} must be a whole number")
            return v

        def card_list(v: Any, key: str) -> tuple[Card, ...]:
            if not isinstance(v, list) or not v:
                raise ActionFormatError(f"{key} must be a non-empty list of cards")
            try:
                return tuple(parse_card(c) for c in v)
            except CardError as e:
                raise ActionFormatError(f"{key}: {e}") from None

        end = obj.get("end")
        if end is not None and end not in ("low", "high"):
            raise ActionFormatError("end must be \"low\" or \"high\"")
        melds = None
        if "melds" in obj:
            if not isinstance(obj["melds"], list) or not obj["melds"]:
                raise ActionFormatError("melds must be a non-empty list of melds")
            melds = tuple(card_list(m, "melds") for m in obj["melds"])
        new_meld = card_list(obj["new_meld"], "new_meld") if "new_meld" in obj else None
        return Action(kind, player, card=card("card"), meld=number("meld"), end=end,
                      wild=card("wild"), depth=number("depth"), melds=melds, new_meld=new_meld,
                      count=number("count"))
