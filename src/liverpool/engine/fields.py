"""A JSON field read as the type the engine holds it in: the one reader behind a seat view's
JSON (``SeatView.from_json``) and an event's (``event_from_json``).

Domain words: *field* (one named value of a JSON object a host or a bot sent), *what* (how an
error names the field, such as ``took: "seat"`` or ``not a seat view: "down"``).

Each reader returns the value or raises ``ValueError`` saying what the field must be and what
it was: JSON's true and false are not numbers here, nor is text that spells one, so a value of
the wrong type is refused rather than read as something else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import Card, parse_card
from ..rules import Contract, is_whole


def _checked(value: Any, what: str, ok: Callable[[Any], bool], kind: str) -> Any:
    """``value`` if ``ok(value)``, else the error saying the field must be ``kind``."""
    if not ok(value):
        raise ValueError(f"{what} must be {kind}, not {value!r}")
    return value


def _is_flag(value: Any) -> bool:
    return isinstance(value, bool)


def _is_list_of(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(test(v) for v in value)


def whole(value: Any, what: str) -> int:
    return int(_checked(value, what, is_whole, "a whole number"))


def wholes(value: Any, what: str) -> tuple[int, ...]:
    return tuple(_checked(value, what, _is_list_of(is_whole), "a list of whole numbers"))


def flag(value: Any, what: str) -> bool:
    return bool(_checked(value, what, _is_flag, "true or false"))


def flags(value: Any, what: str) -> tuple[bool, ...]:
    return tuple(_checked(value, what, _is_list_of(_is_flag), "a list of true or false"))


def text(value: Any, what: str) -> str:
    return str(_checked(value, what, lambda v: isinstance(v, str), "text"))


def items(value: Any, what: str, kind: str) -> list[Any]:
    """``value`` itself, which must be a list (of ``kind``, as the error says)."""
    return list(_checked(value, what, lambda v: isinstance(v, list), f"a list of {kind}"))


def cards(value: Any, what: str) -> tuple[Card, ...]:
    return tuple(parse_card(c) for c in items(value, what, "cards"))


def contract(value: Any, what: str) -> Contract:
    try:
        return Contract.from_json(value)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
