"""Players of the web server: who a request comes from, without passwords, and what a finished
game leaves them (standings, ratings, statistics).

Domain words: *player* (a person the server remembers, liverpool.web.playerdb), *key* (a
device's secret, sent as ``Authorization: Bearer KEY`` or a hello's ``player_key``, stored only
as a hash; looked up by its hash, so no secret is ever compared a character at a time),
*recovery code* (28 letters and digits in groups of four: another device's way to a key of its
own), *guest* (a seat without a player), *standings* (a finished game's rows: place, points and
rating change per seat, ``record_game``), *leaver* (a person who left the game before its end:
placed last).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Sequence
from typing import Any

from starlette.requests import HTTPConnection

from ..ratings import bot_rating
from ..standings import standings_of_record
from .guard import client_mark, network_key
from .limits import ApiError, Limits, RateLimiter, clean_nickname
from .playerstore import FORMER, Player, PlayerStore, SeatOf

log = logging.getLogger("liverpool.web")

KEY_BYTES = 24  # 192 bits
_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
CODE_GROUPS = 7  # of 4 characters: 140 bits
PLAYER_ID_CHARS = 12
DAY = 86400.0


def key_hash(key: str) -> str:
    return hashlib.sha256(b"liverpool-player-key:" + key.encode("utf-8")).hexdigest()


def code_hash(code: str) -> str:
    return hashlib.sha256(b"liverpool-recovery:" + code.encode("utf-8")).hexdigest()


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def new_player_id() -> str:
    return "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz23456789")
                   for _ in range(PLAYER_ID_CHARS))


def new_code() -> str:
    chars = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(4 * CODE_GROUPS))
    return "-".join(chars[i:i + 4] for i in range(0, len(chars), 4))


def normal_code(text: str) -> str | None:
    """A recovery code as typed (any case, spaces or dashes, O for 0, I or L for 1) in its one
    form; None if it cannot be one."""
    raw = "".join(ch for ch in text.upper() if ch not in " -\t")
    raw = raw.translate(str.maketrans("OIL", "011"))
    if len(raw) != 4 * CODE_GROUPS or any(ch not in _CODE_ALPHABET for ch in raw):
        return None
    return "-".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def bearer(conn: HTTPConnection) -> str | None:
    """The key an HTTP request carries (``Authorization: Bearer KEY``), if any."""
    value = conn.headers.get("authorization")
    if value is None:
        return None
    scheme, _, key = value.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key or len(key) > 200:
        raise ApiError(401, "bad_key", "the Authorization header must be \"Bearer\" and a "
                                       "player's key")
    return key


class People:
    """The players' side of one server, over the store's database."""

    def __init__(self, db: PlayerStore, limits: Limits, rates: RateLimiter | None = None) -> None:
        self.db = db
        self.limits = limits
        self.rates = rates

    # ---- who is asking ---------------------------------------------------------------------
    async def player_of_key(self, key: str, client: str | None = None) -> Player:
        """The player whose key this is; 401 ``bad_key`` (counted against the address: a
        client guessing keys is stopped) when there is none."""
        if client is not None and self.rates is not None and not await self._may_try(client):
            raise ApiError(429, "rate_limited", "too many unknown keys from one address; try "
                                                "again later")
        h = key_hash(key)
        player = await self.db.by_key(h)
        if player is None:
            if client is not None and self.rates is not None:
                await self.rates.allow("bad_key", client)
            raise ApiError(401, "bad_key", "this player key is unknown here (forgotten, or "
                                           "from another server): play as a guest, or make a "
                                           "new player")
        return player

    async def _may_try(self, client: str) -> bool:
        """Whether the address has failures left (the failures are what is counted)."""
        assert self.rates is not None
        return not await self.rates.exhausted("bad_key", client)

    async def of_request(self, conn: HTTPConnection, client: str | None) -> Player | None:
        """The player an HTTP request comes from (None: a guest)."""
        key = bearer(conn)
        return None if key is None else await self.player_of_key(key, client)

    async def required(self, conn: HTTPConnection, client: str | None) -> Player:
        player = await self.of_request(conn, client)
        if player is None:
            raise ApiError(401, "no_key", "this needs a player's key (Authorization: Bearer "
                                          "KEY)")
        return player

    async def of_hello(self, key: str) -> Player | None:
        """The player of a hello's ``player_key`` (None: unknown)."""
        try:
            return await self.db.by_key(key_hash(key))
        except Exception as e:  # the database is down: the hello goes on without a player
            log.warning("a hello's player key could not be checked: %s", e)
            return None

    # ---- making, recovering and forgetting players -----------------------------------------
    async def create(self, name: Any, client: str) -> tuple[Player, str]:
        name = clean_nickname(name, self.limits.nickname_max)
        mark, net = client_mark(client), client_mark(network_key(client))
        if self.rates is not None:
            await self.rates.check("player", client)
        # counted in the database: every server of a service, and every restart, together
        day = time.time() - DAY
        if await self.db.created_since(day, client=mark) >= self.limits.players_per_client:
            raise ApiError(429, "rate_limited", f"at most {self.limits.players_per_client} new "
                                                f"players a day from one address")
        if await self.db.created_since(day, network=net) >= self.limits.players_per_network:
            raise ApiError(429, "rate_limited", f"at most {self.limits.players_per_network} "
                                                f"new players a day from one network")
        key = new_key()
        for _ in range(3):
            player_id = new_player_id()
            try:
                await self.db.create(player_id, name, key_hash(key), mark, net)
                break
            except Exception:
                if await self.db.get(player_id) is None:
                    raise
        else:  # pragma: no cover (three ids of 60 bits taken in a row)
            raise ApiError(503, "busy", "could not make a player; try again")
        player = await self.db.get(player_id)
        assert player is not None
        return player, key

    async def new_recovery_code(self, player: Player) -> str:
        code = new_code()
        await self.db.set_recovery(player.id, code_hash(code))
        return code

    async def recover(self, code: Any, client: str) -> tuple[Player, str]:
        if self.rates is not None:
            await self.rates.check("recover", client)
        text = normal_code(code) if isinstance(code, str) and len(code) < 100 else None
        if text is None:
            raise ApiError(400, "bad_code", "a recovery code is 28 letters and digits, in "
                                            "groups of 4", "code")
        key = new_key()
        h = code_hash(text)
        player = await self.db.recover(h, key_hash(key))
        if player is None:
            raise ApiError(403, "bad_code", "this recovery code opens no player here", "code")
        return player, key

    # ---- profiles --------------------------------------------------------------------------
    async def profile(self, player: Player, me: bool) -> dict[str, Any]:
        """A player's profile as the asker may see it (``me``: the player themselves)."""
        shown = me or player.public
        rated = await self.db.rating(player.id)
        out: dict[str, Any] = {"id": player.id, "name": player.shown_name(),
                               "since": _iso(player.created), "me": me,
                               "forgotten": player.forgotten,
                               "rating": None, "games": None, "stats": None,
                               "rating_history": None}
        if player.forgotten:
            return out
        if rated is not None and (shown or player.listed):
            out["rating"] = rated[0].to_json()
        if shown:
            out["games"] = 0 if rated is None else rated[1]
            out["stats"] = {preset: s.figures()
                            for preset, s in (await self.db.stats(player.id)).items()}
            out["rating_history"] = [[round(t), round(mu)]
                                     for t, mu, _ in await self.db.rating_history(player.id)]
        if me:
            out.update(listed=player.listed, public=player.public, recovery=player.recovery)
        return out

    async def games(self, player: Player, me: bool, offset: int, limit: int
                    ) -> dict[str, Any]:
        if not (me or player.public) or player.forgotten:
            raise ApiError(403, "private", "this player keeps their games private")
        games, total = await self.db.games(player.id, offset, limit)
        await self.name_seats([s for g in games for s in g["seats"]])
        for g in games:
            g["finished"] = _iso(g["finished"])
        return {"games": games, "total": total, "offset": offset, "limit": limit}

    async def name_seats(self, rows: Sequence[dict[str, Any]]) -> None:
        """Seats of forgotten players are shown as a former player's."""
        names = await self.db.names([r["player"] for r in rows if r.get("player")])
        for r in rows:
            if r.get("player") and r["player"] in names and names[r["player"]] is None:
                r["name"] = FORMER
                r["player"] = None

    # ---- a finished game -------------------------------------------------------------------
    async def record_game(self, game_id: str, record: dict[str, Any], preset: str,
                          overrides: dict[str, Any], seats: Sequence[SeatOf],
                          leavers: Sequence[int], search_budget: int | None
                          ) -> list[dict[str, Any]]:
        """Record a finished game once (its standings, and its players' ratings and
        statistics); the standings rows, as recorded (the first time, by whichever server)."""
        done = await self.db.game(game_id)
        if done is None:
            # replaying the game costs a few milliseconds of CPU: not on the event loop
            _, standings = await asyncio.to_thread(standings_of_record, record, leavers,
                                                   search_budget)
            done = await self.db.record_game(game_id, preset, overrides, standings, seats)
        await self.name_seats(done)
        return done

    def bots(self) -> list[dict[str, Any]]:
        """The ladder's levels with a measured rating (title and older name beside)."""
        from ..bots import LADDER
        out = []
        for lv in LADDER:
            r = bot_rating(lv.name)
            if r is not None:
                out.append({"level": lv.name, "title": lv.title, "alias": lv.alias,
                            "rating": r.to_json()})
        return out


def _iso(t: float) -> str:
    from datetime import UTC, datetime
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
