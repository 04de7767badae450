"""Lobby requests carried out at a table's owner server, for a client of this server
(``Registry.table_op``) or of another one (a *call* relayed by ``Cluster``): both end here, so a
table answers the same wherever its client came in.

Domain words: *lobby request* (``summary``, ``join``, ``start``, ``remove``: what the HTTP lobby
asks of one table), *owner* (the table's ``TableOwner``: every change goes through its queue),
*games in play* (this server's, counted against ``Limits.playing_tables`` with the starts under
way; a sleeping game is not one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .limits import ApiError, Limits
from .table import TableOwner


class TableRequests:
    """Carries out lobby requests on this server's tables. It reads the owners it is given and
    changes nothing but its count of starts under way."""

    def __init__(self, owners: Mapping[str, TableOwner], limits: Limits) -> None:
        self.owners = owners
        self.limits = limits
        self._starting = 0  # starts asked of this server's tables and not yet done

    def playing_tables(self) -> int:
        """Games in play here (a sleeping one is not), with the starts under way."""
        return self._starting + sum(1 for o in self.owners.values()
                                    if o.status == "playing" and not o.asleep)

    async def serve(self, owner: TableOwner, op: str, args: dict[str, Any]) -> Any:
        """A lobby request carried out by the table's owner."""
        if op == "summary":
            return owner.summary()
        if owner.status == "over":  # a finished table may be evicted: don't queue on it
            raise ApiError(409, "started", "the game has already started")
        if op == "join":
            seat = None
            if args.get("rematch_of") is not None:  # a person of the old table, checked there
                core = owner.core
                seat = core.rematch_seats.get(str(args.get("old_seat")))
                if core.rematch_of != args["rematch_of"] or seat is None:
                    raise ApiError(403, "bad_token", "no seat is kept for you at this table")
            return await owner.call(owner.join, args["nickname"], args.get("secret"),
                                    args.get("client"), args.get("player"), seat)
        if op == "start":
            if owner.status == "open" and self.playing_tables() >= self.limits.playing_tables:
                raise ApiError(503, "busy", f"the server has {self.limits.playing_tables} "
                                            f"games in play, its most; try again later")
            self._starting += 1  # counted until it has started (or was refused)
            try:
                return await owner.call(owner.start_game, args["token"])
            finally:
                self._starting -= 1
        if op == "remove":
            return await owner.call(owner.remove, args["token"], int(args["seat"]))
        raise ApiError(400, "bad_request", f"unknown request {op[:40]!r}")
