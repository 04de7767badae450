"""The terminal's local player profile and the history of every finished game, and the
``liverpool history`` command that lists them.

Domain words: *data directory* (where the terminal keeps its files: ``LIVERPOOL_DATA_DIR``, else
the user data directory; saved games go to its ``games`` folder), *profile* (``profile.json``:
the player's name, their rating on the one scale of ``liverpool.ratings``, and per-preset
statistics sums, ``standings.Stats``), *history* (``history.jsonl``: one JSON object a line,
one line per finished game, oldest first), *game id* (names one game whatever file it was saved
to; a game whose id is in the history is never counted again), *entry* (one game's line: when,
which rules, who sat where, the player's place and points, the rating before and after, the
record's path), *page* (``--offset``/``--limit`` of the history, newest first).

Only the player's seat is rated, against the built-in bots' fixed ratings (``BOT_RATINGS``); a
seat whose bot has none is left out of the rating. The profile is written whole to a temporary
file and renamed over the old one; one that cannot be read is kept (and copied beside itself as
``profile.json.bad``) and never overwritten: fix it or move it away to start a new one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .paths import data_dir, write_atomic
from .ratings import Rating, entry_for, rate
from .standings import Stats, standings_of_record

PROFILE_FILE = "profile.json"
HISTORY_FILE = "history.jsonl"
VERSION = 1
DEFAULT_LIMIT = 20
MAX_LIMIT = 200


class ProfileError(ValueError):
    """A profile that cannot be read (its one-line reason says what to do)."""


# ---- the profile ---------------------------------------------------------------------------
def rating_json(r: Rating) -> dict[str, Any]:
    """A rating as kept: ``Rating.to_json`` with mu and sigma unrounded, so that a game moves the
    rating by exactly what ``ratings.rate`` gives, game after game."""
    return {**r.to_json(), "mu": r.mu, "sigma": r.sigma}


@dataclass
class Profile:
    """The player at this terminal: name (None: not given yet), rating, games rated, each
    preset's statistics sums, and the last game's entry (to finish its history line if the
    profile was saved and the line was not)."""

    name: str | None = None
    rating: Rating = field(default_factory=Rating)
    games: int = 0
    stats: dict[str, Stats] = field(default_factory=dict)
    last: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "name": self.name, "rating": rating_json(self.rating),
                "games": self.games,
                "stats": {k: v.to_json() for k, v in sorted(self.stats.items())},
                "last": self.last,
                "note": "liverpool's local player profile (liverpool history shows it)"}

    @staticmethod
    def from_json(obj: Any) -> Profile:
        """``ValueError`` naming what is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("not a JSON object")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError("\"name\" is not text")
        games = obj.get("games", 0)
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise ValueError("\"games\" is not a count")
        stats = obj.get("stats") or {}
        last = obj.get("last")
        if not isinstance(stats, dict) or (last is not None and not isinstance(last, dict)):
            raise ValueError("\"stats\" or \"last\" is not an object")
        try:
            sums = {str(k): Stats.from_json(v) for k, v in stats.items()}
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
            raise ValueError(f"\"stats\": {e}") from None
        return Profile(name or None, Rating.from_json(obj.get("rating")), games, sums, last)


def profile_path(folder: Path) -> Path:
    return folder / PROFILE_FILE


def history_path(folder: Path) -> Path:
    return folder / HISTORY_FILE


def _keep_bad(path: Path) -> Path | None:
    """A copy of an unreadable profile beside it (``.bad``, else ``.bad2``...); the same
    content already kept is not copied again."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    for i in range(1, 100):
        bad = path.with_name(path.name + (".bad" if i == 1 else f".bad{i}"))
        try:
            if bad.exists():
                if bad.read_bytes() == data:
                    return bad
                continue
            shutil.copy2(path, bad)
            return bad
        except OSError:
            return None
    return None


def load(folder: Path | None = None) -> Profile:
    """The profile in ``folder`` (default: the data directory); a new one when there is none.
    ``ProfileError`` when it cannot be read: it is copied beside itself as ``.bad`` and left
    where it is, so that nothing overwrites it."""
    path = profile_path(folder or data_dir())
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Profile()
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not text"
        raise ProfileError(f"cannot read your profile {path}: {why}") from None
    try:
        return Profile.from_json(json.loads(text))
    except ValueError as e:  # json.JSONDecodeError is one
        bad = _keep_bad(path)
        kept = f"a copy is kept as {bad.name}; " if bad else ""
        raise ProfileError(f"your profile {path} is damaged ({e}); {kept}fix it, or move it "
                           f"away to start a new profile") from None


def save(profile: Profile, folder: Path | None = None) -> None:
    write_atomic(profile_path(folder or data_dir()),
                  json.dumps(profile.to_json(), indent=1) + "\n")


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One writer at a time (two terminals ending games at once), where the system can lock."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # (not on every system: then the last writer wins)
        yield
        return
    with open(folder / ".lock", "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def set_name(name: str, folder: Path | None = None) -> Profile:
    """Remember the player's name (``liverpool play --name``); the profile as saved."""
    folder = folder or data_dir()
    with _locked(folder):
        profile = load(folder)
        if profile.name != name:
            profile.name = name
            save(profile, folder)
        return profile


# ---- the history ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Seat:
    """Who sat at a seat: a ``person`` (the player) or a ``bot`` of a level."""

    name: str
    kind: str
    level: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "level": self.level}


@dataclass(frozen=True)
class Recorded:
    """A finished game in the history: its entry, and whether this call added it."""

    entry: dict[str, Any]
    added: bool


def _lines(path: Path) -> Iterator[str]:
    """The history's lines, one at a time (blank lines skipped)."""
    try:
        f = path.open(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            if line.strip():
                yield line


def _entry(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def find(game_id: str, folder: Path | None = None) -> dict[str, Any] | None:
    """The history's entry of the game ``game_id``, or None (a scan of the lines)."""
    for line in _lines(history_path(folder or data_dir())):
        if game_id in line:
            entry = _entry(line)
            if entry is not None and entry.get("id") == game_id:
                return entry
    return None


def _append(entry: Mapping[str, Any], folder: Path) -> None:
    path = history_path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as f:
        f.seek(0, os.SEEK_END)
        start = b""
        if f.tell():  # a line cut short by a crash ends here, not in this one
            f.seek(-1, os.SEEK_END)
            start = b"" if f.read(1) == b"\n" else b"\n"
        f.write(start + json.dumps(entry, separators=(",", ":")).encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())


def record_game(game_id: str, record: dict[str, Any], record_path: Path | str,
                seats: Sequence[Seat], me: int, folder: Path | None = None,
                now: datetime | None = None) -> Recorded:
    """Count a finished game once: its standings from the record's replay, the player's rating
    updated against the rated bots, the preset's statistics summed, and a line added to the
    history. A game whose id is in the history already is not counted again (its entry is
    returned). ``ProfileError`` for an unreadable profile; ``ValueError`` for a record that does
    not replay to a game's end."""
    folder = folder or data_dir()
    with _locked(folder):
        profile = load(folder)
        known = find(game_id, folder)
        if known is not None:
            return Recorded(known, False)
        if profile.last is not None and profile.last.get("id") == game_id:
            # counted in the profile, but the history's line was never written: write it now
            _append(profile.last, folder)
            return Recorded(profile.last, True)
        from .solver import PERSON_SEARCH_BUDGET
        game, standings = standings_of_record(record, search_budget=PERSON_SEARCH_BUDGET)
        if len(seats) != game.n or not 0 <= me < game.n:
            raise ValueError(f"{len(seats)} seats given for a game of {game.n}")
        mine = standings[me]
        entries = [entry_for(standings[s].place, seats[s].kind == "bot", seats[s].level,
                             profile.rating if s == me else None) for s in range(game.n)]
        before, after = profile.rating, rate(entries)[me]
        rules = record.get("rules") or {}
        preset = str(rules.get("preset") or game.rules.name)
        entry: dict[str, Any] = {
            "id": game_id,
            "date": (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds"),
            "preset": preset}
        if rules.get("overrides"):
            entry["overrides"] = rules["overrides"]
        entry.update({
            "seats": [s.to_json() for s in seats], "seat": me, "name": seats[me].name,
            "place": mine.place, "points": mine.points, "players": game.n,
            "hands": mine.hands, "rated_seats": game.n,
            "rating_before": rating_json(before), "rating_after": rating_json(after),
            "record": str(Path(record_path).resolve())})
        profile.rating = after
        profile.games += 1
        profile.stats.setdefault(preset, Stats()).add(mine, game.n)
        profile.last = entry
        save(profile, folder)  # first: a crash before the line is mended by the next call
        _append(entry, folder)
        return Recorded(entry, True)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def rating_change(entry: Mapping[str, Any]) -> str:
    """``1500? -> 1538? (+38)``: the shown ratings before and after a game."""
    try:
        before = Rating.from_json(entry.get("rating_before"))
        after = Rating.from_json(entry.get("rating_after"))
    except ValueError:
        return "-"
    return f"{before.text()} -> {after.text()} ({after.shown - before.shown:+d})"


def end_lines(entry: Mapping[str, Any]) -> list[str]:
    """What the end of a game says about the player: place, points, rating."""
    points = entry.get("points")
    return [f"You placed {ordinal(int(entry.get('place', 0)))} of {entry.get('players')} with "
            f"{points} point{'' if points == 1 else 's'}. Rating {rating_change(entry)}."]


@dataclass(frozen=True)
class Page:
    """Some of the history's games, newest first, and how many there are in all."""

    games: list[dict[str, Any]]
    total: int
    offset: int
    limit: int
    unreadable: int = 0  # lines of the page that were not a game's entry (skipped)


def read_page(offset: int = 0, limit: int = DEFAULT_LIMIT, folder: Path | None = None) -> Page:
    """The games ``offset`` .. ``offset + limit`` counted from the newest: one scan counts the
    lines, a second reads only the page's (memory: the page, whatever the history's size)."""
    path = history_path(folder or data_dir())
    total = sum(1 for _ in _lines(path))
    hi = max(0, total - offset)  # the history is oldest first: the page is lines lo..hi-1
    lo = max(0, hi - limit)
    games: list[dict[str, Any]] = []
    unreadable = 0
    if hi > lo:
        for i, line in enumerate(_lines(path)):
            if i >= hi:
                break
            if i >= lo:
                entry = _entry(line)
                if entry is None:
                    unreadable += 1
                else:
                    games.append(entry)
    games.reverse()
    return Page(games, total, offset, limit, unreadable)


# ---- liverpool history ---------------------------------------------------------------------
def offset_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"an offset is 0 or more, not {value}")
    return value


def limit_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"a page is 1 to {MAX_LIMIT} games, not {value}")
    return value


def _seats_text(entry: Mapping[str, Any]) -> str:
    parts = []
    for i, s in enumerate(entry.get("seats") or []):
        if not isinstance(s, dict):
            continue
        name = str(s.get("name", "?"))
        if i == entry.get("seat"):
            parts.append(f"{name} (you)")
        else:
            parts.append(f"{name} ({s.get('level') or s.get('kind', '?')})")
    return ", ".join(parts)


def _rules_text(entry: Mapping[str, Any]) -> str:
    over = entry.get("overrides") or {}
    if not over:
        return str(entry.get("preset", "?"))
    return f"{entry.get('preset', '?')} + " + ", ".join(
        f"{k}={json.dumps(v)}" for k, v in over.items())


def _date_text(entry: Mapping[str, Any]) -> str:
    """The date in the reader's local time, to the minute."""
    try:
        when = datetime.fromisoformat(str(entry.get("date")))
    except ValueError:
        return str(entry.get("date", "?"))
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def _print_games(page: Page, console: Any, limit_given: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Your games, newest first")
    for name, how, least in (("date", "left", 0), ("rules", "left", 8), ("seats", "left", 12),
                             ("place", "right", 0), ("points", "right", 0),
                             ("rating", "left", 0), ("record", "left", 12)):
        table.add_column(name, justify=how, overflow="fold",  # type: ignore[arg-type]
                         no_wrap=not least, min_width=least or None)
    for e in page.games:
        table.add_row(_date_text(e), escape(_rules_text(e)), escape(_seats_text(e)),
                      f"{e.get('place', '?')}/{e.get('players', '?')}", str(e.get("points", "?")),
                      rating_change(e), escape(str(e.get("record", ""))))
    console.print(table)
    first, last = page.offset + 1, page.offset + len(page.games) + page.unreadable
    pages = -(-page.total // page.limit)
    line = f"Games {first}-{last} of {page.total} (page {page.offset // page.limit + 1} of " \
           f"{pages})."
    if last < page.total:
        more = f" --limit {page.limit}" if limit_given else ""
        line += f" Next page: liverpool history --offset {last}{more}"
    console.print(line, highlight=False, soft_wrap=True)
    if page.unreadable:
        console.print(f"({page.unreadable} line(s) of the history were not a game; skipped)",
                      highlight=False, soft_wrap=True)


def _print_stats(profile: Profile, console: Any) -> None:
    from rich.table import Table

    def num(v: Any, percent: bool = False) -> str:
        if v is None:
            return "-"
        return f"{v * 100:.1f}%" if percent else str(v)

    r = profile.rating
    console.print(f"Rating {r.text()} (mu {r.mu:.1f}, sigma {r.sigma:.1f}"
                  f"{'; provisional' if r.provisional else ''}) after {profile.games} rated "
                  f"game{'' if profile.games == 1 else 's'}", highlight=False)
    if not profile.stats:
        console.print("No statistics yet: play a game to its end with liverpool play.")
        return
    table = Table(title="By rules")
    for col in ("rules", "games", "wins", "mean place", "points/hand", "going out",
                "buys/hand"):
        table.add_column(col, justify="left" if col == "rules" else "right")
    for preset, stats in sorted(profile.stats.items()):
        f = stats.figures()
        table.add_row(preset, str(f["games"]), str(f["wins"]), num(f["mean_place"]),
                      num(f["points_per_hand"]), num(f["going_out_rate"], True),
                      num(f["buys_per_hand"]))
    console.print(table)
    for preset, stats in sorted(profile.stats.items()):
        made = Table(title=f"Contracts made: {preset}")
        for col in ("contract", "hands", "made", "rate"):
            made.add_column(col, justify="left" if col == "contract" else "right")
        for row in stats.figures()["contracts"]:
            made.add_row(row["contract"], str(row["hands"]), str(row["made"]),
                         num(row["rate"], True))
        console.print(made)


def main(args: argparse.Namespace) -> int:
    """``liverpool history``: the games, newest first, a page at a time; ``--stats``: the
    statistics by rules and the rating; ``--json``: both as one object."""
    from rich.console import Console

    folder = data_dir()
    try:
        profile = load(folder)
    except ProfileError as e:
        print(f"liverpool history: {e}", file=sys.stderr)
        return 1
    limit = args.limit if args.limit is not None else DEFAULT_LIMIT
    page = read_page(args.offset, limit, folder)
    if args.json:
        print(json.dumps({"games": page.games, "total": page.total, "offset": page.offset,
                          "limit": page.limit,
                          "rating": {**rating_json(profile.rating), "games": profile.games},
                          "stats": {k: v.figures() for k, v in sorted(profile.stats.items())}}))
        return 0
    console = Console()
    if not console.is_terminal:  # into a pipe or a file: whole lines, not 80 columns
        console = Console(width=200)
    if args.stats:
        _print_stats(profile, console)
        return 0
    if page.total == 0:
        console.print("No games in your history yet: play one to its end with liverpool play "
                      "(liverpool play --plain for the line mode).", highlight=False)
        return 0
    if not page.games and not page.unreadable:
        last = (page.total - 1) // limit * limit
        console.print(f"No games at --offset {page.offset}: there are {page.total} (the last "
                      f"page starts at --offset {last}).", highlight=False)
        return 0
    _print_games(page, console, args.limit is not None)
    return 0
