"""Standings of a finished game and the statistics of a player's games, worked out from the
engine's events (a game's record, replayed by the one replayer).

Domain words: *standing* (``Standing``: one seat's place and points at the end, and what its
game was made of), *place* (1 = fewest points; equal totals share a place; a *leaver*, a
person who left before the end, is last whatever the points), *contract made* (the seat went
down in a hand played with that contract), *going out* (ending a hand with no cards),
*statistics* (``Stats``: the sums of many standings of one preset, from which the player page's
figures come: games, wins, mean place, points per hand, each contract's rate, buys per hand,
going-out rate).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import Event, Game
from .ratings import places
from .record import new_game_from_record, steps


@dataclass(frozen=True)
class Standing:
    """One seat at the end of a game."""

    seat: int
    name: str
    place: int
    points: int
    hands: int
    went_out: int  # hands this seat went out
    buys: int  # discards bought
    contracts: dict[str, list[int]]  # a contract's words -> [hands played with it, made]
    left: bool = False  # left before the end: placed last

    def stats_json(self) -> dict[str, Any]:
        return {"hands": self.hands, "went_out": self.went_out, "buys": self.buys,
                "contracts": {k: list(v) for k, v in self.contracts.items()}}


class Tally:
    """What each seat's hands were made of, from the engine's events as they come."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.hands = 0
        self.went_out = [0] * n
        self.buys = [0] * n
        self.contracts: list[dict[str, list[int]]] = [{} for _ in range(n)]
        self._playing: list[str] = [""] * n  # each seat's contract in the hand in progress
        self.totals: tuple[int, ...] = (0,) * n

    def hear(self, events: Iterable[Event]) -> None:
        for e in events:
            if e.kind == "hand_started":
                self._playing = [c.describe() for c in e.contract]  # type: ignore[attr-defined]
            elif e.kind == "hand_ended":
                end = e.end  # type: ignore[attr-defined]
                self.hands += 1
                self.totals = tuple(e.totals)  # type: ignore[attr-defined]
                for s in range(self.n):
                    row = self.contracts[s].setdefault(self._playing[s] or "?", [0, 0])
                    row[0] += 1
                    row[1] += 1 if end.down[s] else 0
                    self.went_out[s] += 1 if end.out[s] else 0
                    self.buys[s] += end.buys[s]

    def standings(self, names: Sequence[str], leavers: Sequence[int] = ()) -> list[Standing]:
        place = places(self.totals, leavers)
        return [Standing(s, names[s], place[s], self.totals[s], self.hands, self.went_out[s],
                         self.buys[s], {k: list(v) for k, v in self.contracts[s].items()},
                         s in set(leavers))
                for s in range(self.n)]


def standings_of_record(rec: dict[str, Any], leavers: Sequence[int] = (),
                        search_budget: int | None = None) -> tuple[Game, list[Standing]]:
    """Replay a finished game's record; its final game and every seat's standing. ``ValueError``
    (``RecordError``, ``ReplayError``) when the record does not replay, or its game is not over.
    """
    game = new_game_from_record(rec, search_budget=search_budget)
    tally = Tally(game.n)
    tally.hear([game.hand_started()])
    for step in steps(None, game, rec.get("actions") or []):
        tally.hear(step.events)
    if not game.over:
        raise ValueError("the game is not over: it has no standings yet")
    return game, tally.standings(list(game.players), leavers)


@dataclass
class Stats:
    """The sums of a player's games of one preset (what the player page shows, divided)."""

    games: int = 0
    wins: int = 0
    place_sum: int = 0
    players_sum: int = 0
    hands: int = 0
    points: int = 0
    went_out: int = 0
    buys: int = 0
    left: int = 0
    contracts: dict[str, list[int]] = field(default_factory=dict)

    def add(self, st: Standing, players: int) -> None:
        self.games += 1
        self.wins += 1 if st.place == 1 and not st.left else 0
        self.place_sum += st.place
        self.players_sum += players
        self.hands += st.hands
        self.points += st.points
        self.went_out += st.went_out
        self.buys += st.buys
        self.left += 1 if st.left else 0
        for k, (played, made) in st.contracts.items():
            row = self.contracts.setdefault(k, [0, 0])
            row[0] += played
            row[1] += made

    def to_json(self) -> dict[str, Any]:
        """The sums, as stored."""
        return {"games": self.games, "wins": self.wins, "place_sum": self.place_sum,
                "players_sum": self.players_sum, "hands": self.hands, "points": self.points,
                "went_out": self.went_out, "buys": self.buys, "left": self.left,
                "contracts": {k: list(v) for k, v in self.contracts.items()}}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Stats:
        return Stats(**{k: int(d.get(k, 0)) for k in (
            "games", "wins", "place_sum", "players_sum", "hands", "points", "went_out", "buys",
            "left")}, contracts={str(k): [int(v[0]), int(v[1])]
                                 for k, v in (d.get("contracts") or {}).items()})

    def figures(self) -> dict[str, Any]:
        """What a person reads: rates and means (None where there is nothing to divide)."""
        def ratio(a: int, b: int, digits: int = 3) -> float | None:
            return round(a / b, digits) if b else None
        return {"games": self.games, "wins": self.wins,
                "win_rate": ratio(self.wins, self.games),
                "mean_place": ratio(self.place_sum, self.games, 2),
                "mean_players": ratio(self.players_sum, self.games, 2),
                "hands": self.hands,
                "points_per_hand": ratio(self.points, self.hands, 1),
                "going_out_rate": ratio(self.went_out, self.hands),
                "buys_per_hand": ratio(self.buys, self.hands, 2),
                "left": self.left,
                "contracts": [{"contract": k, "hands": v[0], "made": v[1],
                               "rate": ratio(v[1], v[0])}
                              for k, v in self.contracts.items()]}
