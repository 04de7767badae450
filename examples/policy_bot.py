#!/usr/bin/env python3
"""Seat a policy trained by ``examples/train_reinforce.py`` wherever the project seats a bot,
through the bot protocol (docs/bot-protocol.md: JSON lines on standard input and output).

    python examples/train_reinforce.py --out w.npz
    liverpool simulate --rules arena --players 2 --games 20 \\
        --bots 'cmd:python examples/policy_bot.py --weights w.npz',level:1
    liverpool play --rules arena --players 2 \\
        --bots 'cmd:python examples/policy_bot.py --weights w.npz'

Domain words: *host* (the program running the game, writing to our input), *world* (a game
consistent with the seat's view, ``Game.from_view``: the cards hidden from the seat dealt at
random; the seat's own legal actions are the same in it as at the real table), *spelling* (the
policy picks one id of the action-id space at a time, ``rl.codec.Choice``, until the ids make a
whole engine action).

At each ``decide`` the bot rebuilds the seat's view (``SeatView.from_json`` with the rule set of
``game_start``), opens a ``Choice`` over a world of that view, and lets the policy choose ids,
each from the observation the learning environment would give (``rl.observe`` of the view and
the ids chosen so far), until the action is complete; it answers with that engine action.
``PolicyBot`` is also a ``Bot`` in its own right, for seating the policy in-process
(``liverpool.match.Match``, ``liverpool.rl.aec`` via ``train_reinforce.seat_bot``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # train_reinforce, beside this file

from train_reinforce import Policy

from liverpool.actions import Action
from liverpool.bots.stdio import rules_from_event
from liverpool.engine import Game, SeatView
from liverpool.rl.codec import Choice
from liverpool.rl.observe import observe
from liverpool.rules import RulesError, RuleSet

NAME = "reinforce policy (examples/policy_bot.py)"


class PolicyBot:
    """The trained policy as a ``Bot``: greedy over the ids, spelled on a world of the view."""

    name = "reinforce"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._tables: dict[tuple[str, int], Policy] = {}

    def for_table(self, rules: RuleSet, players: int) -> Policy:
        key = (repr(rules), players)
        if key not in self._tables:
            self._tables[key] = self.policy.for_table(rules, players)
        return self._tables[key]

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        assert view.seat is not None
        policy = self.for_table(view.ruleset, len(view.players))
        choice = Choice(Game.from_view(view, rng), view.seat, legal)
        while True:
            ids = choice.legal()
            token = ids[0]
            if len(ids) > 1:
                obs = observe(view, choice.prefix, policy.features.layout)
                token, _, _ = policy.pick(obs, ids, None)
            done = choice.choose(token)
            if done is not None:
                return done


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # without it the answer waits in a buffer until the host's time limit


def serve(bot: PolicyBot, lines: Any) -> int:
    """Answer the host's messages (``lines``) on standard output until ``quit``."""
    rng = random.Random(0)
    rules: RuleSet | None = None
    for line in lines:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": NAME})
        elif kind == "game_start":
            rng = random.Random(message.get("seed"))
            try:
                rules = rules_from_event(message.get("rules"))
            except RulesError as e:
                print(f"policy bot: cannot read the rules ({e}); using the view's preset",
                      file=sys.stderr)
                rules = None
        elif kind == "decide":
            obj = message["view"]
            view = SeatView.from_json(obj, rules or RuleSet.preset(obj["rules"]))
            legal = [Action.from_json(a) for a in message["legal"]]
            action = bot.choose(view, legal, rng)
            send({"type": "action", "id": message["id"], "action": action.to_json()})
        elif kind == "error":
            print(f"policy bot: the host replaced me: {message.get('message')}",
                  file=sys.stderr)
        elif kind == "quit":
            break
        # hand_start, hand_end, game_end: nothing to do
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="a trained policy over the bot protocol")
    p.add_argument("--weights", default="weights.npz", help="saved by train_reinforce.py")
    args = p.parse_args(argv)
    return serve(PolicyBot(Policy.load(args.weights)), sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
