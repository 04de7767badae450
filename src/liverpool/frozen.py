"""Frozen values: the frozen dataclasses of the core (rule sets, contracts, melds, go-downs,
hand ends) pickled and copied by their fields.

A frozen dataclass restores a pickled or copied value through ``object.__setattr__``, which the
compiled core's classes refuse; ``reduce_frozen`` rebuilds the value through its constructor
instead, in both cores (``__reduce__ = reduce_frozen`` on each such class).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def reduce_frozen(value: Any) -> tuple[Any, tuple[Any, ...]]:
    """``__reduce__`` of a frozen dataclass whose every field is a constructor argument."""
    return type(value), tuple(getattr(value, f.name) for f in fields(value))
