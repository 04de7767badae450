"""One table of the web server and its owner: the single asyncio task that changes it.

Domain words: *table* (a lobby, then a game), *seat* (human or bot; a human seat has a secret
*token*, stored hashed), *connection* (one websocket client, at a seat or spectating). The lobby
over HTTP (create, join, leave, start) and the websocket messages (hello, action, intent, hint)
are here; what they change is built below, one way: the seats and connections
(liverpool.web.seats), the table's state and what each seat is shown
(liverpool.web.tablestate), the game driven by stored events, bots and timers
(liverpool.web.tableplay).

Every change goes through the owner's queue, one at a time, so game state needs no locks.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from typing import Any

from ..actions import Action, ActionFormatError
from ..bots import hint
from ..engine import Game, IllegalActionError, Phase
from ..outofturn import kind_now
from ..rules import RuleSet
from .limits import ApiError, secret_text
from .seats import Conn, Held, Settings, client_mark, dumps, hash_token, new_secret, new_token
from .store import Store, StoredEvent, StoredTable, StoreError
from .tableplay import TablePlay

log = logging.getLogger("liverpool.web")

# changes of one seat's request (asked, withdrawn) for one discard: each is told to everyone
MAX_INTENT_CHANGES = 4

__all__ = ["TableOwner", "handle"]


class TableOwner(TablePlay):
    """The one sequential owner of a table."""

    # ================================================================ lobby (HTTP) ==========
    @staticmethod
    async def create(store: Store, settings: Settings, table_id: str, config: dict[str, Any],
                     host_name: str, creator: str | None = None, network: str | None = None
                     ) -> tuple[TableOwner, str]:
        """A new table, stored; ``creator`` and ``network``: the marks of the creating
        address and of its network (capacity.py counts by them)."""
        token = new_token()
        data = {"seat": 0, "name": host_name, "token_hash": hash_token(token)}
        if creator is not None:
            data.update(client=creator, network=network)
        stored = StoredTable(table_id, time.time(), "open", config,
                             [StoredEvent(0, "create", data)])
        await store.create_table(stored)
        owner = TableOwner(stored, store, settings)
        owner.held.append(Held(0, "lobby", table=owner.summary()))
        return owner, token

    @staticmethod
    def check_config(config: dict[str, Any]) -> None:
        """Raise ``ValueError`` if a game could not be started from this configuration."""
        rules = RuleSet.preset(config["rules"], config["overrides"])
        deals = config.get("deals")
        parsed = None
        if deals is not None:
            if not isinstance(deals, list) or not all(isinstance(d, list) for d in deals):
                raise ValueError("deals must be a list of whole packs (lists of cards)")
            from ..cards import parse_card
            parsed = [[parse_card(c) for c in deck] for deck in deals]
        Game(rules, len(config["seats"]), seed=config["seed"], deals=parsed)

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats if s.name}
        if name not in taken:
            return name
        k = 2
        while f"{name} ({k})" in taken:
            k += 1
        return f"{name} ({k})"

    def share_url(self, base: str) -> str:
        """The link that lets a friend join (the secret after ``#``: browsers never send it)."""
        tail = f"#join={self.join_secret}" if self.join_secret and not self.public else ""
        return f"{base}/t/{self.id}{tail}"

    def _check_open(self) -> None:
        if self.status == "expired":
            raise ApiError(410, "expired", "this table was not started in time and has closed")
        if self.status != "open":
            raise ApiError(409, "started", "the game has already started")

    async def join(self, nickname: str, secret: str | None = None,
                   client: str | None = None) -> dict[str, Any]:
        """A person takes the first free seat (``client``: their address, by ``client_of``)."""
        self._check_open()
        if not self.public and not (secret is not None and self.join_secret is not None
                                    and hmac.compare_digest(secret, self.join_secret)):
            raise ApiError(403, "bad_secret", "this table is private: join it with the link "
                                              "the host shared")
        mark = None if client is None else client_mark(client)
        if mark is not None and mark in self.removed:
            raise ApiError(403, "removed", "the host removed you from this table")
        free = [s for s in self.seats if s.kind == "human" and s.name is None]
        if not free:
            raise ApiError(409, "full", "every human seat is taken")
        s = free[0]
        token = new_token()
        name = self._unique_name(nickname)
        data = {"seat": s.seat, "name": name, "token_hash": hash_token(token)}
        if mark is not None:
            data["client"] = mark
        ev = StoredEvent(self.version + 1, "join", data)
        await self.store.append(self.id, ev)
        self._replay_event(ev)
        self.held.append(Held(self.version, "lobby", table=self.summary()))
        self._broadcast_lobby()
        return {"seat": s.seat, "token": token}

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                return s.seat
        return None

    async def remove(self, token: str, seat: int) -> dict[str, Any]:
        """Before the start: the host removes another player, or a player leaves. The seat is
        free again and the token it had no longer works."""
        who = self.seat_of(token)
        if who is None:
            raise ApiError(403, "bad_token", "this token holds no seat at this table")
        self._check_open()
        if who != 0 and who != seat:
            raise ApiError(403, "bad_token", "only the host may remove another player")
        if seat == 0:
            raise ApiError(400, "bad_request", "the host cannot leave the table before the "
                                               "start", "seat")
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind != "human" \
                or self.seats[seat].name is None:
            raise ApiError(409, "not_taken", f"seat {seat} holds no player", "seat")
        data: dict[str, Any] = {"seat": seat}
        if who != seat:
            # a removed player stays out: a private table's link changes (the old secret,
            # which the removed player's own welcome carried, opens nothing), and a public
            # table, which anybody may join, refuses the address they joined from
            data["removed"] = True
            if self.public:
                if self.seats[seat].client is not None:
                    data["banned"] = self.seats[seat].client
            else:
                data["join_secret"] = new_secret()
        ev = StoredEvent(self.version + 1, "leave", data)
        await self.store.append(self.id, ev)
        gone = list(self.seats[seat].conns)
        self._replay_event(ev)
        for c in gone:
            c.error("removed", "you left the table" if who == seat
                    else "the host removed you from the table")
            self._detach(c)
            c.close(4001, "removed")
        self.seats[seat].conns.clear()
        self.held.append(Held(self.version, "lobby", table=self.summary()))
        self._broadcast_lobby()
        if "join_secret" in data:  # the players still seated get the new link
            for c in self.conns:
                if c.seat is not None:
                    c.send({"type": "share", "join_secret": self.join_secret,
                            "share_url": self.share_url(c.link_base)})
        return self.summary()

    async def expire(self) -> bool:
        """A table nobody started in time closes; True if it did."""
        if self.status != "open":
            return False
        try:
            await self.store.set_status(self.id, "expired")
        except StoreError as e:
            log.warning("table %s: could not expire: %s", self.id, e)
            return False
        self.status = "expired"
        self._broadcast_lobby()
        for c in list(self.conns):
            c.close(4410, "expired")
        return True

    async def start_game(self, token: str) -> dict[str, Any]:
        if self.seat_of(token) != 0:
            raise ApiError(403, "bad_token", "only the host (seat 1, who created the table) "
                                             "may start the game")
        self._check_open()
        bots = {str(s.seat): "basic" for s in self.seats if s.kind == "human" and s.name is None}
        game = await asyncio.to_thread(self._new_game, bots)  # never a deal on the event loop
        made = await asyncio.to_thread(self._make_bots, bots)  # the bots exist before the start
        ev = StoredEvent(self.version + 1, "start", {"bots": bots})
        await self.store.append(self.id, ev, status="playing")
        self._do_start(ev.data, game, made)
        self.version = ev.version
        self.held.append(Held(self.version, "start"))
        for s in self.seats:
            if s.kind == "human" and not s.conns:
                self._start_grace(s)
        if not self.conns:
            self.unwatched_since = time.time()
        await self._bot_events("game_start", "hand_start")
        self._broadcast_lobby()
        self._schedule()  # the clocks run from the deal: the syncs carry them
        self._broadcast(self._sync_msg)
        await self._drive()
        return self.summary()

    # ================================================================ websocket messages =====
    async def on_hello(self, conn: Conn, token: str | None, version: int) -> None:
        seat: int | None = None
        if token is not None:
            seat = self.seat_of(token)
            if seat is None:
                conn.error("bad_token", "this token holds no seat at this table")
                return
        if conn.hello and conn.seat == seat:
            # the same socket, the same seat: it was sent every change since its first hello,
            # so it gets no second welcome, and asking again for the whole state costs at most
            # one sync a version
            self._catch_up(conn, version, again=True)
            return
        left = None
        if conn.hello and self._detach(conn):
            left = conn.seat  # the socket sat elsewhere: that seat may have nobody now
        conn.seat, conn.hello = seat, True
        self.conns.add(conn)
        self.unwatched_since = None
        woke = self.asleep
        self.asleep = False
        changed = False
        if seat is not None:
            s = self.seats[seat]
            if not s.conns:
                changed = True
            s.conns.add(conn)
            self.unattended_since = None
            if s.grace is not None:
                s.grace.cancel()
                s.grace = None
            if s.covered:
                s.covered = False
                changed = True
        secret = None if seat is None else self.join_secret
        conn.send({"type": "welcome", "seat": seat, "table": self.summary(),
                   "join_secret": secret,
                   "share_url": None if seat is None else self.share_url(conn.link_base)})
        conn.synced = None
        self._catch_up(conn, version)
        if any(self._announced()):
            conn.send(self._requests_msg(conn.seat))
        if left is not None:
            await self._let_go(left)  # as a closed socket: its grace runs, everyone is told
        elif changed:
            self._broadcast_lobby(skip=conn)
        if changed or left is not None or woke:
            await self._drive()

    def _catch_up(self, conn: Conn, version: int, again: bool = False) -> None:
        """Send what the client missed since ``version``; ``again``: a repeated hello on the
        same socket, answered with a sync at most once a version."""
        if version == self.version:
            return
        missed = [h for h in self.held if h.version > version]
        whole = (0 <= version < self.version and len(missed) == self.version - version
                 and not any(h.kind == "start" for h in missed))
        if not whole:
            if again:
                if conn.synced == self.version:
                    return  # it was sent this version's state already
                conn.synced = self.version
            conn.send(self._sync_msg(conn.seat))
            return
        last_action = max((i for i, h in enumerate(missed) if h.kind == "action"), default=-1)
        for i, h in enumerate(missed):
            if h.kind == "lobby":
                conn.send({"type": "lobby", "version": h.version, "table": h.table})
                continue
            assert h.event is not None
            msg: dict[str, Any] = {"type": "update", "version": h.version,
                                   "event": self._event_for(conn.seat, h.event)}
            if i == last_action:
                msg.update(self._state(conn.seat))
            else:
                msg.update({"view": None, "legal": [], "intents": [], "deadline": None,
                            "pause": None})
            conn.send(msg)

    def _detach(self, conn: Conn) -> bool:
        """Forget a connection; True if its seat has no connection left."""
        self.conns.discard(conn)
        if not self.conns and self.status == "playing" and self.unwatched_since is None:
            self.unwatched_since = time.time()
        if conn.seat is None:
            return False
        s = self.seats[conn.seat]
        s.conns.discard(conn)
        if not any(seat.conns for seat in self.seats) and self.unattended_since is None:
            self.unattended_since = time.time()
        return not s.conns

    async def on_close(self, conn: Conn) -> None:
        if not conn.hello:
            return
        conn.hello = False
        if self._detach(conn) and conn.seat is not None:
            await self._let_go(conn.seat)

    async def _let_go(self, seat: int) -> None:
        """The last connection of ``seat`` has gone (closed, or said hello for another seat):
        its grace time runs (then the basic bot covers it), and everyone is told."""
        s = self.seats[seat]
        if self.status == "playing" and s.kind == "human":
            self._start_grace(s)
        self._broadcast_lobby()
        # a pause ends when the people still here are all ready; one whose last person
        # has gone runs out on its own clock (a reload comes back to the end-of-hand screen)
        if self.paused and self._awaited_people() and not self._awaited():
            await self.end_pause()

    def _check_player(self, conn: Conn) -> int | None:
        """The seat a connection may act for, or None after sending the reason."""
        if not conn.hello:
            conn.error("no_hello", "send hello first")
            return None
        if conn.seat is None:
            conn.error("spectator", "spectators cannot act; join the table to play")
            return None
        if self.game is None:
            conn.error("not_started", "the game has not started yet")
            return None
        if self.game.over:
            conn.error("game_over", "the game is over")
            return None
        return conn.seat

    async def on_action(self, conn: Conn, version: int, obj: dict[str, Any],
                        received: float | None = None) -> None:
        """A player's action message (``received``: ``time.perf_counter()`` when it arrived,
        for the latency metric)."""
        seat = self._check_player(conn)
        if seat is None:
            return
        g = self.game
        assert g is not None
        if "player" not in obj:
            obj = {**obj, "player": seat}
        try:
            a = Action.from_json(obj)
        except ActionFormatError as e:
            conn.error("bad_message", f"not an action: {str(e)[:200]}")
            return
        if a.player != seat:
            conn.error("bad_token", f"your token is for seat {seat}, not seat {a.player}")
            return
        if version != self.version:
            conn.error("stale_version", f"the table is at version {self.version}, not "
                                        f"{version}: update first")
            return
        if seat != self.decision_seat():
            who = self.decision_seat()
            waiting = g.players[who] if who is not None else "the table"
            conn.error("not_your_turn", f"it is not your move: waiting for {waiting}")
            return
        if self.paused:  # a person who plays on is done looking at the last hand
            await self.on_ready_seat(seat)
            if self.paused:
                conn.error("paused", "the table waits for everyone to be ready for the next "
                                     "hand")
                return
        if a.type in ("go_down", "borrow"):  # people pick cards, the core puts them in order
            _, board = self._legal_for(seat)
            if board is not None:
                a = board.arranged(a)
        try:
            if g.phase is Phase.CALL:
                # checked on the table as it will be once the window closes, so that an illegal
                # move leaves the window open; then the window is settled first
                _, board = self._legal_for(seat)
                assert board is not None
                reason = board.why_illegal(a)
                if reason is not None:
                    conn.error("illegal", reason)
                    return
                await self._close_window()
                called = self.decision_seat() != seat
                if not called:
                    try:
                        await self._commit(a)
                        self._played(received)
                    except IllegalActionError:  # a call changed the table under the move
                        called = True
                if called:
                    conn.error("not_your_turn", "a call was made first; nothing was played "
                                                "for you")
                await self._drive()
                return
            await self._commit(a)
            self._played(received)
        except IllegalActionError as e:
            conn.error("illegal", str(e))
            return
        except StoreError as e:
            # the database's own words stay in the log: they may quote other tables' rows
            log.warning("table %s: %s", self.id, e)
            conn.error("storage", "the database did not store your move, so it was not "
                                  "played; try again")
            self._schedule()
            return
        await self._drive()

    async def on_intent(self, conn: Conn, kind: str, on: bool) -> None:
        seat = self._check_player(conn)
        if seat is None:
            return
        g = self.game
        assert g is not None
        before = self._announced()
        asked = seat in self.requests.seats("buy" if kind == "buy" else "call")
        changes = self._intent_changes.at(self.version)
        if on != asked and kind in self.intents_for(seat) \
                and changes.get(seat, 0) >= MAX_INTENT_CHANGES:
            # a person may change their mind, not flip a request on and off for ever: every
            # change is told to the whole table
            conn.error("too_many_changes", f"you changed your request {MAX_INTENT_CHANGES} "
                                           f"times for this card: it stays as it is")
            return
        if on:
            if kind not in self.intents_for(seat):
                what = "buy the discard" if kind == "buy" else "call the discard"
                why = ("the time to ask has run out" if self._window_closed_at == self.version
                       else g.why_no_request(seat) if kind == kind_now(g)
                       else f"there is no discard to {kind} now")
                conn.error("illegal", f"you cannot ask to {what} now: {why or 'not now'}")
                return
            if seat not in self.requests.seats("buy" if kind == "buy" else "call"):
                self.requests.ask(g, seat)
        elif seat in self.requests.seats("buy" if kind == "buy" else "call"):
            self.requests.withdraw(g, seat)
        elif kind in self.intents_for(seat):
            # "no thanks" from a person who had not asked: a bot need not wait for them
            self.requests.answer(g, seat, Action("pass", seat))
        if self._announced() != before:
            changes[seat] = changes.get(seat, 0) + 1
            self._broadcast(self._requests_msg)
        await self._drive()  # a window that waited for this person's word may close now

    async def on_ready(self, conn: Conn) -> None:
        """A person is ready for the next hand (the end-of-hand screen's button)."""
        seat = self._check_player(conn)
        if seat is not None:
            await self.on_ready_seat(seat)

    async def on_hint(self, conn: Conn) -> None:
        seat = self._check_player(conn)
        if seat is None:
            return
        legal, board = self._legal_for(seat)
        if not legal or board is None:
            conn.error("not_your_turn", "no decision is waiting for you")
            return
        # worked out once a version and seat: a client repeating its request (20 a second
        # over many sockets) would otherwise queue that much work in the bots' pool
        version = self.version
        known = self._hints.at(version)
        got = known.get(seat)
        if got is None:
            # kept in this version's dict: if the table moved on meanwhile, nobody reads it
            got = known[seat] = await self._think(None, hint, board.view_for(seat), legal)
        action, reason = got
        conn.send({"type": "hint", "version": version, "action": action.to_json(),
                   "reason": reason})

    # ================================================================ metrics (ops.py) ======
    def _played(self, received: float | None) -> None:
        if self.settings.metrics is not None:
            self.settings.metrics.action_done(received)

    async def _commit(self, a: Action, *args: Any, **kwargs: Any) -> None:
        await super()._commit(a, *args, **kwargs)
        if self.settings.metrics is not None:
            self.settings.metrics.action()

    async def _choose(self, seat: int, *args: Any, **kwargs: Any) -> Action:
        t0 = time.perf_counter()
        a = await super()._choose(seat, *args, **kwargs)
        if self.settings.metrics is not None:
            self.settings.metrics.bot_decision(time.perf_counter() - t0)
        return a

def handle(conn: Conn, owner: TableOwner, text: str) -> None:
    """Check one client message's form; pass it to the table's owner."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:  # also numbers of over 4,300 digits
        conn.error("bad_json", f"the message is not JSON: {str(e)[:200]}")
        return
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        conn.error("bad_message", "a message is a JSON object with a \"type\"")
        return
    kind = obj["type"]
    if kind == "ping":
        conn.send_text(dumps({"type": "pong"}))
    elif kind == "hello":
        token, version = obj.get("token"), obj.get("version", -1)
        if token is not None and secret_text(token) is None:
            conn.error("bad_message", "hello: token must be a short string or null")
        elif isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "hello: version must be a whole number (-1: none)")
        else:
            conn.hello_sent = True
            owner.post(owner.on_hello, conn, token, version)
    elif kind == "action":
        version, action = obj.get("version"), obj.get("action")
        if isinstance(version, bool) or not isinstance(version, int):
            conn.error("bad_message", "action: version must be the table's current version")
        elif not isinstance(action, dict):
            conn.error("bad_message", "action: \"action\" must be an action object")
        else:
            owner.post(owner.on_action, conn, version, action, time.perf_counter())
    elif kind == "intent":
        what, on = obj.get("kind"), obj.get("on")
        if what not in ("buy", "call") or not isinstance(on, bool):
            conn.error("bad_message", "intent: kind must be \"buy\" or \"call\" and on a "
                                      "boolean")
        else:
            owner.post(owner.on_intent, conn, what, on)
    elif kind == "hint":
        owner.post(owner.on_hint, conn)
    elif kind == "ready":
        owner.post(owner.on_ready, conn)
    else:
        conn.error("bad_message", f"unknown message type {kind[:40]!r}")
