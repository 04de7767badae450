"""Messages between servers through Redis pub/sub.

Domain words: *server channel* (``lv:srv:ID``: every server listens on its own, and nothing
else), *item* (one small JSON object for a server; the items for one server made in one turn of
the event loop go out as one published array), *session* (a random id that changes each time
the broker's subscription is made anew: a peer that sees another session knows its messages
in between were lost), *liveness key* (``lv:alive:ID`` holds the server's session and expires
unless renewed).

Pub/sub delivers only to who is listening at that moment; nothing here is the truth. The
database holds every event, so a lost message costs a reconnect and a resync, never a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("liverpool.web")

ALIVE_TTL = 5  # seconds a server's liveness key lasts without renewal
RETRY_EVERY = 0.5  # seconds between attempts to reach Redis again


async def cancel_all(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel background tasks and wait until each has ended."""
    for t in tasks:
        t.cancel()
    for t in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await t


def channel(server_id: str) -> str:
    return f"lv:srv:{server_id}"


class Broker:
    """One server's link to Redis: publish items to other servers, receive its own."""

    def __init__(self, url: str, server_id: str,
                 on_items: Callable[[list[dict[str, Any]]], None],
                 on_state: Callable[[bool], None] | None = None,
                 on_error: Callable[[], None] | None = None) -> None:
        try:
            import redis.asyncio as aioredis
        except ImportError:
            raise ValueError("--redis needs the redis package: pip install "
                             "'liverpool-rummy[scale]'") from None
        self.url = url
        self.server_id = server_id
        self.session = ""
        self.up = False
        self.errors = 0
        self._on_items = on_items
        self._on_state = on_state
        self._on_error = on_error
        self._redis = aioredis.from_url(url, socket_connect_timeout=2, socket_timeout=5,
                                        health_check_interval=2)
        self._pending: dict[str, list[dict[str, Any]]] = {}
        self._flushing = False
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, wait: float = 5.0) -> None:
        """Subscribe (and keep subscribing after any loss); wait up to ``wait`` seconds for the
        first subscription, so that a server started without Redis says so."""
        self._tasks = [asyncio.create_task(self._listen(), name="broker-listen"),
                       asyncio.create_task(self._keep_alive(), name="broker-alive")]
        loop = asyncio.get_running_loop()
        end = loop.time() + wait
        while not self.up and loop.time() < end:
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        await cancel_all(self._tasks)
        with contextlib.suppress(Exception):
            if self.up:
                await self._redis.delete(f"lv:alive:{self.server_id}")
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    # ------------------------------------------------------------------ sending
    def send(self, server_id: str, item: dict[str, Any]) -> bool:
        """Queue an item for a server; False (and nothing queued) while Redis is away."""
        if not self.up:
            return False
        self._pending.setdefault(server_id, []).append(item)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush_soon)
        return True

    def _flush_soon(self) -> None:
        task = asyncio.create_task(self._flush())
        self._tasks.append(task)
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)

    async def _flush(self) -> None:
        # one flush at a time, in order: two publishes on two pooled connections could
        # overtake each other, and a client's messages must reach its owner in the order sent
        try:
            while self._pending:
                pending, self._pending = self._pending, {}
                try:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for server_id, items in pending.items():
                            pipe.publish(channel(server_id),
                                         json.dumps(items, separators=(",", ":")))
                        await pipe.execute()
                except Exception as e:
                    self._failed(e)
        finally:
            self._flushing = False

    def _failed(self, e: BaseException) -> None:
        self.errors += 1
        if self._on_error is not None:
            self._on_error()
        if self.up:
            log.warning("Redis is unreachable (%s): messages between servers stop until it "
                        "is back", str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
            self._set(False)

    def _set(self, up: bool) -> None:
        if up == self.up:
            return
        self.up = up
        if not up:
            self._pending.clear()
        if self._on_state is not None:
            self._on_state(up)

    # ------------------------------------------------------------------ receiving
    async def _listen(self) -> None:
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel(self.server_id))
                self.session = secrets.token_hex(6)
                await self._redis.set(f"lv:alive:{self.server_id}", self.session, ex=ALIVE_TTL)
                if not self.up:
                    log.info("Redis reached: messages between servers flow")
                self._set(True)
                while True:
                    if not self.up:  # a publish failed: subscribe anew (a new session)
                        raise ConnectionError("the link to Redis was lost")
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None or msg.get("type") != "message":
                        continue
                    try:
                        items = json.loads(msg["data"])
                    except ValueError:
                        continue
                    if isinstance(items, list):
                        self._on_items([i for i in items if isinstance(i, dict)])
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self._failed(e)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8
            await asyncio.sleep(RETRY_EVERY)

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if not self.up:
                continue
            try:
                await self._redis.set(f"lv:alive:{self.server_id}", self.session, ex=ALIVE_TTL)
            except Exception as e:
                self._failed(e)

    async def note_created(self, client: str, table_id: str, keep: float) -> None:
        """Remember (for ``keep`` seconds after the client's last create) that ``client``
        created ``table_id``, and when: the servers count a client's tables together. It is
        noted before the table is made, so that two creates at once on two servers see each
        other."""
        key = f"lv:made:{client}"
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {table_id: time.time()})
            pipe.expire(key, max(1, int(keep)))
            await pipe.execute()

    async def created_by(self, client: str) -> dict[str, float]:
        """The tables ``client`` created that are still remembered, with when each was
        noted."""
        got = await self._redis.zrange(f"lv:made:{client}", 0, -1, withscores=True)
        out: dict[str, float] = {}
        for item in got:
            assert isinstance(item, tuple | list)
            i, t = item
            out[i.decode() if isinstance(i, bytes) else str(i)] = float(t)
        return out

    async def forget_created(self, client: str, table_ids: list[str]) -> None:
        if table_ids:
            await self._redis.zrem(f"lv:made:{client}", *table_ids)

    async def sessions(self, server_ids: list[str]) -> dict[str, str | None]:
        """Each server's current session (None: gone, or its Redis link is down)."""
        if not server_ids:
            return {}
        values = await self._redis.mget([f"lv:alive:{s}" for s in server_ids])
        return {s: (v.decode() if isinstance(v, bytes) else v)
                for s, v in zip(server_ids, values, strict=True)}
