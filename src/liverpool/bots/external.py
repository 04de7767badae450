"""External bots: any program that speaks the bot protocol (``docs/bot-protocol.md``) on its
standard input and output, seated with ``cmd:COMMAND``.

Domain words: *host* (this side: the simulator, the terminal app or a web table), *bot process*
(the program, one per seat, in its own process group), *handshake* (``hello`` both ways),
*event* (game and hand start and end, with scores), *decision* (one ``decide`` message answered
by one ``action``), *time limit* (per decision), *incident* (an answer that is late, not JSON,
not an answer, or an illegal action, or a process that stopped; recorded with the game, the
decision and what the bot sent), *fallback* (the basic bot plays the seat for the rest of that
game after an incident; the process is stopped and a fresh one starts for the next game).

Everything sent to a bot is built here from public fields only: the seat's view
(``SeatView.to_json``: its own hand, the rest public), its legal actions, and events made of
scores and seat numbers. The game's seed never leaves the host (it would reveal the deal).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from ..actions import Action, ActionFormatError
from ..engine import Event, Game, SeatView
from ..events import (
    bot_seed,
    game_end_event,
    game_start_event,
    hand_end_event,
    hand_start_event,
    rules_json,
)
from ..rules import RuleSet
from .basic import BasicBot
from .contain import (
    MARK_ENV,
    Member,
    apply_limits,
    become_subreaper,
    end_family,
    family,
    marked,
    new_mark,
)

PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 5.0  # seconds per decision, when neither the spec nor the environment says
TIMEOUT_ENV = "LIVERPOOL_BOT_TIMEOUT"
HANDSHAKE_TIMEOUT = 10.0  # starting an interpreter on a loaded machine can take seconds
MAX_LINE = 1 << 20  # one message line; longer output counts as garbage
EXCERPT = 200  # characters of a bad answer kept in an incident
STOP_GRACE = 1.0  # seconds a bot gets to exit after "quit" before it is killed

EVENT_TYPES = ("game_start", "hand_start", "event", "hand_end", "game_end")


class BotProtocolError(Exception):
    """Something a bot did wrong; ``kind`` names it in incidents (see the protocol page)."""

    def __init__(self, kind: str, message: str, sent: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.sent = sent


def default_timeout() -> float:
    """The per-decision time limit: ``LIVERPOOL_BOT_TIMEOUT`` (seconds) or ``DEFAULT_TIMEOUT``."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{TIMEOUT_ENV}={text!r}: give the time limit in seconds, "
                         f"like 2 or 0.5") from None
    if not value > 0:
        raise ValueError(f"{TIMEOUT_ENV}={text!r}: the time limit must be positive")
    return value


def split_command(command: str) -> list[str]:
    """The program and its arguments, split as a POSIX shell would (no shell runs it)."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"cannot read the command {command!r}: {e}") from None
    if not argv:
        raise ValueError("the command is empty: write cmd:PROGRAM [ARGUMENTS]")
    return argv


def find_program(argv: Sequence[str], cwd: str | None = None) -> str | None:
    """Why the program cannot be started (not found, not executable), or None if it can."""
    program = argv[0]
    if os.sep in program:
        path = os.path.join(cwd, program) if cwd and not os.path.isabs(program) else program
        if not os.path.isfile(path):
            return f"no program at {program!r}"
        if not os.access(path, os.X_OK):
            return f"{program!r} is not executable"
        return None
    if shutil.which(program) is None:
        return f"program {program!r} not found on PATH"
    return None


# ---- events: built in liverpool.match (the one event schema), sent from here --------------------

def decide_message(decision_id: int, view: SeatView, legal: Sequence[Action],
                   time_limit: float) -> dict[str, Any]:
    """The message asking a bot for one decision: the seat's view and its legal actions."""
    return {"type": "decide", "id": decision_id, "time_limit_ms": round(time_limit * 1000),
            "view": view.to_json(), "legal": [a.to_json() for a in legal]}


def _int_list(value: object) -> list[int] | None:
    if isinstance(value, list | tuple) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return [int(v) for v in value]
    return None


def _clean_event(event: dict[str, Any]) -> dict[str, Any]:
    """Keep only the documented fields of an event, of the documented types: whatever an
    interface puts in its dict, nothing else reaches the bot."""
    kind = event.get("type")
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown bot event {kind!r}: use one of {', '.join(EVENT_TYPES)}")
    out: dict[str, Any] = {"type": kind}

    def number(key: str) -> None:
        v = event.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            out[key] = v

    def numbers(key: str) -> None:
        v = _int_list(event.get(key))
        if v is not None:
            out[key] = v

    if kind == "event":
        engine_event = event.get("event")
        if not isinstance(engine_event, Event):
            raise ValueError(f"an \"event\" message holds an engine event, not "
                             f"{type(engine_event).__name__}")
        out["event"] = engine_event.to_json()  # its documented JSON form and nothing else
    elif kind == "game_start":
        for key in ("game", "seat", "seed"):
            number(key)
        players = event.get("players")
        if isinstance(players, list | tuple) and all(isinstance(p, str) for p in players):
            out["players"] = list(players)
        rules = event.get("rules")
        if isinstance(rules, RuleSet):
            out["rules"] = rules_json(rules)
        elif isinstance(rules, dict):
            out["rules"] = json.loads(json.dumps(rules))  # plain JSON data only
    elif kind == "hand_start":
        number("hand_number")
        number("dealer")
        contract = event.get("contract")
        if isinstance(contract, list):
            out["contract"] = [c if isinstance(c, dict) else c.to_json() for c in contract]
    elif kind == "hand_end":
        number("hand_number")
        numbers("scores")
        numbers("totals")
        went = event.get("went_down")
        if isinstance(went, list | tuple) and all(isinstance(v, bool) for v in went):
            out["went_down"] = list(went)
    else:
        numbers("totals")
        numbers("winners")
        number("hands")
    return out


# ---- one bot process ---------------------------------------------------------------------------

def _excerpt(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


class BotProcess:
    """A running bot program: its pipes (non-blocking, so every wait has a deadline), a line
    buffer, and its standard error kept in a temporary file for crash reports."""

    def __init__(self, argv: Sequence[str], cwd: str | None = None) -> None:
        self.argv = list(argv)
        # kept open for the process's life (closed in ``stop``), so no context manager
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self._family: set[Member] = set()  # what the bot started, as last seen
        self._looked = 0.0
        self._mark = new_mark()
        become_subreaper()
        with _CtrlCHeld() as held:
            try:
                # a session of its own: Ctrl-C at the terminal reaches the host only, which
                # then stops the bot; the whole group goes, with anything the bot started
                self.proc = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=self._stderr, cwd=cwd, start_new_session=True, bufsize=0,
                    env={**os.environ, MARK_ENV: self._mark})
            except OSError as e:
                self._stderr.close()
                raise BotProtocolError("start", f"cannot start {shlex.join(self.argv)}: "
                                                f"{e.strerror or e}") from None
            self._setup_pipes()
            try:
                apply_limits(self.pid)
            except ValueError as e:
                self.stop(grace=0)
                raise BotProtocolError("start", str(e)) from None
        if held.caught:
            try:
                held.deliver()
            except BaseException:  # the interrupt ends the host's work: this bot goes first
                self.stop(grace=0)
                raise

    def _setup_pipes(self) -> None:
        """Non-blocking pipes with their polls, and the registration ``close_all`` relies on."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._read_poll = select.poll()
        self._read_poll.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._write_poll = select.poll()
        self._write_poll.register(self._in, select.POLLOUT | select.POLLERR)
        self._buf = bytearray()
        self.pid = self.proc.pid
        _PROCESSES.add(self)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, message: dict[str, Any], deadline: float) -> None:
        now = time.monotonic()
        if now - self._looked > FAMILY_LOOK_EVERY:
            # remember what the bot started, so a helper that leaves the family later (a
            # double fork) is still ended with it
            self._looked = now
            self._family |= family(self.pid)
        data = memoryview((json.dumps(message, separators=(",", ":")) + "\n").encode())
        while data:
            try:
                written = os.write(self._in, data)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, OSError):
                raise self._ended() from None
            data = data[written:]
            if data:
                left = deadline - time.monotonic()
                if left <= 0 or not self._write_poll.poll(left * 1000):
                    raise BotProtocolError("timeout", "the bot stopped reading its input "
                                                      "(a message could not be delivered in time)")

    def receive(self, deadline: float, limit: float) -> str:
        """The next non-empty line, by ``deadline``."""
        while True:
            cut = self._buf.find(b"\n")
            if cut >= 0:
                line = bytes(self._buf[:cut])
                del self._buf[:cut + 1]
                if line.strip():
                    return line.decode("utf-8", "replace").strip()
                continue
            if len(self._buf) > MAX_LINE:
                raise BotProtocolError("garbage", f"a line longer than {MAX_LINE} bytes",
                                       _excerpt(bytes(self._buf[:EXCERPT])))
            left = deadline - time.monotonic()
            if left <= 0 or not self._read_poll.poll(left * 1000):
                raise BotProtocolError("timeout", f"no answer within {limit:g} s",
                                       _excerpt(bytes(self._buf)) if self._buf else None)
            try:
                chunk = os.read(self._out, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._ended()
            self._buf += chunk

    def _ended(self) -> BotProtocolError:
        """The bot closed its output or its input: it exited (or is about to)."""
        try:
            code = self.proc.wait(timeout=1.0)
            how = f"exited with code {code}" if code >= 0 else \
                f"was killed by signal {signal.Signals(-code).name}"
        except subprocess.TimeoutExpired:
            how = "closed its output"
        tail = self.stderr_tail()
        return BotProtocolError("crash", f"the bot {how}" + (f"; its last error output: {tail}"
                                                            if tail else ""),
                                _excerpt(bytes(self._buf)) if self._buf else None)

    def stderr_tail(self) -> str:
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - 400))
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return " | ".join(line for line in text.splitlines()[-4:] if line.strip())

    def stop(self, grace: float = STOP_GRACE, farewell: dict[str, Any] | None = None) -> None:
        """Say ``farewell`` if the bot still listens, close its input, give it ``grace``
        seconds to exit, then end its process group."""
        try:
            if self.alive() and farewell is not None:
                with contextlib.suppress(BotProtocolError):
                    self.send(farewell, time.monotonic() + 0.2)
            for stream in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
            if grace > 0:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=grace)
            if self.proc.poll() is None:
                self._signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=0.2)
        finally:
            # even when Ctrl-C lands in one of the waits above, nothing of the bot survives;
            # the group may outlive its leader (a bot that started helpers of its own), and a
            # helper may have left the group (setsid): the whole family is ended
            members = self._family | family(self.pid) | marked(self._mark)
            self._signal(signal.SIGKILL)
            end_family({m for m in members if m[0] != self.pid})
            _PROCESSES.discard(self)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)
            self._stderr.close()

    def _signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)


_PROCESSES: set[BotProcess] = set()  # every bot process of this process not yet stopped
FAMILY_LOOK_EVERY = 1.0  # seconds between looks at what a running bot has started


class _CtrlCHeld(contextlib.AbstractContextManager["_CtrlCHeld"]):
    """Ctrl-C held back while a bot process starts. Without it, an interrupt landing between
    the fork and the moment the process is registered would leave a bot nobody stops (the
    process exists, its ``Popen`` object is lost). Only the main thread receives signals, so
    elsewhere this does nothing. Once registered, ``deliver`` passes the interrupt on to the
    handler that was there before."""

    def __init__(self) -> None:
        self.caught = False
        self._previous: Any = None
        # a handler installed outside Python (getsignal gives None) could not be put back
        self._active = (threading.current_thread() is threading.main_thread()
                        and signal.getsignal(signal.SIGINT) is not None)

    def __enter__(self) -> _CtrlCHeld:
        if self._active:
            self._previous = signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum: int, frame: Any) -> None:
        self.caught = True

    def __exit__(self, *exc: object) -> None:
        if self._active:
            signal.signal(signal.SIGINT, self._previous)

    def deliver(self) -> None:
        if callable(self._previous):
            self._previous(signal.SIGINT, None)
        elif self._previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


def close_all() -> None:
    """Stop every bot process this process started (registered with ``atexit``)."""
    for proc in list(_PROCESSES):
        proc.stop(grace=0)


atexit.register(close_all)


# ---- the seat --------------------------------------------------------------------------------

class ExternalBot:
    """A seat played by an external program (one process per seat, kept across games)."""

    def __init__(self, command: str | Sequence[str], *, timeout: float | None = None,
                 cwd: str | None = None, name: str | None = None) -> None:
        self.argv = split_command(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the command is empty: write cmd:PROGRAM [ARGUMENTS]")
        self.timeout = default_timeout() if timeout is None else float(timeout)
        if not self.timeout > 0:
            raise ValueError("the time limit must be positive")
        self.cwd = cwd
        self.name = name or "cmd:" + (command if isinstance(command, str)
                                      else shlex.join(self.argv))
        self.bot_name: str | None = None  # what the program calls itself (its hello)
        self.incidents: list[dict[str, Any]] = []
        self.decisions = 0  # decisions asked of this seat in the current game
        self.game = -1
        self._games_started = 0
        self._in_game = False
        self._hand_started = 0  # last hand_number announced
        self._hands_ended = 0
        self._proc: BotProcess | None = None
        self._fallback: BasicBot | None = None
        self._fallback_rng = random.Random(0)
        self._lock = threading.RLock()

    # ---- lifecycle -----------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The running process's id (None between games after a stop)."""
        return self._proc.pid if self._proc is not None and self._proc.alive() else None

    @property
    def in_fallback(self) -> bool:
        return self._fallback is not None

    def probe(self) -> str:
        """Start the program and complete the handshake (a check before a tournament); the
        bot's name, or ``BotProtocolError`` saying what went wrong."""
        with self._lock:
            self._ensure_process()
            return self.bot_name or self.name

    def _ensure_process(self) -> BotProcess:
        if self._proc is not None and self._proc.alive():
            return self._proc
        if self._proc is not None:
            self._proc.stop(grace=0)
            self._proc = None
        proc = BotProcess(self.argv, self.cwd)
        try:
            limit = max(HANDSHAKE_TIMEOUT, self.timeout)
            deadline = time.monotonic() + limit
            proc.send({"type": "hello", "protocol": PROTOCOL_VERSION, "host": "liverpool"},
                      deadline)
            line = proc.receive(deadline, limit)
            self.bot_name = self._read_hello(line)
        except BotProtocolError as e:
            proc.stop(grace=0)
            raise BotProtocolError("handshake", f"handshake failed: {e.message}",
                                   e.sent) from None
        except BaseException:  # Ctrl-C during the handshake: no process left behind
            proc.stop(grace=0)
            raise
        self._proc = proc
        return proc

    @staticmethod
    def _read_hello(line: str) -> str:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            raise BotProtocolError("handshake", "the answer to hello is not JSON",
                                   _excerpt(line)) from None
        if not isinstance(msg, dict) or msg.get("type") != "hello":
            raise BotProtocolError("handshake", "expected {\"type\": \"hello\", ...}",
                                   _excerpt(line))
        if msg.get("protocol") != PROTOCOL_VERSION:
            raise BotProtocolError("handshake", f"the bot speaks protocol "
                                                f"{msg.get('protocol')!r}; this host speaks "
                                                f"{PROTOCOL_VERSION}", _excerpt(line))
        name = msg.get("name")
        if not isinstance(name, str) or not name.strip():
            raise BotProtocolError("handshake", "hello needs \"name\", a non-empty string",
                                   _excerpt(line))
        return name.strip()[:80]

    def close(self) -> None:
        """Stop the process (``quit``, then the process group is ended if it lingers)."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None:
                proc.stop(farewell={"type": "quit"})

    # ---- events --------------------------------------------------------------------------
    def event(self, event: dict[str, Any]) -> None:
        """A game event from the host (see ``game_start_event`` and its siblings)."""
        clean = _clean_event(event)
        with self._lock:
            kind = clean["type"]
            if kind == "game_start":
                self._start_game(clean)
            elif not self._in_game:
                return  # an event for a game this bot was never told about
            elif kind == "hand_start":
                if clean.get("hand_number", self._hand_started + 1) <= self._hand_started:
                    return
                self._hand_started = clean.get("hand_number", self._hand_started + 1)
                # a game joined mid-way (a web table after a restart): the hands before this
                # one are over, and their ends are not news to send afterwards
                self._hands_ended = max(self._hands_ended, self._hand_started - 1)
                self._forward(clean)
            elif kind == "hand_end":
                if clean.get("hand_number", self._hands_ended + 1) <= self._hands_ended:
                    return
                self._hands_ended = clean.get("hand_number", self._hands_ended + 1)
                self._forward(clean)
            elif kind == "event":
                self._forward(clean)
            else:
                self._forward(clean)
                self._in_game = False

    def _start_game(self, clean: dict[str, Any]) -> None:
        self.game = clean.get("game", self._games_started)
        clean["game"] = self.game
        self._games_started += 1
        self._in_game = True
        self.decisions = 0
        self._hand_started = 0
        self._hands_ended = 0
        self._fallback = None
        self._fallback_rng = random.Random(clean.get("seed", 0))
        try:
            self._ensure_process()
        except BotProtocolError as e:
            self._incident(e)
            return
        self._forward(clean)

    def _forward(self, message: dict[str, Any]) -> None:
        if self._fallback is not None or self._proc is None:
            return
        try:
            self._proc.send(message, time.monotonic() + self.timeout)
        except BotProtocolError as e:
            self._incident(e)

    def _catch_up(self, view: SeatView) -> None:
        """Events the host did not send, derived from the view (an interface that only asks
        for decisions still gives its bot a game start and the hands' ends)."""
        if self._in_game and (len(view.scores) < self._hands_ended
                              or view.hand_number < self._hand_started):
            self._in_game = False  # a new game began without a word from the host
        if not self._in_game:
            self._start_game({"type": "game_start", "game": self._games_started,
                              "seat": view.seat, "players": list(view.players),
                              "rules": rules_json(view.ruleset),
                              "seed": random.getrandbits(32)})
        while self._hands_ended < len(view.scores):
            k = self._hands_ended
            self._hands_ended += 1
            self._forward({"type": "hand_end", "hand_number": k + 1,
                           "scores": list(view.scores[k]),
                           "totals": [sum(r[s] for r in view.scores[:k + 1])
                                      for s in range(len(view.players))]})
        if view.hand_number > self._hand_started and view.phase != "over":
            self._hand_started = view.hand_number
            self._forward({"type": "hand_start", "hand_number": view.hand_number,
                           "dealer": view.dealer,
                           "contract": [c.to_json() for c in view.contract]})

    # ---- decisions -----------------------------------------------------------------------
    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no decision is waiting for this seat")
        with self._lock:
            self._catch_up(view)
            self.decisions += 1
            if self._fallback is None and self._proc is not None:
                try:
                    return self._ask(view, legal)
                except BotProtocolError as e:
                    self._incident(e)
            if self._fallback is None:
                self._fallback = BasicBot()
            return self._fallback.choose(view, legal, self._fallback_rng)

    def _ask(self, view: SeatView, legal: Sequence[Action]) -> Action:
        assert self._proc is not None
        deadline = time.monotonic() + self.timeout
        self._proc.send(decide_message(self.decisions, view, legal, self.timeout), deadline)
        line = self._proc.receive(deadline, self.timeout)
        return self._read_action(line, view, legal)

    def _read_action(self, line: str, view: SeatView, legal: Sequence[Action]) -> Action:
        sent = _excerpt(line)
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            raise BotProtocolError("garbage", "the answer is not JSON", sent) from None
        if not isinstance(msg, dict) or msg.get("type") != "action":
            raise BotProtocolError("malformed", "expected {\"type\": \"action\", \"id\": ..., "
                                                "\"action\": {...}}", sent)
        if "id" in msg and msg["id"] != self.decisions:
            raise BotProtocolError("malformed", f"the answer is for decision {msg['id']!r}, "
                                                f"not {self.decisions}", sent)
        body = msg.get("action")
        if isinstance(body, dict) and "player" not in body:
            body = {**body, "player": view.seat}  # the seat is implied
        try:
            action = Action.from_json(body)
        except ActionFormatError as e:
            raise BotProtocolError("malformed", f"not an action: {e}", sent) from None
        if action in set(legal):
            return action
        reason = self._why_illegal(view, action)
        if reason is None:
            return action  # e.g. a go-down arrangement the list did not spell out
        raise BotProtocolError("illegal", f"illegal action: {reason}", sent)

    @staticmethod
    def _why_illegal(view: SeatView, action: Action) -> str | None:
        """Judge an action outside the list in a world consistent with the view (whether it is
        legal depends only on what the seat knows, so every such world agrees), for the
        engine's reason in the incident, or to accept a go-down the list did not spell out."""
        if action.player != view.seat:
            return f"this bot plays seat {view.seat}, not seat {action.player}"
        try:
            world = Game.from_view(view, random.Random(0))
            return world.why_illegal(action)
        except Exception:  # a view the sampler cannot rebuild: refuse it, not crash the host
            return "it is not one of the legal actions sent"

    def _incident(self, error: BotProtocolError) -> None:
        self.incidents.append({
            "bot": self.name, "name": self.bot_name, "game": self.game,
            "decision": self.decisions, "kind": error.kind, "message": error.message,
            "sent": error.sent,
        })
        self._fallback = BasicBot()
        if self._proc is not None:
            # a bot that failed once is out of step: stop it; the next game starts a fresh one
            self._proc.stop(grace=0.2, farewell={
                "type": "error", "kind": error.kind, "message": error.message,
                "decision": self.decisions})
            self._proc = None

    def take_incidents(self) -> list[dict[str, Any]]:
        """The incidents recorded since the last call."""
        with self._lock:
            out, self.incidents = self.incidents, []
            return out


def make_external(spec_command: str, timeout: float | None = None,
                  cwd: str | None = None, name: str | None = None) -> ExternalBot:
    """An ``ExternalBot`` for ``cmd:`` specs, after checking the program exists (nothing is
    started until the first game)."""
    argv = split_command(spec_command)
    problem = find_program(argv, cwd)
    if problem:
        raise ValueError(problem)
    return ExternalBot(argv, timeout=timeout, cwd=cwd, name=name or "cmd:" + spec_command)


__all__ = ["DEFAULT_TIMEOUT", "EVENT_TYPES", "PROTOCOL_VERSION", "TIMEOUT_ENV",
           "BotProcess", "BotProtocolError", "ExternalBot", "bot_seed", "close_all",
           "decide_message", "default_timeout", "find_program", "game_end_event",
           "game_start_event", "hand_end_event", "hand_start_event", "make_external",
           "rules_json", "split_command"]
