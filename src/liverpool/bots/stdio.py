"""A built-in bot served over the bot protocol (``docs/bot-protocol.md``) on standard input and
output: ``liverpool bot expert``. Other programs can then seat our bots, and one version of
this project can play another (``liverpool simulate --bots 'cmd:liverpool bot expert',...``).

Domain words: *host* (the program that runs the game and writes to our input), *level* (the
built-in bot served: ``random``, ``basic``, ``expert``, ``expert:400it``, ``expert:200ms``),
*decision* (a ``decide`` message, answered by one ``action`` line).

The bot rebuilds the seat's view (``SeatView.from_json``, with the rule set from
``game_start``) and the legal actions from each ``decide`` and answers with its level's choice;
the engine's events its host sends (``event``) are read back (``event_from_json``) and told to
a bot that reads them, so that the expert follows the other hand as it does in process.
Its random numbers are seeded from ``game_start``'s ``seed``, so a tournament can be repeated
exactly. Standard output carries protocol lines only; everything else goes to standard error.
"""

from __future__ import annotations

import json
import random
import sys
import traceback
from collections.abc import Iterable
from importlib import metadata
from typing import Any, Protocol

from ..actions import Action, ActionFormatError
from ..engine import SeatView
from ..engine.events import event_from_json
from ..rules import KNOBS, PRESETS, RulesError, RuleSet
from . import BotSpecError, make_bot
from .base import Bot, bot_observe
from .external import PROTOCOL_VERSION

LEVEL_NAMES = "level:1 to level:8 (or random, basic, expert), expert:400it or expert:200ms"


class TextOut(Protocol):
    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def project_version() -> str:
    try:
        return metadata.version("liverpool-rummy")
    except metadata.PackageNotFoundError:
        return "unknown version"


def rules_from_event(rules: Any) -> RuleSet:
    """The rule set of a ``game_start``: the preset with its overrides or, where that fails (a
    preset or knob this version does not know), the named preset's or the default rules with
    every knob's value this version knows (``knobs``)."""
    if not isinstance(rules, dict):
        raise RulesError("game_start has no \"rules\" object")
    preset = rules.get("preset")
    overrides = rules.get("overrides") or {}
    problem: RulesError | None = None
    if isinstance(preset, str) and preset in PRESETS and isinstance(overrides, dict):
        try:
            return RuleSet.preset(preset, overrides)
        except RulesError as e:
            problem = e
    knobs = rules.get("knobs")
    if not isinstance(knobs, dict):
        raise problem or RulesError(f"unknown preset {preset!r} and no \"knobs\" to build "
                                    f"the rules from")
    if isinstance(preset, str) and preset in PRESETS:
        base = PRESETS[preset]
    else:
        base = RuleSet(name=preset) if isinstance(preset, str) and preset else RuleSet()
    return base.with_overrides({k: v for k, v in knobs.items() if k in KNOBS})


class _Server:
    def __init__(self, bot: Bot, name: str, stdout: TextOut, stderr: TextOut) -> None:
        self.bot = bot
        self.name = name
        self.stdout = stdout
        self.stderr = stderr
        self.rules: RuleSet | None = None
        self.rng = random.Random(0)
        self.line_no = 0
        self.events_skipped = False

    def log(self, text: str) -> None:
        self.stderr.write(f"liverpool bot: {text}\n")
        self.stderr.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        self.stdout.flush()

    def handle(self, line: str) -> bool:
        """One line from the host; False once the bot should exit."""
        self.line_no += 1
        if not line.strip():
            return True
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as e:
            self.log(f"line {self.line_no} from the host is not JSON ({e}); skipped: "
                     f"{line.strip()[:200]}")
            return True
        if not isinstance(msg, dict):
            self.log(f"line {self.line_no} from the host is not a JSON object; skipped")
            return True
        kind = msg.get("type")
        if kind == "hello":
            if msg.get("protocol") != PROTOCOL_VERSION:
                self.log(f"the host speaks protocol {msg.get('protocol')!r}; this bot speaks "
                         f"{PROTOCOL_VERSION}")
            self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.name})
        elif kind == "game_start":
            self.game_start(msg)
        elif kind == "decide":
            self.decide(msg)
        elif kind == "event":
            self.engine_event(msg)
        elif kind == "error":
            self.log(f"the host reports a {msg.get('kind')} incident: {msg.get('message')}")
        elif kind == "quit":
            return False
        # hand_start, hand_end, game_end and message types of later versions: nothing to do
        return True

    def game_start(self, msg: dict[str, Any]) -> None:
        self.events_skipped = False
        seed = msg.get("seed")
        if isinstance(seed, int) and not isinstance(seed, bool):
            self.rng = random.Random(seed)
        else:
            self.log(f"line {self.line_no}: game_start has no numeric \"seed\"; using 0")
            self.rng = random.Random(0)
        try:
            self.rules = rules_from_event(msg.get("rules"))
        except RulesError as e:
            self.rules = None
            self.log(f"line {self.line_no}: cannot read the rules of game_start ({e}); the "
                     f"preset named in each view is used")

    def engine_event(self, msg: dict[str, Any]) -> None:
        """One of the engine's events as this seat may see it, told to a bot that reads them
        (``observe``: the expert's belief of the other hands); skipped, with a word, when it
        cannot be read."""
        if not callable(getattr(self.bot, "observe", None)):
            return
        if self.rules is None:
            if not self.events_skipped:  # (said once a game: a game has many events)
                self.log(f"line {self.line_no}: events before a game_start with readable "
                         f"rules are skipped")
            self.events_skipped = True
            return
        try:
            event = event_from_json(msg.get("event"), self.rules)
        except ValueError as e:
            self.log(f"line {self.line_no}: cannot read the event ({e}); skipped")
            return
        bot_observe(self.bot, event)

    def decide(self, msg: dict[str, Any]) -> None:
        view_json = msg.get("view")
        legal_json = msg.get("legal")
        if not isinstance(view_json, dict) or not isinstance(legal_json, list) or not legal_json:
            self.log(f"line {self.line_no}: decide needs \"view\" and a non-empty \"legal\"; "
                     f"skipped")
            return
        try:
            rules = self.rules if self.rules is not None else RuleSet.preset(view_json["rules"])
            view = SeatView.from_json(view_json, rules)
            legal = [Action.from_json(a) for a in legal_json]
        except (KeyError, ValueError, RulesError, ActionFormatError) as e:
            self.log(f"line {self.line_no}: cannot read decide ({e}); skipped")
            return
        try:
            action = self.bot.choose(view, legal, self.rng)
        except Exception:  # a bug must not end the conversation: report it, skip the line
            self.log(f"line {self.line_no}: the bot failed to decide; skipped\n"
                     + traceback.format_exc())
            return
        answer: dict[str, Any] = {"type": "action"}
        if "id" in msg:
            answer["id"] = msg["id"]
        answer["action"] = action.to_json()
        self.send(answer)


def serve_bot(level: str, stdin: Iterable[str], stdout: TextOut,
              stderr: TextOut | None = None) -> int:
    """Play the built-in bot ``level`` over the bot protocol: read the host's lines from
    ``stdin``, answer on ``stdout`` (protocol lines only), report problems on ``stderr``. Ends
    on ``quit`` or when ``stdin`` ends (0); a level that is not a built-in bot gives 2."""
    err: TextOut = sys.stderr if stderr is None else stderr
    spec = level.strip()
    if spec.lower().startswith("cmd"):
        err.write(f"liverpool bot: {spec!r} is an external program, not a built-in level: "
                  f"run the program itself, or serve {LEVEL_NAMES}\n")
        err.flush()
        return 2
    try:
        bot = make_bot(spec)
    except BotSpecError as e:
        err.write(f"liverpool bot: {e}\n")
        err.flush()
        return 2
    server = _Server(bot, f"liverpool {bot.name} ({project_version()})", stdout, err)
    try:
        for line in stdin:
            if not server.handle(line):
                break
    except BrokenPipeError:  # the host went away while we answered
        return 0
    except KeyboardInterrupt:
        return 130
    return 0


__all__ = ["PROTOCOL_VERSION", "rules_from_event", "serve_bot"]
