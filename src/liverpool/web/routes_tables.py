"""Routes of one table: its summary, its record and replay once the game is over, and its
websocket, served here or relayed to the server that owns the table.

Domain words: *owner* (the table's ``TableOwner``, here or on another server), *record* (the
finished game as stored: rules, players, seed, actions), *replay* (the record turned into the
steps a replay page shows, built once and kept for the last few tables), *connection* (one
websocket client, ``Conn``: a sender task writes what the table queues for it), *message* (one
JSON object on the websocket, ``docs/web-protocol.md``), *hello* (a client's first message: a
socket that never says it is closed), *relay* (a client of a table another server owns: its
messages go there through the cluster, the answers come back).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import Response
from starlette.websockets import WebSocketDisconnect

from .cluster import BROKER_DOWN, HeldElsewhere
from .context import ServerContext, context_of
from .guard import client_mark, client_of, network_key
from .limits import TABLE_ID, ApiError, RateLimiter
from .seats import Conn
from .table import TableOwner, handle

router = APIRouter()


@router.get("/api/tables/{table_id}")
async def get_table(table_id: str, request: Request) -> dict[str, Any]:
    result: dict[str, Any] = await context_of(request).registry.table_op(table_id, "summary", {})
    return result


@router.get("/api/tables/{table_id}/record")
async def record(table_id: str, request: Request) -> dict[str, Any]:
    owner = await table_owner(context_of(request), table_id)
    if owner.status != "over":
        raise ApiError(403, "not_over", "the record is shown once the game is over")
    return owner.record()


@router.get("/api/tables/{table_id}/replay")
async def replay(table_id: str, request: Request) -> Response:
    context = context_of(request)
    owner = await table_owner(context, table_id)
    if owner.status != "over":
        raise ApiError(403, "not_over", "the replay is shown once the game is over")
    if not context.registry.replay_kept(owner):  # building one costs; a kept one does not
        await context.rates.check("replay", client_of(request.scope))
    plain, packed = await context.registry.replay(owner)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(packed, media_type="application/json",
                        headers={"content-encoding": "gzip", "vary": "accept-encoding"})
    return Response(plain, media_type="application/json", headers={"vary": "accept-encoding"})


async def table_owner(context: ServerContext, table_id: str) -> TableOwner:
    """A table's owner as its record, replay and reviews are found: loaded on any server; 404
    when there is none, 403 ``not_over`` while it is held elsewhere (so still in play)."""
    try:
        owner = await context.registry.get(table_id) if TABLE_ID.fullmatch(table_id) else None
    except HeldElsewhere:  # so it is still in play
        raise ApiError(403, "not_over", "the game is not over yet") from None
    if owner is None:
        raise ApiError(404, "not_found", f"there is no table {table_id[:40]!r}")
    return owner


@router.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    context = context_of(ws)
    registry, limits = context.registry, context.limits
    client = client_of(ws.scope)
    net = network_key(client)
    counts = ((registry.sockets, client), (registry.network_sockets, net))
    if registry.sockets.get(client, 0) >= limits.sockets_per_client:
        await ws.close(code=4429, reason="too many connections from one address")
        return
    if registry.network_sockets.get(net, 0) >= limits.sockets_per_network:
        await ws.close(code=4429, reason="too many connections from one network")
        return
    for count, key in counts:
        count[key] = count.get(key, 0) + 1
    try:
        await _serve_socket(context, ws, table_id)
    finally:
        for count, key in counts:
            left = count.get(key, 1) - 1
            if left > 0:
                count[key] = left
            else:
                count.pop(key, None)


async def _serve_socket(context: ServerContext, ws: WebSocket, table_id: str) -> None:
    try:
        owner = await context.registry.get(table_id) if TABLE_ID.fullmatch(table_id) else None
    except ApiError as e:
        await ws.accept()
        await ws.close(code=4000 + e.status, reason=e.code)
        return
    except HeldElsewhere as e:
        await _relay_socket(context, ws, table_id, e.server)
        return
    if owner is None:
        await ws.accept()
        await ws.close(code=4404, reason="no such table")
        return
    owner.sockets += 1  # at once (no await since get): the owner is not evicted under us
    try:
        await ws.accept()
        conn = Conn(context.limits, context.link_base(ws))
        conn.client = client_mark(client_of(ws.scope))  # (a spectator's chat is counted by it)
        sender = asyncio.create_task(_send_loop(ws, conn))
        try:
            await _receive_loop(ws, conn, lambda text: handle(conn, owner, text), context.rates)
        finally:
            conn.close()
            owner.post(owner.on_close, conn)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 1.0)
            if not sender.done():
                sender.cancel()
    finally:
        owner.detach_socket()


async def _relay_socket(context: ServerContext, ws: WebSocket, table_id: str,
                        server: str) -> None:
    """A client of a table another server owns: its messages go there, the answers come
    back (the owner checks them; this server counts and bounds them, as for its own)."""
    await ws.accept()
    conn = Conn(context.limits, context.link_base(ws))
    sender = asyncio.create_task(_send_loop(ws, conn))
    cluster = context.registry.cluster
    proxy = None if cluster is None else cluster.open_proxy(conn, table_id, server)
    if cluster is None or proxy is None:
        conn.error("broker", "this table is served by another server that this one "
                             "cannot reach now; reconnecting")
        conn.close(BROKER_DOWN, "link between servers lost")
    else:
        def relay(text: str) -> None:
            if not conn.hello_sent:  # the hello's deadline is kept here
                conn.hello_sent = _is_hello(text)
            cluster.relay(proxy, text)
        try:
            await _receive_loop(ws, conn, relay, context.rates)
        finally:
            conn.close()
            cluster.close_proxy(proxy)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(sender, 1.0)
    if not sender.done():
        sender.cancel()


def _is_hello(text: str) -> bool:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("type") == "hello"


async def _send_loop(ws: WebSocket, conn: Conn) -> None:
    loop = asyncio.get_running_loop()
    out = conn.out
    try:
        while True:
            while not out:
                await conn.wait(loop)
            text = out.popleft()
            if text is None:
                break
            await ws.send_text(text)
            conn.sent(text)
    except Exception:  # the socket is gone; the receiver ends too
        conn.closed = True
        return
    if conn.close_code != 1000:  # dropped by the server: too slow, removed, expired...
        with contextlib.suppress(Exception):
            await ws.close(code=conn.close_code, reason=conn.close_reason)


async def _receive_loop(ws: WebSocket, conn: Conn, deliver: Callable[[str], None],
                        rates: RateLimiter) -> None:
    limits = conn.limits
    key = f"{id(conn)}"
    refused = 0
    hello_by = time.monotonic() + limits.hello_timeout
    while not conn.closed:
        try:
            if conn.hello_sent:
                msg = await ws.receive()
            else:  # a socket that never says hello holds a connection for nothing
                msg = await asyncio.wait_for(ws.receive(), max(0.0, hello_by - time.monotonic()))
        except TimeoutError:
            conn.close(1008, "no hello")
            return
        except (WebSocketDisconnect, RuntimeError):
            return
        if msg["type"] == "websocket.disconnect":
            return
        if not rates.hit("message", key):
            refused += 1
            if refused >= limits.message_flood:
                conn.close(1008, "too many messages")
                return
            if refused == 1:
                conn.error("rate_limited", f"too many messages: at most {limits.message_rate}; "
                                           f"this one was ignored")
            continue
        refused = 0
        text = msg.get("text")
        if text is None:
            data = msg.get("bytes") or b""
            if len(data) > limits.max_message:
                conn.error("too_large", f"a message has at most {limits.max_message} bytes")
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                conn.error("bad_json", "a message must be UTF-8 JSON text")
                continue
        if len(text) > limits.max_message // 4 and len(text.encode("utf-8", "replace")) > \
                limits.max_message:
            conn.error("too_large", f"a message has at most {limits.max_message} bytes")
            continue
        deliver(text)
