"""What the web server allows a client: every limit, the checks of client text and bot levels,
and the rate limiter (``docs/security.md`` lists them all with their defaults; the bounds on a
new table's rule options and timers are checked with the rest of a create, in ``creation``).

Domain words: *limit* (a bound on what one client or one table may cost; each has a default and
an environment variable ``LIVERPOOL_LIMIT_<NAME>``), *client* (the connecting address), *rate*
(``"10/minute"``: at most so many in a moving window, counted by the ``limits`` library, or for
what one websocket connection sends by ``MovingWindows``),
*closed list* (the bot levels a client may name: built-in levels with bounded budgets, and the
names the host configured).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage as AsyncRedisStorage
from limits.aio.strategies import MovingWindowRateLimiter as AsyncMovingWindow
from limits.errors import StorageError
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..bots import LEVELS, Bot, ExpertBot, level_of, make_bot
from ..review import WORLDS as REVIEW_WORLDS
from ..solver import PERSON_SEARCH_BUDGET

ENV_PREFIX = "LIVERPOOL_LIMIT_"


class ApiError(Exception):
    """A refused request: HTTP status, error code, a message a person can read and, where one
    is at fault, the field (and for a rule option, its knob: the form places the message
    by it)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 retry_after: int | None = None, knob: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        self.knob = knob

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        if self.knob is not None:
            out["knob"] = self.knob
        return out


@dataclass(frozen=True)
class Limits:
    """Every limit of the web server (docs/security.md). Rates are ``"N/second|minute|hour"``."""

    # requests and websockets
    max_body: int = 64 * 1024
    body_timeout: float = 10.0
    max_message: int = 64 * 1024
    send_queue_bytes: int = 1024 * 1024
    send_queue_messages: int = 1000
    message_rate: str = "20/second"
    message_flood: int = 200
    hello_timeout: float = 10.0
    sockets_per_client: int = 20
    sockets_per_network: int = 200  # from one IPv4 /24 or IPv6 /48
    request_rate: str = "600/minute"
    # the lobby
    create_rate: str = "10/minute"
    join_rate: str = "30/minute"
    start_rate: str = "20/minute"
    replay_rate: str = "30/minute"
    # players
    player_rate: str = "10/hour"  # new players from one address
    players_per_client: int = 30  # new players a day from one address (every server's)
    players_per_network: int = 200  # from one IPv4 /24 or IPv6 /48
    recover_rate: str = "10/hour"  # recovery codes tried from one address
    bad_key_rate: str = "30/hour"  # unknown player keys from one address before it is refused
    rematch_rate: str = "30/minute"
    player_page: int = 50  # a page of a player's games, of the leaderboard
    open_tables: int = 500  # waiting to start, in all
    waiting_tables_per_client: int = 3
    open_tables_per_client: int = 5  # open or playing: every table not finished counts
    tables_per_network: int = 20  # open or playing, from one IPv4 /24 or IPv6 /48
    playing_tables: int = 100
    open_table_ttl: float = 3600.0
    idle_table_ttl: float = 300.0  # waiting, and no seated person connected
    lobby_page: int = 20
    # text
    nickname_max: int = 24
    # table chat (tablechat.py): characters of one line after it is cleaned; lines (and
    # reactions) one speaker may send at once, then one every ``chat_every`` seconds, counted
    # per connection and per seat (a spectator: per address); lines a table keeps, and sends
    # to a client that connects
    chat_max: int = 200
    chat_burst: int = 5
    chat_every: float = 2.0
    chat_kept: int = 500
    chat_sent: int = 50
    # bots
    # visits one go-down search may make (the solver): a hand grown by buying every card
    # offered made one legal-move listing cost seconds of the server's loop
    search_budget: int = PERSON_SEARCH_BUDGET
    expert_max_iterations: int = 32
    expert_max_ms: int = 2000
    bot_workers: int = 2
    # game reviews (reviews.py): new reviews one address, and one player, may ask for (a
    # review already made, or being made, is free); the processes that make them, the reviews
    # that may wait for one, and the worlds each decision is weighed in (review.py)
    review_rate: str = "3/hour"
    review_player_rate: str = "5/hour"
    review_workers: int = 1
    review_queue: int = 8
    review_worlds: int = REVIEW_WORLDS
    # timers
    min_timer: float = 5.0
    max_timer: float = 3600.0

    @staticmethod
    def from_env(environ: Mapping[str, str] | None = None, **overrides: Any) -> Limits:
        """The defaults, changed by ``LIVERPOOL_LIMIT_<NAME>`` variables, then by
        ``overrides``. A malformed value fails with a message naming the variable."""
        env = os.environ if environ is None else environ
        changes: dict[str, Any] = {}
        for f in fields(Limits):
            var = ENV_PREFIX + f.name.upper()
            text = env.get(var)
            if text is None or text == "":
                continue
            changes[f.name] = _parse_value(var, f.type, text)
        changes.update(overrides)
        limits = dataclasses.replace(Limits(), **changes)
        limits.check()
        return limits

    def check(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "str":
                try:
                    parse(value)
                except ValueError:
                    raise ValueError(f"limit {f.name}: {value!r} is not a rate such as "
                                     f"\"10/minute\"") from None
            elif value < 0:
                raise ValueError(f"limit {f.name}: must be 0 or more")
        if self.search_budget < 1000:
            raise ValueError("limit search_budget: at least 1000 (a go-down search of a hand "
                             "of play makes up to thousands of visits)")
        if self.bot_workers < 1:
            raise ValueError("limit bot_workers: at least 1")
        if self.review_workers < 1:
            raise ValueError("limit review_workers: at least 1")
        if self.review_worlds < 2:
            raise ValueError("limit review_worlds: at least 2 (a loss's uncertainty needs two)")

    def public(self) -> dict[str, Any]:
        """What the lobby page needs to know."""
        return {"expert_max_iterations": self.expert_max_iterations,
                "expert_max_ms": self.expert_max_ms, "min_timer": self.min_timer,
                "max_timer": self.max_timer, "nickname_max": self.nickname_max}


def _parse_value(var: str, kind: Any, text: str) -> Any:
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        raise ValueError(f"{var}={text!r}: a number is needed") from None
    return text


# ---- rates ------------------------------------------------------------------------------------
# counted in this process alone: what one websocket connection sends (a connection lives in one
# process; it is the hot path, one hit per message)
LOCAL_RATES = ("message",)
SWEEP_EVERY = 10.0  # seconds, at least, between two sweeps of idle keys
# rates shared by the servers of one service, in Redis: how long one call to Redis may take,
# and how long a server counts alone after Redis could not be reached
SHARED_TIMEOUT = 0.5
SHARED_RETRY = 5.0
SHARED_ERRORS = (StorageError, OSError, TimeoutError)
log = logging.getLogger("liverpool.web")


class MovingWindows:
    """Moving-window counters of one rate, kept in this process: for each key, the times of
    its last ``amount`` hits. A hit is refused while the ``amount``-th last one is less than the
    window old, the rule of the ``limits`` library's moving window, without its in-memory
    storage's expiry thread (started every 10 ms while counters are live, it went over every
    key holding the GIL that the event loop needs, and at thousands of connections it cost the
    tables their latency). A key idle for a whole window is forgotten at the next sweep, done at
    most once per window (and ``SWEEP_EVERY``) by a hit."""

    def __init__(self, item: RateLimitItem, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.amount = item.amount
        self.seconds = float(item.get_expiry())
        self.clock = clock
        self.hits: dict[str, deque[float]] = {}
        self._sweep_at = clock() + max(self.seconds, SWEEP_EVERY)

    def hit(self, key: str) -> bool:
        """Count one for ``key``; False when its limit is reached (the hit is not counted)."""
        if self.amount <= 0:
            return False
        now = self.clock()
        recent = self.hits.get(key)
        if recent is None:
            recent = self.hits[key] = deque(maxlen=self.amount)
        elif len(recent) == self.amount and recent[0] >= now - self.seconds:
            return False
        recent.append(now)
        if now >= self._sweep_at:
            self._sweep(now)
        return True

    def reset_in(self, key: str) -> float:
        """Seconds until ``key`` may be hit again (0: now)."""
        recent = self.hits.get(key)
        if not recent or len(recent) < self.amount:
            return 0.0
        return max(0.0, recent[0] + self.seconds - self.clock())

    def _sweep(self, now: float) -> None:
        self._sweep_at = now + max(self.seconds, SWEEP_EVERY)
        old = now - self.seconds
        for key in [k for k, recent in self.hits.items() if not recent or recent[-1] < old]:
            del self.hits[key]


class RateLimiter:
    """Moving-window counters per (what, client): the ``limits`` library's, and for what one
    connection sends (``LOCAL_RATES``), ``MovingWindows``. Alone, a server counts in its own
    memory. With ``shared`` (the Redis URL of the servers of one service) the per-client rates
    are counted in Redis, so that a client spread over N servers gets the limits of one; while
    Redis cannot be reached (for ``SHARED_RETRY`` seconds after a failure) each server counts
    in its own memory again, as a server alone would."""

    def __init__(self, limits: Limits, shared: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[str, RateLimitItem] = {}
        self._local: dict[str, MovingWindows] = {}
        self._shared: AsyncMovingWindow | None = None
        self._shared_down_until = 0.0
        if shared:
            scheme = "async+" + shared  # redis://, rediss://, redis+unix://
            self._shared = AsyncMovingWindow(AsyncRedisStorage(
                scheme, implementation="redispy", wrap_exceptions=True,
                key_prefix="lv:rates", socket_connect_timeout=SHARED_TIMEOUT,
                socket_timeout=SHARED_TIMEOUT))

    def _item(self, what: str) -> RateLimitItem:
        item = self._items.get(what)
        if item is None:
            item = self._items[what] = parse(getattr(self.limits, f"{what}_rate"))
        return item

    def hit(self, what: str, key: str) -> bool:
        """Count one in this process's memory; False when the limit is reached (the hit is
        then not counted)."""
        if what in LOCAL_RATES:
            windows = self._local.get(what)
            if windows is None:
                windows = self._local[what] = MovingWindows(self._item(what))
            return windows.hit(key)
        return bool(self._limiter.hit(self._item(what), what, key))

    def _shared_now(self) -> AsyncMovingWindow | None:
        if self._shared is None or self.clock() < self._shared_down_until:
            return None
        return self._shared

    def _shared_failed(self, e: BaseException) -> None:
        if self.clock() >= self._shared_down_until:
            log.warning("rate limits: Redis cannot be reached (%s); counting in this "
                        "server's memory for %g s", type(e).__name__, SHARED_RETRY)
        self._shared_down_until = self.clock() + SHARED_RETRY

    async def allow(self, what: str, key: str) -> bool:
        """Count one where the service counts (``shared``, else here); False when the limit
        is reached."""
        shared = None if what in LOCAL_RATES else self._shared_now()
        if shared is not None:
            try:
                return bool(await shared.hit(self._item(what), what, key))
            except SHARED_ERRORS as e:
                self._shared_failed(e)
        return self.hit(what, key)

    async def _wait(self, what: str, key: str) -> int:
        """Whole seconds until ``key`` may try ``what`` again (at least 1)."""
        item = self._item(what)
        if what in LOCAL_RATES:
            return max(1, int(self._local[what].reset_in(key) + 0.999))
        shared = self._shared_now()
        stats = None
        if shared is not None:
            try:
                stats = await shared.get_window_stats(item, what, key)
            except SHARED_ERRORS as e:
                self._shared_failed(e)
        if stats is None:
            stats = self._limiter.get_window_stats(item, what, key)
        return max(1, int(stats.reset_time - time.time() + 0.999))

    async def exhausted(self, what: str, key: str) -> bool:
        """Whether ``key`` has used up ``what`` (nothing is counted: for rates of failures,
        counted with ``allow`` when one happens)."""
        item = self._item(what)
        shared = None if what in LOCAL_RATES else self._shared_now()
        if shared is not None:
            try:
                return not bool(await shared.test(item, what, key))
            except SHARED_ERRORS as e:
                self._shared_failed(e)
        return not bool(self._limiter.test(item, what, key))

    async def check(self, what: str, key: str) -> None:
        """Count one, or refuse with 429 ``rate_limited``."""
        if await self.allow(what, key):
            return
        wait = await self._wait(what, key)
        raise ApiError(429, "rate_limited",
                       f"too many requests ({what}): at most {self._item(what)} from one "
                       f"address; try again in {wait} s", retry_after=wait)


# ---- client text ------------------------------------------------------------------------------
_REFUSED_CATEGORIES = {"Cc": "a control character", "Cf": "a format character (bidi or "
                       "zero-width)", "Cs": "a lone surrogate", "Co": "a private-use character",
                       "Cn": "an unassigned character"}


def clean_text(value: Any, field: str, max_len: int) -> str:
    """A client's text as the server keeps it (NFC, single spaces), or a 400 naming ``field``."""
    if not isinstance(value, str):
        raise ApiError(400, "bad_request", f"{field} must be text", field)
    if len(value) > 4 * max_len + 64:
        raise ApiError(400, "bad_request", f"{field} has at most {max_len} characters", field)
    for ch in value:
        what = _REFUSED_CATEGORIES.get(unicodedata.category(ch))
        if what is not None and not ch.isspace():
            raise ApiError(400, "bad_request", f"{field} holds {what} (U+{ord(ch):04X})", field)
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if not text:
        raise ApiError(400, "bad_request", f"{field} is empty", field)
    if len(text) > max_len:
        raise ApiError(400, "bad_request", f"{field} has at most {max_len} characters", field)
    return text


def bot_name(seat: int) -> str:
    """The name a bot seat has (and a human seat nobody took, from the start): "Bot N"."""
    return f"Bot {seat + 1}"


# names of that form, in any case and spacing, with any digits: shown beside the bots' own,
# they could not be told apart
_BOT_NAME = re.compile(r"bot ?\d+", re.IGNORECASE)


def clean_nickname(value: Any, max_len: int) -> str:
    """A person's nickname as the server keeps it (``clean_text``); a name of the bots' form
    ("Bot 3") is refused: the seat of that number may become a bot's at the start."""
    name = clean_text(value, "nickname", max_len)
    if _BOT_NAME.fullmatch(name):
        raise ApiError(400, "bad_request", "nickname: names like \"Bot 3\" are kept for the "
                                           "bots; choose another", "nickname")
    return name


def displayable(text: str) -> str:
    """Stored text as it may be shown: what a client could not send now (a lone surrogate, a
    control or bidi character, from an older version) becomes U+FFFD."""
    return "".join("\ufffd" if unicodedata.category(ch) in _REFUSED_CATEGORIES else ch
                   for ch in text)


def secret_text(value: Any) -> str | None:
    """A token or join secret as sent: short ASCII text, else None (a refusal follows)."""
    if isinstance(value, str) and 0 < len(value) <= 64 and value.isascii():
        return value
    return None


TABLE_ID = re.compile(r"[A-Za-z0-9]{1,32}")


# ---- bots ---------------------------------------------------------------------------------------
_BUDGET = re.compile(r"expert:([1-9][0-9]{0,8})(it|ms)")  # the expert with a budget


def _ladder(level: str) -> bool:
    """A level of the ladder or an alias, written exactly (lower case, no spaces)."""
    found = level_of(level)
    return found is not None and level in (found.name, found.alias)


def check_level(level: Any, limits: Limits, commands: Mapping[str, str], field: str) -> str:
    """A bot level from the closed list, exactly as written, or a 400 naming ``field``."""
    if isinstance(level, str) and level in commands:
        return level
    if isinstance(level, str) and _ladder(level):
        return level
    allowed = (f"{LEVELS[0]} to {LEVELS[-1]} (or random, basic, expert), expert:Nit (N up to "
               f"{limits.expert_max_iterations}), expert:Nms (N up to {limits.expert_max_ms})")
    if commands:
        allowed += ", " + ", ".join(sorted(commands))
    m = _BUDGET.fullmatch(level) if isinstance(level, str) else None
    if m is None:
        raise ApiError(400, "bad_request", f"{field}: not a bot level this server offers; "
                                           f"choose {allowed}", field)
    amount, unit = int(m.group(1)), m.group(2)
    cap = limits.expert_max_iterations if unit == "it" else limits.expert_max_ms
    if amount > cap:
        raise ApiError(400, "bad_request", f"{field}: the budget must be 1..{cap}{unit} "
                                           f"on this server", field)
    assert isinstance(level, str)
    return level


def builtin_bot(level: str, limits: Limits) -> Bot | None:
    """The built-in bot of a level on the closed list (budget within the caps), else None."""
    if _ladder(level):
        return make_bot(level)
    m = _BUDGET.fullmatch(level)
    if m is None:
        return None
    amount = int(m.group(1))
    if m.group(2) == "it":
        return ExpertBot(iterations=amount) if amount <= limits.expert_max_iterations else None
    return ExpertBot(millis=amount) if amount <= limits.expert_max_ms else None


# ---- request bodies -----------------------------------------------------------------------------
def json_depth_ok(obj: Any, max_depth: int = 32) -> bool:
    """True when ``obj`` nests lists and objects at most ``max_depth`` deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                return False
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            if depth > max_depth:
                return False
            stack.extend((v, depth + 1) for v in item)
    return True
