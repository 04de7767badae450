"""The players' side of the store on its SQL database (SQLite or PostgreSQL), shared by every
server of a service: ``SqlPlayers``, liverpool.web.playerstore's interface in tables.

Domain words: *player* (a person the server remembers: a public *id*, a *name*, whether they are
*listed* on the leaderboard and whether their page is *public*), *key* (a device's secret,
stored as its SHA-256 hash; a player may have several), *recovery code* (what gives another
device a key; stored hashed), *forgotten* (a player who asked to be forgotten: name, keys,
rating and statistics gone, their games kept), *game row* (``lv_games``: a finished game's
standings, written once: its id is the table's, so that recording a game twice, by one server or
by another that took the table over, changes nothing the second time), *result* (a player's seat
in a finished game, with their rating before and after), *stats* (a player's sums per preset).

Every write of a finished game is one transaction that starts by inserting the game row: the
first writer wins, and a second finds the row there and reads the standings back instead.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..ratings import FAMILY, Rating, entry_for, rate
from ..standings import Standing, Stats
from .playerstore import Player, PlayerStore, SeatOf
from .store import SqlStore, StoreError, metadata

players_t = sa.Table(
    "lv_players", metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(80), nullable=True),  # None once forgotten
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("client", sa.String(32), nullable=True),  # the creating address's mark
    sa.Column("network", sa.String(32), nullable=True),  # and its network's (guard.client_mark)
    sa.Column("listed", sa.Boolean, nullable=False, default=False),
    sa.Column("public", sa.Boolean, nullable=False, default=False),
    sa.Column("recovery_hash", sa.String(64), nullable=True, unique=True),
    sa.Column("forgotten", sa.Float, nullable=True),
)
sa.Index("lv_players_client", players_t.c.client, players_t.c.created)
sa.Index("lv_players_network", players_t.c.network, players_t.c.created)
keys_t = sa.Table(
    "lv_player_keys", metadata,
    sa.Column("key_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(16), nullable=False, index=True),
    sa.Column("created", sa.Float, nullable=False),
)
ratings_t = sa.Table(
    "lv_ratings", metadata,
    sa.Column("player_id", sa.String(16), primary_key=True),
    sa.Column("family", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
)
games_t = sa.Table(
    "lv_games", metadata,
    sa.Column("id", sa.String(32), primary_key=True),  # the table's id
    sa.Column("preset", sa.String(32), nullable=False),
    sa.Column("overrides", sa.Text, nullable=False),
    sa.Column("finished", sa.Float, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),  # the standings rows, as JSON
    sa.Column("rematch", sa.String(32), nullable=True),  # the rematch table's id
)
results_t = sa.Table(
    "lv_results", metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player_id", sa.String(16), nullable=False),
    sa.Column("preset", sa.String(32), nullable=False),
    sa.Column("finished", sa.Float, nullable=False),
    sa.Column("place", sa.Integer, nullable=False),
    sa.Column("points", sa.Integer, nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("left_early", sa.Boolean, nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=False),
    sa.Column("sigma_after", sa.Float, nullable=False),
)
sa.Index("lv_results_player", results_t.c.player_id, results_t.c.finished)
sa.Index("lv_results_preset", results_t.c.preset, results_t.c.player_id)  # the leaderboard's
stats_t = sa.Table(
    "lv_player_stats", metadata,
    sa.Column("player_id", sa.String(16), primary_key=True),
    sa.Column("preset", sa.String(32), primary_key=True),
    sa.Column("data", sa.Text, nullable=False),
)

RATING_HISTORY = 200  # points of a player's rating chart (the latest)
WRITE_ATTEMPTS = 6


def _player(row: Any) -> Player:
    return Player(row.id, row.name, row.created, bool(row.listed), bool(row.public),
                  row.recovery_hash is not None, row.forgotten is not None)


class SqlPlayers(PlayerStore):
    """The players' tables on a SQL store's database (its engine, once the store is open)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.pause = 0.0  # seconds a game's recording waits in its transaction (tests)
        # one SQLite server writes a game at a time (PostgreSQL locks the rating rows instead)
        self._sqlite_lock = asyncio.Lock()

    @property
    def engine(self) -> AsyncEngine:
        engine = self.store.engine
        if engine is None:
            raise StoreError("the database is not open")
        return engine

    @property
    def postgres(self) -> bool:
        return self.store.postgres

    # ---- players and keys ------------------------------------------------------------------
    async def create(self, player_id: str, name: str, key_hash: str, client: str | None,
                     network: str | None = None) -> None:
        now = time.time()
        async with self.engine.begin() as conn:
            await conn.execute(players_t.insert().values(
                id=player_id, name=name, created=now, client=client, network=network,
                listed=False,
                public=False, recovery_hash=None, forgotten=None))
            await conn.execute(keys_t.insert().values(key_hash=key_hash, player_id=player_id,
                                                      created=now))

    async def created_since(self, since: float, client: str | None = None,
                            network: str | None = None) -> int:
        """How many players the address (or the network) made since ``since``, on every
        server."""
        column, mark = (players_t.c.client, client) if network is None \
            else (players_t.c.network, network)
        async with self.engine.connect() as conn:
            n = (await conn.execute(sa.select(sa.func.count()).select_from(players_t).where(
                column == mark, players_t.c.created >= since))).scalar()
        return int(n or 0)

    async def by_key(self, key_hash: str) -> Player | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(players_t, keys_t.c.key_hash)
                .join(keys_t, keys_t.c.player_id == players_t.c.id)
                .where(keys_t.c.key_hash == key_hash))).first()
        # found by the hash (no secret is compared a character at a time); compared again in
        # constant time, so that no database's collation or padding can match another text
        if row is None or not hmac.compare_digest(row.key_hash, key_hash):
            return None
        return None if row.forgotten is not None else _player(row)

    async def get(self, player_id: str) -> Player | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(players_t)
                                      .where(players_t.c.id == player_id))).first()
        return None if row is None else _player(row)

    async def names(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        """The players' names (None: forgotten)."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(players_t.c.id, players_t.c.name,
                                                 players_t.c.forgotten)
                                       .where(players_t.c.id.in_(ids)))).all()
        return {r.id: None if r.forgotten is not None else r.name for r in rows}

    async def update(self, player_id: str, **values: Any) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(players_t.update().where(players_t.c.id == player_id)
                               .values(**values))

    async def set_recovery(self, player_id: str, code_hash: str) -> None:
        await self.update(player_id, recovery_hash=code_hash)

    async def recover(self, code_hash: str, key_hash: str) -> Player | None:
        """A new key for the player whose recovery code this is (None: no such code)."""
        async with self.engine.begin() as conn:
            row = (await conn.execute(sa.select(players_t).where(
                players_t.c.recovery_hash == code_hash,
                players_t.c.forgotten.is_(None)))).first()
            if row is None or not hmac.compare_digest(row.recovery_hash, code_hash):
                return None
            await conn.execute(keys_t.insert().values(key_hash=key_hash, player_id=row.id,
                                                      created=time.time()))
        return _player(row)

    async def forget(self, player_id: str) -> None:
        """The player is forgotten: what named or identified them goes; their games stay."""
        async with self.engine.begin() as conn:
            await conn.execute(keys_t.delete().where(keys_t.c.player_id == player_id))
            await conn.execute(ratings_t.delete().where(ratings_t.c.player_id == player_id))
            await conn.execute(stats_t.delete().where(stats_t.c.player_id == player_id))
            await conn.execute(players_t.update().where(players_t.c.id == player_id).values(
                name=None, listed=False, public=False, recovery_hash=None, client=None,
                network=None, forgotten=time.time()))

    # ---- ratings and statistics -------------------------------------------------------------
    async def rating(self, player_id: str) -> tuple[Rating, int] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(ratings_t).where(
                ratings_t.c.player_id == player_id, ratings_t.c.family == FAMILY))).first()
        return None if row is None else (Rating(row.mu, row.sigma), int(row.games))

    async def stats(self, player_id: str) -> dict[str, Stats]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(stats_t).where(
                stats_t.c.player_id == player_id).order_by(stats_t.c.preset))).all()
        return {r.preset: Stats.from_json(json.loads(r.data)) for r in rows}

    async def rating_history(self, player_id: str) -> list[tuple[float, float, float]]:
        """The latest ratings after each game (time, mu, sigma), oldest first."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                sa.select(results_t.c.finished, results_t.c.mu_after, results_t.c.sigma_after)
                .where(results_t.c.player_id == player_id)
                .order_by(results_t.c.finished.desc(), results_t.c.game_id.desc())
                .limit(RATING_HISTORY))).all()
        return [(r.finished, r.mu_after, r.sigma_after) for r in reversed(rows)]

    async def games(self, player_id: str, offset: int, limit: int
                    ) -> tuple[list[dict[str, Any]], int]:
        """A page of a player's finished games, newest first, and how many there are."""
        async with self.engine.connect() as conn:
            total = (await conn.execute(sa.select(sa.func.count()).select_from(results_t)
                                        .where(results_t.c.player_id == player_id))).scalar()
            rows = (await conn.execute(
                sa.select(results_t, games_t.c.overrides, games_t.c.seats)
                .join(games_t, games_t.c.id == results_t.c.game_id)
                .where(results_t.c.player_id == player_id)
                .order_by(results_t.c.finished.desc(), results_t.c.game_id.desc())
                .offset(offset).limit(limit))).all()
        games = []
        for r in rows:
            games.append({"table": r.game_id, "preset": r.preset,
                          "overrides": json.loads(r.overrides), "finished": r.finished,
                          "players": r.players, "seat": r.seat, "place": r.place,
                          "points": r.points, "left": bool(r.left_early),
                          "rating_before": Rating(r.mu_before, r.sigma_before).to_json(),
                          "rating_after": Rating(r.mu_after, r.sigma_after).to_json(),
                          "seats": json.loads(r.seats)})
        return games, int(total or 0)

    async def leaderboard(self, preset: str | None, offset: int, limit: int
                          ) -> tuple[list[dict[str, Any]], int]:
        """Listed players with a rated game, by conservative rating; with ``preset``, those who
        played it (``games``: theirs of it)."""
        conservative = (ratings_t.c.mu - 2 * ratings_t.c.sigma).label("conservative")
        if preset is None:
            games_col: Any = ratings_t.c.games
            query = sa.select(players_t.c.id, players_t.c.name, ratings_t.c.mu,
                              ratings_t.c.sigma, games_col.label("n"), conservative)
            base = query.join(ratings_t, ratings_t.c.player_id == players_t.c.id)
        else:
            counted = (sa.select(results_t.c.player_id, sa.func.count().label("n"))
                       .where(results_t.c.preset == preset)
                       .group_by(results_t.c.player_id).subquery())
            base = (sa.select(players_t.c.id, players_t.c.name, ratings_t.c.mu,
                              ratings_t.c.sigma, counted.c.n, conservative)
                    .join(ratings_t, ratings_t.c.player_id == players_t.c.id)
                    .join(counted, counted.c.player_id == players_t.c.id))
        base = base.where(players_t.c.listed.is_(True), players_t.c.forgotten.is_(None),
                          ratings_t.c.family == FAMILY)
        async with self.engine.connect() as conn:
            total = (await conn.execute(sa.select(sa.func.count())
                                        .select_from(base.subquery()))).scalar()
            rows = (await conn.execute(base.order_by(sa.desc("conservative"), players_t.c.id)
                                       .offset(offset).limit(limit))).all()
        return ([{"rank": offset + i + 1, "id": r.id, "name": r.name,
                  "rating": Rating(r.mu, r.sigma).to_json(), "games": int(r.n)}
                 for i, r in enumerate(rows)], int(total or 0))

    # ---- a finished game -------------------------------------------------------------------
    async def game(self, game_id: str) -> list[dict[str, Any]] | None:
        """A recorded game's standings rows (None: not recorded)."""
        async with self.engine.connect() as conn:
            seats = (await conn.execute(sa.select(games_t.c.seats)
                                        .where(games_t.c.id == game_id))).scalar()
        return None if seats is None else list(json.loads(seats))

    async def rematch_of(self, game_id: str) -> str | None:
        async with self.engine.connect() as conn:
            value = (await conn.execute(sa.select(games_t.c.rematch)
                                        .where(games_t.c.id == game_id))).scalar()
        return None if value is None else str(value)

    async def set_rematch(self, game_id: str, table_id: str) -> str | None:
        """Link a finished game to its rematch table, unless another is linked already: the
        table linked (the first one made wins, whichever server made it); None when the game
        is not recorded."""
        async with self.engine.begin() as conn:
            await conn.execute(games_t.update().where(games_t.c.id == game_id,
                                                      games_t.c.rematch.is_(None))
                               .values(rematch=table_id))
            value = (await conn.execute(sa.select(games_t.c.rematch)
                                        .where(games_t.c.id == game_id))).first()
        return None if value is None else value[0]

    async def record_game(self, game_id: str, preset: str, overrides: dict[str, Any],
                          standings: Sequence[Standing], seats: Sequence[SeatOf]
                          ) -> list[dict[str, Any]]:
        """Write a finished game once: its standings, its players' results, ratings and
        statistics, in one transaction. Returns the standings rows (those written before, if
        the game was recorded already)."""
        for attempt in range(WRITE_ATTEMPTS):
            try:
                if self.postgres:
                    return await self._record(game_id, preset, overrides, standings, seats)
                async with self._sqlite_lock:
                    return await self._record(game_id, preset, overrides, standings, seats)
            except IntegrityError:
                done = await self.game(game_id)
                if done is not None:  # another writer recorded it first
                    return done
                if attempt + 1 == WRITE_ATTEMPTS:
                    raise
            except DBAPIError as e:  # a deadlock or a serialization failure: try again
                if attempt + 1 == WRITE_ATTEMPTS or not _retryable(e):
                    raise
            await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _record(self, game_id: str, preset: str, overrides: dict[str, Any],
                      standings: Sequence[Standing], seats: Sequence[SeatOf]
                      ) -> list[dict[str, Any]]:
        now = time.time()
        async with self.engine.begin() as conn:
            # first: the game's row. Its key makes a second recording fail here, before
            # anything else is written (and on SQLite it takes the write lock at once)
            await conn.execute(games_t.insert().values(
                id=game_id, preset=preset, overrides=json.dumps(overrides), finished=now,
                seats="[]"))
            if self.pause:
                await asyncio.sleep(self.pause)
            players = sorted({s.player for s in seats if s.player is not None})
            gone = await self._forgotten(conn, players)
            if gone:  # a player forgotten during the game is rated as a guest: nothing kept
                seats = [SeatOf(s.kind, s.level, None if s.player in gone else s.player)
                         for s in seats]
                players = [p for p in players if p not in gone]
            before = await self._ratings_for_update(conn, players)
            entries = [entry_for(st.place, who.kind == "bot", who.level,
                                 before[who.player][0] if who.player in before else None)
                       for st, who in zip(standings, seats, strict=True)]
            after = rate(entries)
            rows = []
            for st, who, e, r in zip(standings, seats, entries, after, strict=True):
                rated = (who.kind == "bot" and e.fixed) or who.player is not None
                rows.append({"seat": st.seat, "name": st.name, "kind": who.kind,
                             "level": who.level, "player": who.player, "place": st.place,
                             "points": st.points, "left": st.left,
                             "rating": {"before": e.rating.to_json(), "after": r.to_json(),
                                        "change": r.shown - e.rating.shown}
                             if rated else None})
            await conn.execute(games_t.update().where(games_t.c.id == game_id)
                               .values(seats=json.dumps(rows)))
            for st, who, e, r in zip(standings, seats, entries, after, strict=True):
                if who.player is None:
                    continue
                await conn.execute(results_t.insert().values(
                    game_id=game_id, seat=st.seat, player_id=who.player, preset=preset,
                    finished=now, place=st.place, points=st.points, players=len(standings),
                    left_early=st.left, mu_before=e.rating.mu, sigma_before=e.rating.sigma,
                    mu_after=r.mu, sigma_after=r.sigma))
                games = before.get(who.player, (Rating(), 0))[1]
                if who.player in before:
                    await conn.execute(ratings_t.update().where(
                        ratings_t.c.player_id == who.player, ratings_t.c.family == FAMILY)
                        .values(mu=r.mu, sigma=r.sigma, games=games + 1, updated=now))
                else:
                    await conn.execute(ratings_t.insert().values(
                        player_id=who.player, family=FAMILY, mu=r.mu, sigma=r.sigma, games=1,
                        updated=now))
                await self._add_stats(conn, who.player, preset, st, len(standings))
        return rows

    async def _ratings_for_update(self, conn: AsyncConnection, players: list[str]
                                  ) -> dict[str, tuple[Rating, int]]:
        if not players:
            return {}
        query = (sa.select(ratings_t).where(ratings_t.c.player_id.in_(players),
                                            ratings_t.c.family == FAMILY)
                 .order_by(ratings_t.c.player_id))
        if self.postgres:  # two games of one player ending at once: one waits for the other
            query = query.with_for_update()
        rows = (await conn.execute(query)).all()
        return {r.player_id: (Rating(r.mu, r.sigma), int(r.games)) for r in rows}

    @staticmethod
    async def _forgotten(conn: AsyncConnection, players: list[str]) -> set[str]:
        """Of ``players``, those forgotten (or unknown: no row)."""
        if not players:
            return set()
        known = set((await conn.execute(sa.select(players_t.c.id).where(
            players_t.c.id.in_(players), players_t.c.forgotten.is_(None)))).scalars())
        return set(players) - known

    async def _add_stats(self, conn: AsyncConnection, player_id: str, preset: str,
                         st: Standing, players: int) -> None:
        query = sa.select(stats_t.c.data).where(stats_t.c.player_id == player_id,
                                                stats_t.c.preset == preset)
        if self.postgres:
            query = query.with_for_update()
        data = (await conn.execute(query)).scalar()
        stats = Stats.from_json(json.loads(data)) if data is not None else Stats()
        stats.add(st, players)
        text = json.dumps(stats.to_json())
        if data is None:
            await conn.execute(stats_t.insert().values(player_id=player_id, preset=preset,
                                                       data=text))
        else:
            await conn.execute(stats_t.update().where(stats_t.c.player_id == player_id,
                                                      stats_t.c.preset == preset)
                               .values(data=text))


def _retryable(e: BaseException) -> bool:
    code = getattr(getattr(e, "orig", None), "sqlstate", None)
    return code in ("40P01", "40001") or "database is locked" in str(e)
