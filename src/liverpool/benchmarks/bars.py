"""The benchmarks' progress bar for a known number of games.

Domain words: *bar* (a transient Rich progress bar on standard error), *advance* (the callback a
runner is given: called with the games just finished).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


@contextmanager
def games_bar(label: str, total: int, console: Console) -> Iterator[Callable[[int], None]]:
    """A bar of ``total`` games; yields the ``advance(k)`` to hand to the runner."""
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("games", total=total)

        def advance(k: int) -> None:
            bar.advance(task, k)
        yield advance
