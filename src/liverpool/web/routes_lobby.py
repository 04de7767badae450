"""Routes of the lobby: the server's configuration for the lobby page, creating a table, the list
of public tables, and a person joining, starting or leaving a table before its game.

Domain words: *lobby* (everything before a game starts, over HTTP), *create* (``POST
/api/tables``: its checks are ``creation``'s), *host* (who created a table: seat 0, holding its
token), *join secret* (what lets a friend into a private table), *lobby page* (a page of the
public tables open or playing, newest first), *lobby request* (join, start, remove: carried out
by the table's owner, here or on the server that owns it, ``Registry.table_op``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from importlib import metadata
from typing import Any

from fastapi import APIRouter, Request
from starlette.requests import HTTPConnection

from ..bots import LADDER, LEVELS
from ..rules import PRESET_NAMES, PRESETS, RuleSet
from ..rulestext import CLOCKS, PRESET_LINES, TOPICS, knob_form
from .cluster import HeldElsewhere
from .context import ServerContext, context_of
from .creation import CreateRequest, check_startable, parse_create, web_form
from .guard import client_of
from .limits import TABLE_ID, ApiError, Limits, clean_nickname, json_depth_ok, secret_text
from .table import TableOwner

log = logging.getLogger("liverpool.web")

router = APIRouter()


@router.get("/api/config")
async def config(request: Request) -> dict[str, Any]:
    context = context_of(request)
    return {"presets": {name: PRESETS[name].to_json() for name in PRESET_NAMES},
            # words for people: a line per preset, each knob's topic, label and control (how
            # the form sets it, held to this server's bounds), the table clocks' labels and help
            "preset_lines": dict(PRESET_LINES),
            "knobs": [{key: row[key] for key in ("knob", "topic", "label", "control")}
                      for row in web_form(knob_form(RuleSet()))],
            "topics": list(TOPICS),
            "clocks": {key: {"label": label, "help": help_line}
                       for key, (label, help_line) in CLOCKS.items()},
            "levels": [*LEVELS, *context.bot_commands], "limits": context.limits.public(),
            # the ladder in words: each level's title and line (its rating: /api/ratings)
            "ladder": [{"level": lv.name, "title": lv.title, "about": lv.about,
                        "alias": lv.alias} for lv in LADDER],
            "version": _package_version()}


@router.post("/api/tables", status_code=201)
async def create_table(request: Request) -> dict[str, Any]:
    context = context_of(request)
    client = client_of(request.scope)
    player = await context.player_of(request, client)
    body = await read_body(request, context.limits)
    if player is not None and body.get("nickname") in (None, "") and player.name:
        body["nickname"] = player.name  # a player's name is remembered
    create = parse_create(body, context.limits, context.bot_commands,
                          allow_seed=context.allow_seed)
    # the limits are counted last: a refused request costs the client nothing
    await context.rates.check("create", client)
    return await make_table(context, request, create, client,
                            None if player is None else player.id)


async def make_table(context: ServerContext, conn: HTTPConnection, create: CreateRequest,
                     client: str, player: str | None) -> dict[str, Any]:
    """Make a table (its host in seat 0) within the server's places: a create, or a
    rematch's; the create's answer."""
    registry = context.registry
    table_id = await registry.new_id()
    async with registry.capacity.admit(client, table_id, registry.expire) as marks:
        # the game must be creatable now, not fail at the start (off the event loop)
        await asyncio.to_thread(check_startable, create)
        owner, token = await TableOwner.create(context.store, context.settings, table_id,
                                               create.config, create.host_name, *marks,
                                               player=player)
        registry.add(owner)
    return {"table": owner.summary(), "seat": 0, "token": token,
            "join_secret": owner.join_secret,
            "share_url": owner.share_url(context.link_base(conn))}


@router.get("/api/tables")
async def list_tables(request: Request, offset: int = 0,
                      limit: int | None = None) -> dict[str, Any]:
    """Public tables open or playing, newest first, a page at a time."""
    context = context_of(request)
    registry = context.registry
    most = context.limits.lobby_page
    size = most if limit is None else max(1, min(limit, most))
    start = max(0, offset)
    if registry.cluster is not None:  # every server's tables, from the database
        return await registry.cluster.lobby(start, size)
    owners = [o for o in registry.owners.values()
              if o.public and o.status in ("open", "playing")]
    owners.sort(key=lambda o: o.created, reverse=True)
    page: list[dict[str, Any]] = []
    for o in owners[start:start + size]:
        try:  # one table that cannot be shown never breaks the list
            summary = o.summary(full=False)
            json.dumps(summary, ensure_ascii=False).encode("utf-8")
            page.append(summary)
        except Exception:
            log.exception("table %s cannot be listed", o.id)
    return {"tables": page, "total": len(owners), "offset": start, "limit": size}


@router.post("/api/tables/{table_id}/join")
async def join(table_id: str, request: Request) -> dict[str, Any]:
    context = context_of(request)
    await _known(context, table_id)
    client = client_of(request.scope)
    player = await context.player_of(request, client)
    body = await read_body(request, context.limits)
    if player is not None and body.get("nickname") in (None, "") and player.name:
        body["nickname"] = player.name
    nickname = clean_nickname(body.get("nickname"), context.limits.nickname_max)
    secret = secret_text(body.get("secret"))
    await context.rates.check("join", client)
    result: dict[str, Any] = await context.registry.table_op(
        table_id, "join", {"nickname": nickname, "secret": secret, "client": client,
                           "player": None if player is None else player.id})
    return result


@router.post("/api/tables/{table_id}/start")
async def start(table_id: str, request: Request) -> dict[str, Any]:
    context = context_of(request)
    await _known(context, table_id)
    token = secret_text((await read_body(request, context.limits)).get("token"))
    if token is None:
        raise ApiError(403, "bad_token", "the host's token is needed to start", "token")
    await context.rates.check("start", client_of(request.scope))
    result: dict[str, Any] = await context.registry.table_op(table_id, "start",
                                                             {"token": token})
    return result


@router.post("/api/tables/{table_id}/remove")
async def remove(table_id: str, request: Request) -> dict[str, Any]:
    context = context_of(request)
    await _known(context, table_id)
    body = await read_body(request, context.limits)
    token = secret_text(body.get("token"))
    if token is None:
        raise ApiError(403, "bad_token", "a seat's token is needed", "token")
    seat = body.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 8:
        raise ApiError(400, "bad_request", "seat must be a seat number", "seat")
    await context.rates.check("start", client_of(request.scope))
    result: dict[str, Any] = await context.registry.table_op(
        table_id, "remove", {"token": token, "seat": seat})
    return result


async def _known(context: ServerContext, table_id: str) -> None:
    """Refuse a request for a table that does not exist before reading its body (the table is
    found again, here or on its server, when the request is carried out)."""
    with contextlib.suppress(HeldElsewhere):
        if not TABLE_ID.fullmatch(table_id) or await context.registry.get(table_id) is None:
            raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")


async def read_body(request: Request, limits: Limits) -> dict[str, Any]:
    """The request's JSON object, read within the limits: a declared size over the limit was
    refused by the guard; an undeclared one is cut off as it comes; a body that trickles in
    is given up after ``body_timeout``."""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(limits.body_timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.max_body:
                    raise ApiError(413, "too_large",
                                   f"a request body has at most {limits.max_body} bytes")
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(408, "slow_body", f"the request body did not arrive within "
                                         f"{limits.body_timeout:g} s") from None
    raw = b"".join(chunks)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError) as e:  # also numbers of over 4,300 digits
        raise ApiError(400, "bad_json", f"the body is not JSON: {str(e)[:200]}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    if not json_depth_ok(body):
        raise ApiError(400, "bad_json", "the body nests lists and objects too deep")
    return body


def _package_version() -> str:
    try:
        return metadata.version("liverpool-rummy")
    except metadata.PackageNotFoundError:
        return "0"
