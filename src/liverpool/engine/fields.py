"""A JSON field read as the type the engine holds it in: the one reader behind a seat view's
JSON (``SeatView.from_json``) and an event's (``event_from_json``).

Domain words: *field* (one named value of a JSON object a host or a bot sent), *what* (how an
error names the field, such as ``took: "seat"`` or ``not a seat view: "down"``).

Each reader returns the value or raises ``ValueError`` saying what the field must be and what
it was: JSON's true and false are not numbers here, nor is text that spells one, so a value of
the wrong type is refused rather than read as something else.
"""

from __future__ import annotations

from typing import Any

from ..cards import Card, parse_card
from ..rules import Contract


def _bad(value: Any, what: str, kind: str) -> ValueError:
    return ValueError(f"{what} must be {kind}, not {value!r}")


def whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(value, what, "a whole number")
    return value


def wholes(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise _bad(value, what, "a list of whole numbers")
    return tuple(value)


def flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(value, what, "true or false")
    return value


def flags(value: Any, what: str) -> tuple[bool, ...]:
    if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
        raise _bad(value, what, "a list of true or false")
    return tuple(value)


def text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(value, what, "text")
    return value


def items(value: Any, what: str, kind: str) -> list[Any]:
    """``value`` itself, which must be a list (of ``kind``, as the error says)."""
    if not isinstance(value, list):
        raise _bad(value, what, f"a list of {kind}")
    return value


def cards(value: Any, what: str) -> tuple[Card, ...]:
    return tuple(parse_card(c) for c in items(value, what, "cards"))


def contract(value: Any, what: str) -> Contract:
    try:
        return Contract.from_json(value)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
