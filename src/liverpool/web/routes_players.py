"""Routes of players: making one, recovering and forgetting one, their profile and games, the
leaderboard, and a finished table's rematch.

Domain words: *player*, *key*, *recovery code* (liverpool.web.players), *me* (the player whose
key a request carries), *profile* (what a player's page shows: only what they chose to show,
unless it is theirs), *leaderboard* (listed players by conservative rating, with the bots'
fixed ratings beside them), *rematch* (a new table with the same rules, seats and timers for the
people of a finished one: the first to ask makes it and hosts it, the others are seated in the
seats kept for them; the old table leads to the new).
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request

from ..rules import PRESET_NAMES
from .cluster import HeldElsewhere
from .context import ServerContext, context_of
from .creation import CreateRequest
from .guard import client_of
from .limits import TABLE_ID, ApiError, clean_nickname, secret_text
from .playerstore import Player
from .routes_lobby import make_table, read_body
from .seats import new_secret
from .table import TableOwner

router = APIRouter()

PLAYER_ID_MAX = 40
OFFSET_MAX = 10**9  # (a database refuses an offset past 64 bits: a 500, not a page)


def page_start(offset: int) -> int:
    return max(0, min(offset, OFFSET_MAX))


@router.post("/api/players", status_code=201)
async def new_player(request: Request) -> dict[str, Any]:
    context = context_of(request)
    body = await read_body(request, context.limits)
    player, key = await context.players().create(body.get("name"), client_of(request.scope))
    return {"id": player.id, "key": key, "name": player.name}


@router.get("/api/players/me")
async def me(request: Request) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    player = await people.required(request, client_of(request.scope))
    return await people.profile(player, me=True)


@router.patch("/api/players/me")
async def change_me(request: Request) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    player = await people.required(request, client_of(request.scope))
    body = await read_body(request, context.limits)
    values: dict[str, Any] = {}
    if "name" in body:
        values["name"] = clean_nickname(body["name"], context.limits.nickname_max)
    for flag in ("listed", "public"):
        if flag in body:
            if not isinstance(body[flag], bool):
                raise ApiError(400, "bad_request", f"{flag} must be true or false", flag)
            values[flag] = body[flag]
    unknown = set(body) - {"name", "listed", "public"}
    if unknown:
        field = sorted(unknown)[0][:40]
        raise ApiError(400, "bad_request", f"unknown field {field!r}: a player may change "
                                           f"name, listed and public", field)
    if values:
        await people.db.update(player.id, **values)
    changed = await people.db.get(player.id)
    assert changed is not None
    return await people.profile(changed, me=True)


@router.delete("/api/players/me")
async def forget_me(request: Request) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    player = await people.required(request, client_of(request.scope))
    await people.db.forget(player.id)
    return {"forgotten": True}


@router.post("/api/players/me/recovery")
async def recovery_code(request: Request) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    player = await people.required(request, client_of(request.scope))
    return {"code": await people.new_recovery_code(player)}


@router.post("/api/players/recover")
async def recover(request: Request) -> dict[str, Any]:
    context = context_of(request)
    body = await read_body(request, context.limits)
    player, key = await context.players().recover(body.get("code"), client_of(request.scope))
    return {"id": player.id, "key": key, "name": player.name}


async def _player(context: ServerContext, request: Request, player_id: str
                  ) -> tuple[Player, bool]:
    """The player a path names, and whether the request is theirs."""
    people = context.players()
    if len(player_id) > PLAYER_ID_MAX:
        raise ApiError(404, "not_found", "there is no such player")
    player = await people.db.get(player_id)
    if player is None:
        raise ApiError(404, "not_found", "there is no such player")
    asker = await people.of_request(request, client_of(request.scope))
    return player, asker is not None and asker.id == player.id


@router.get("/api/players/{player_id}")
async def profile(player_id: str, request: Request) -> dict[str, Any]:
    context = context_of(request)
    player, mine = await _player(context, request, player_id)
    return await context.players().profile(player, me=mine)


@router.get("/api/players/{player_id}/games")
async def games(player_id: str, request: Request, offset: int = 0,
                limit: int | None = None) -> dict[str, Any]:
    context = context_of(request)
    player, mine = await _player(context, request, player_id)
    most = context.limits.player_page
    size = most if limit is None else max(1, min(limit, most))
    return await context.players().games(player, mine, page_start(offset), size)


@router.get("/api/ratings")
async def leaderboard(request: Request, preset: str | None = None, offset: int = 0,
                      limit: int | None = None) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    if preset in ("", "all"):
        preset = None
    if preset is not None and preset not in PRESET_NAMES:
        raise ApiError(400, "bad_rules", f"unknown preset; choose one of "
                                         f"{', '.join(PRESET_NAMES)}", "preset")
    most = context.limits.player_page
    size = most if limit is None else max(1, min(limit, most))
    start = page_start(offset)
    rows, total = await people.db.leaderboard(preset, start, size)
    return {"players": rows, "total": total, "offset": start, "limit": size,
            "preset": preset, "bots": people.bots()}


# ---- rematch -------------------------------------------------------------------------------
@router.post("/api/tables/{table_id}/rematch")
async def rematch(table_id: str, request: Request) -> dict[str, Any]:
    context = context_of(request)
    people = context.players()
    client = client_of(request.scope)
    player = await people.of_request(request, client)
    body = await read_body(request, context.limits)
    token = secret_text(body.get("token"))
    await context.rates.check("rematch", client)
    try:
        old = await context.registry.get(table_id) if TABLE_ID.fullmatch(table_id) else None
    except HeldElsewhere:  # a game in play on another server
        raise ApiError(409, "not_over", "a rematch is offered once the game is over") from None
    if old is None:
        raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")
    if old.status != "over":
        raise ApiError(409, "not_over", "a rematch is offered once the game is over")
    seat = old.seat_of(token) if token else None
    if seat is None and player is not None:
        seat = old.seating.seat_of_player(player.id)
    if seat is None:
        raise ApiError(403, "bad_token", "only the people who played this game may ask for "
                                         "its rematch")
    name = old.seating.seats[seat].name or (player.name if player else None) or "Player"
    me = None if player is None else player.id
    linked = await people.db.rematch_of(table_id)
    if linked is None:
        made = await make_table(context, request, _rematch_request(old, seat, name), client, me)
        new_id = made["table"]["id"]
        linked = await people.db.set_rematch(table_id, new_id)
        if linked == new_id:
            old.post(old.note_rematch, new_id)
            return made
        # another person's rematch was linked first: this one closes, and they join that one
        owner = context.registry.owners.get(new_id)
        if owner is not None:
            await context.registry.expire(owner)
        if linked is None:
            raise ApiError(503, "busy", "the rematch could not be linked; try again")
    old.post(old.note_rematch, linked)
    joined: dict[str, Any] = await context.registry.table_op(
        linked, "join", {"nickname": name, "client": client, "player": me,
                         "rematch_of": table_id, "old_seat": seat})
    summary = await context.registry.table_op(linked, "summary", {})
    return {"table": summary, "seat": joined["seat"], "token": joined["token"],
            "join_secret": None, "share_url": None}


def _rematch_request(old: TableOwner, seat: int, name: str) -> CreateRequest:
    """The rematch of a finished table asked by ``seat``: its configuration with a new deal
    and a new secret link, private, the seats turned so that the asker is its host (seat 0)
    and the others keep their order around the table."""
    cfg = dict(old.core.config)
    seats = list(cfg["seats"])
    n = len(seats)
    cfg["seats"] = [seats[(i + seat) % n] for i in range(n)]
    cfg["seed"] = secrets.randbits(48)
    cfg.pop("deals", None)
    cfg["public"] = False
    cfg["join_secret"] = new_secret()
    cfg["rematch_of"] = old.id
    cfg["rematch_seats"] = {str(s): (s - seat) % n for s in range(n)
                            if seats[s].get("kind") == "human" and s != seat}
    return CreateRequest(name, cfg)
