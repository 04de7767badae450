"""What the server keeps of players, as an interface (implemented on the store's database by
liverpool.web.playerdb): the players' side of the store.

Domain words: *player* (``Player``: a person the server remembers, by a public *id*, with a
*name*, whether they are *listed* on the leaderboard and whether their page is *public*),
*key hash* and *code hash* (what is kept of a device's key and of a recovery code), *forgotten*
(a player who asked to be forgotten: their games stay, under ``FORMER``), *seat of* (``SeatOf``:
who sat in a seat of a finished game, as its rating needs it), *standings rows* (a finished
game's rows: place, points, rating before and after, per seat), *results* (a player's seat in
a finished game), *leaderboard* (listed players by conservative rating).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ratings import Rating
from ..standings import Standing, Stats

FORMER = "a former player"


@dataclass(frozen=True)
class Player:
    id: str
    name: str | None
    created: float
    listed: bool
    public: bool
    recovery: bool
    forgotten: bool

    def shown_name(self) -> str:
        return FORMER if self.forgotten or self.name is None else self.name


@dataclass(frozen=True)
class SeatOf:
    """Who sat in a seat of a finished game, as the rating needs it."""

    kind: str  # human | bot
    level: str | None  # a bot's level
    player: str | None  # a person's player id (None: a guest)


class PlayerStore(ABC):
    """What the server needs to keep of players and their finished games."""

    # ---- players and keys
    @abstractmethod
    async def create(self, player_id: str, name: str, key_hash: str, client: str | None,
                     network: str | None = None) -> None: ...

    @abstractmethod
    async def created_since(self, since: float, client: str | None = None,
                            network: str | None = None) -> int: ...

    @abstractmethod
    async def by_key(self, key_hash: str) -> Player | None: ...

    @abstractmethod
    async def get(self, player_id: str) -> Player | None: ...

    @abstractmethod
    async def names(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        """The players' names (None: forgotten)."""

    @abstractmethod
    async def update(self, player_id: str, **values: Any) -> None:
        """Change a player's ``name``, ``listed`` or ``public``."""

    @abstractmethod
    async def set_recovery(self, player_id: str, code_hash: str) -> None: ...

    @abstractmethod
    async def recover(self, code_hash: str, key_hash: str) -> Player | None:
        """A new key for the player whose recovery code this is (None: no such code)."""

    @abstractmethod
    async def forget(self, player_id: str) -> None: ...

    # ---- ratings, statistics and games
    @abstractmethod
    async def rating(self, player_id: str) -> tuple[Rating, int] | None:
        """The player's rating and rated games (None: none yet)."""

    @abstractmethod
    async def stats(self, player_id: str) -> dict[str, Stats]: ...

    @abstractmethod
    async def rating_history(self, player_id: str) -> list[tuple[float, float, float]]: ...

    @abstractmethod
    async def games(self, player_id: str, offset: int, limit: int
                    ) -> tuple[list[dict[str, Any]], int]: ...

    @abstractmethod
    async def leaderboard(self, preset: str | None, offset: int, limit: int
                          ) -> tuple[list[dict[str, Any]], int]: ...

    # ---- a finished game
    @abstractmethod
    async def game(self, game_id: str) -> list[dict[str, Any]] | None:
        """A recorded game's standings rows (None: not recorded)."""

    @abstractmethod
    async def record_game(self, game_id: str, preset: str, overrides: dict[str, Any],
                          standings: Sequence[Standing], seats: Sequence[SeatOf]
                          ) -> list[dict[str, Any]]:
        """Write a finished game once (exactly once, whoever asks and how often); its
        standings rows."""

    @abstractmethod
    async def rematch_of(self, game_id: str) -> str | None: ...

    @abstractmethod
    async def set_rematch(self, game_id: str, table_id: str) -> str | None:
        """Link the game to its rematch table unless one is linked: the one linked."""
