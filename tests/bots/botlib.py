"""The loop the test bots share: handshake, then one answer per ``decide`` message.

Environment: ``BOT_PID_DIR`` (each bot process leaves an empty file named by its pid there, so
tests can check every process is gone), ``BOT_LOG`` (every line received is appended there),
``BOT_LINGER`` (seconds the bot stays after ``quit`` or the end of its input, like a bot that
ignores them: only the host's kill ends it).
A bot misbehaves at its decision number ``argv[1]`` (default 5) of every game.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

Answer = Callable[[dict[str, Any]], dict[str, Any] | None]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def fair(message: dict[str, Any]) -> dict[str, Any]:
    """A legal answer: go down or lay off when possible, else the first legal action."""
    legal = message["legal"]
    pick = next((a for a in legal if a["type"] in ("go_down", "lay_off")), legal[0])
    return {"type": "action", "id": message["id"], "action": pick}


def misbehave_at() -> int:
    return int(sys.argv[1]) if len(sys.argv) > 1 else 5


def run(name: str, answer: Answer) -> None:
    """Serve the protocol; ``answer`` is called for each decision in a game (counted from 1
    in ``message["n"]``) and returns the reply, or None to send nothing."""
    pid_dir = os.environ.get("BOT_PID_DIR")
    if pid_dir:
        with open(os.path.join(pid_dir, str(os.getpid())), "w"):
            pass
    log_path = os.environ.get("BOT_LOG")
    log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
    n = 0
    for line in sys.stdin:
        if log:
            log.write(line)
            log.flush()
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": name})
        elif kind == "game_start":
            n = 0
        elif kind == "decide":
            n += 1
            reply = answer({**message, "n": n})
            if reply is not None:
                send(reply)
        elif kind == "quit":
            break
    time.sleep(float(os.environ.get("BOT_LINGER", "0")))
