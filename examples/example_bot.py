#!/usr/bin/env python3
"""An example bot for the liverpool bot protocol, version 1 (docs/bot-protocol.md).

Standard library only. It plays legally and simply: it goes down whenever it can, lays off
whatever it can, and otherwise picks a random legal action (seeded by the game_start "seed", so
a tournament gives the same results every time). Run it by hand to see the protocol:

    liverpool simulate --games 4 --bots 'cmd:python examples/example_bot.py',basic,basic,basic

Everything the bot prints to standard output must be a protocol message, one JSON object per
line; diagnostics go to standard error.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

NAME = "example (goes down, lays off, else random)"
PREFERRED = ("go_down", "lay_off")


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without it the answer sits in a buffer and the host waits in vain


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    for kind in PREFERRED:
        options = [a for a in legal if a["type"] == kind]
        if options:
            return options[0]
    return rng.choice(legal)


def main() -> int:
    rng = random.Random()
    for line in sys.stdin:  # the host closes our input when it is done with us
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": NAME})
        elif kind == "game_start":
            rng = random.Random(message.get("seed"))
        elif kind == "decide":
            action = choose(message["legal"], rng)
            send({"type": "action", "id": message["id"], "action": action})
        elif kind == "error":
            print(f"the host replaced me: {message['message']}", file=sys.stderr)
        elif kind == "quit":
            break
        # hand_start, hand_end, game_end: nothing to do for this bot
    return 0


if __name__ == "__main__":
    sys.exit(main())
