"""What the routes of one server share: ``ServerContext``, made once by ``create_app`` and kept
on ``app.state.context``, so that each route module finds the server it serves without a
closure or a module global.

Domain words: *settings* (what every table of the server is given: timers, bot commands,
limits, origins, metrics), *registry* (the owners of the tables this process serves), *store*
(where tables are kept), *rates* (the per-client rate limiter), *ops* (liveness, readiness and
metrics), *reviews* (finished games' reviews: their queue and processes), *players* (who a
request comes from, and what games leave them), *link base* (the scheme and host a share link
points at).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from .guard import Origins
from .limits import ApiError, Limits, RateLimiter
from .ops import Ops
from .players import People
from .playerstore import Player
from .registry import Registry
from .reviews import Reviews
from .seats import Settings
from .store import Store


@dataclass(frozen=True, slots=True)
class ServerContext:
    """The objects one server's routes share."""

    settings: Settings
    store: Store
    registry: Registry
    rates: RateLimiter
    ops: Ops
    allow_seed: bool  # creates may give a seed and deals (tests only: the host sees the cards)
    reviews: Reviews

    @property
    def limits(self) -> Limits:
        return self.settings.limits

    @property
    def origins(self) -> Origins:
        return self.settings.origins

    @property
    def bot_commands(self) -> Mapping[str, str]:
        return self.settings.bot_commands

    def players(self) -> People:
        """The players' side of the server (503 where the store keeps no players)."""
        people = self.settings.people
        if people is None:
            raise ApiError(503, "no_players", "this server keeps no players")
        return people

    async def player_of(self, conn: HTTPConnection, client: str) -> Player | None:
        """The player a request comes from, where a player is optional (a create, a join):
        None for a guest, and on a server that keeps no players."""
        people = self.settings.people
        return None if people is None else await people.of_request(conn, client)

    def link_base(self, conn: HTTPConnection) -> str:
        """Where the share links given to this client point."""
        return self.origins.link_base(conn.url.scheme, conn.headers.get("host", ""))


def context_of(conn: HTTPConnection) -> ServerContext:
    """The context of the server a request or websocket reached."""
    context = conn.app.state.context
    assert isinstance(context, ServerContext)
    return context
