"""Built-in bots served over the bot protocol (``liverpool bot LEVEL``, ``bots/stdio.py``) and
the view's JSON they rebuild their state from.

Checked: ``SeatView.from_json`` inverts ``to_json`` at every decision of random games of every
preset (a run that reads two ways with deuces wild included), and the JSON holds nothing hidden;
``serve_bot``, driven in-process by a host loop, plays whole games of every preset with legal
answers only and exactly the actions the built-in bot plays from the same seed; the real
command plays through the simulator with no incident (``basic``, ``expert:2it``); a ``cmd:``
level is refused; malformed host lines are reported and skipped; the JavaScript example bot
plays through ``liverpool simulate`` when Node is installed.
"""

from __future__ import annotations

import dataclasses
import io
import json
import queue
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liverpool.actions import Action
from liverpool.bots import make_bot
from liverpool.bots.base import bot_observe
from liverpool.bots.external import (
    bot_seed,
    decide_message,
    game_start_event,
)
from liverpool.bots.stdio import rules_from_event, serve_bot
from liverpool.cards import parse_cards
from liverpool.engine import Event, Game, SeatView
from liverpool.events import protocol_events
from liverpool.melds import RUN, Meld
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.simulate import GameSpec, play_game

ROOT = Path(__file__).resolve().parent.parent
RULES = {name: RuleSet.preset(name) for name in PRESET_NAMES}
# the keys to_json wrote before the bot could rebuild the whole public state, and those added
OLD_KEYS = {"seat", "players", "rules", "phase", "to_act", "hand_number", "contract", "dealer",
            "turn", "hand", "hand_sizes", "known", "melds", "discard", "fresh", "stock_size",
            "down", "floating", "out", "buys", "progress", "scores", "totals", "penalties",
            "taken", "must_play", "winners", "discarder", "asked"}
NEW_KEYS = {"hand_index", "window_mode", "pending_draw", "reshuffles", "turns_played",
            "final_queue", "bonus_caller", "go_down_swaps", "went_down_this_turn",
            "must_lay_off", "bonus_laid_off"}
HOST_WAIT = 120.0  # seconds the host loop waits for an answer before giving up (never asserted)


def bot_command(level: str) -> str:
    return f"cmd:{shlex.quote(sys.executable)} -m liverpool.cli bot {level}"


# ---- the view's JSON -----------------------------------------------------------------------

def round_trip(view: SeatView, rules: RuleSet) -> SeatView:
    return SeatView.from_json(json.loads(json.dumps(view.to_json())), rules)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_view_json_round_trip(preset: str, data: st.DataObject) -> None:
    """At every decision of a random game, each acting seat's view survives its JSON."""
    rules = RULES[preset]
    players = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed * 7919 + 1)
    while True:
        for seat in game.to_act() or range(players):
            view = game.view_for(seat)
            assert set(view.to_json()) == OLD_KEYS | NEW_KEYS
            assert round_trip(view, rules) == view, f"action {len(game.actions)}, seat {seat}"
        if game.over:
            break
        game.apply(random_action(game, rng))


def test_a_run_that_reads_two_ways_keeps_its_suit() -> None:
    """With deuces wild, 2C 2H JK is A-3 of hearts or 2-4 of clubs: the JSON says which."""
    rules = RULES["house"]
    view = Game(rules, 3, seed=1).view_for(0)
    hearts = Meld(1, RUN, tuple(parse_cards("2C 2H JK")), 1, 1)  # suit 1 = hearts, from the ace
    clubs = Meld(2, RUN, tuple(parse_cards("2C 2H JK")), 3, 2)
    view = view.replace(melds=(hearts, clubs))
    assert [(m["suit"], m["low"]) for m in view.to_json()["melds"]] == [("H", 1), ("C", 2)]
    assert round_trip(view, rules) == view


def test_a_view_from_an_earlier_host_still_reads() -> None:
    """Without the new keys (a host of an earlier version), a view rebuilds with turn-start
    values; a view that is not one is refused with ValueError."""
    rules = RULES["standard"]
    view = Game(rules, 4, seed=3).view_for(1)
    old = {k: v for k, v in view.to_json().items() if k in OLD_KEYS}
    for meld in old["melds"]:
        meld.pop("suit", None)
        meld.pop("low", None)
    # the first decision of a hand: only the count of turns played is not known
    assert SeatView.from_json(old, rules) == view.replace(turns=0)
    for bad in ([], {"seat": 0}, {**view.to_json(), "hand": ["ZZ"]},
                {**view.to_json(), "down": [1, 0, 0, 0]}):
        with pytest.raises(ValueError):
            SeatView.from_json(bad, rules)


@pytest.mark.parametrize(("key", "value", "words"), [
    ("dealer", "1", '"dealer" must be a whole number'),
    ("dealer", 1.0, '"dealer" must be a whole number'),
    ("seat", True, '"seat" must be a whole number'),
    ("fresh", "yes", '"fresh" must be true or false'),
    ("phase", 3, '"phase" must be text'),
    ("players", "ab", '"players" must be a list of names'),
    ("players", ["a", 2, "c", "d"], '"players" must be text'),
    ("known", [["5H"], "KS", [], []], '"known" must be a list of cards'),
    ("scores", 7, '"scores" must be a list of lists of whole numbers'),
    ("contract", [{"sets": "2", "runs": 0}], "a contract's sets must be a whole number"),
    ("contract", [{"sets": 2, "runs": 0, "size": 3}], "a contract is an object"),
    ("melds", {"owner": 0}, '"melds" must be a list of melds'),
])
def test_a_view_field_of_the_wrong_type_is_refused_by_name(key: str, value: Any,
                                                           words: str) -> None:
    """A field's value is read as its type or refused naming the field: text that spells a
    number, a number with a point, true or false where a number belongs are not converted."""
    rules = RULES["standard"]
    view = Game(rules, 4, seed=3).view_for(1).to_json()
    SeatView.from_json(view, rules)
    with pytest.raises(ValueError, match=re.escape(words)):
        SeatView.from_json({**view, key: value}, rules)


def test_the_view_json_shows_nothing_hidden() -> None:
    """The new keys are public: the view's JSON is the same in a world where every card hidden
    from the seat lies elsewhere, and it names no seed and no stock card."""
    rules = RULES["arena"]
    game = Game(rules, 4, seed=11)
    rng = random.Random(5)
    for _ in range(200):
        game.apply(random_action(game, rng))
    for seat in range(4):
        world = game.determinized(seat, random.Random(seat))
        assert world.view_for(seat).to_json() == game.view_for(seat).to_json()
        text = json.dumps(game.view_for(seat).to_json())
        assert "seed" not in text and "stock\"" not in text


# ---- serve_bot in-process -----------------------------------------------------------------

class _Lines:
    """The bot's standard output: complete lines go to the host's queue."""

    def __init__(self, out: queue.Queue[str]) -> None:
        self.out = out
        self.buffer = ""

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            self.out.put(line)
        return len(text)

    def flush(self) -> None:
        pass


class ServedBot:
    """``serve_bot`` in a thread of its own, its input and output joined to the host by
    queues, as a pipe would join them."""

    def __init__(self, level: str) -> None:
        self.level = level
        self._in: queue.Queue[str | None] = queue.Queue()
        self._out: queue.Queue[str] = queue.Queue()
        self.stderr = io.StringIO()
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.code = serve_bot(self.level, iter(self._in.get, None), _Lines(self._out),
                              self.stderr)

    def send(self, message: dict[str, Any] | str) -> None:
        self._in.put(message if isinstance(message, str) else json.dumps(message) + "\n")

    def receive(self) -> dict[str, Any]:
        line = self._out.get(timeout=HOST_WAIT)
        answer = json.loads(line)
        assert isinstance(answer, dict)
        return answer

    def silent(self) -> bool:
        return self._out.empty()

    def end(self, message: dict[str, Any] | None = None) -> int | None:
        """Send ``message`` (say, quit), then close the input; the bot's exit code."""
        if message is not None:
            self.send(message)
        self._in.put(None)
        self.thread.join(HOST_WAIT)
        assert not self.thread.is_alive(), "the bot did not end"
        return self.code


Chooser = Callable[[Game, int, list[Action]], Action]


def host_game(game: Game, choose: Chooser,
              after: Callable[[tuple[Event, ...]], None] = lambda events: None) -> Game:
    """Play ``game`` to its end: the seat to act (drawn as the simulator draws it when several
    may) picks with ``choose`` where it has a choice; ``after`` hears the engine's events of
    each action."""
    chooser = random.Random(game.seed ^ 0x5EED)
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else chooser.choice(seats)
        legal = game.legal_actions(seat)
        action = legal[0] if len(legal) == 1 else choose(game, seat, legal)
        after(game.apply(action))
    return game


def served_game(level: str, rules: RuleSet, players: int, seed: int) -> Game:
    """Every seat played by ``serve_bot(level)`` and told every event, as the simulator tells
    it; each answer must be a legal action for the decision's id."""
    bots = [ServedBot(level) for _ in range(players)]
    decisions = [0] * players
    for bot in bots:
        bot.send({"type": "hello", "protocol": 1, "host": "liverpool", "future_field": 1})
        hello = bot.receive()
        assert hello["type"] == "hello" and hello["protocol"] == 1
        assert hello["name"].startswith(f"liverpool {level} (")

    def tell(events: tuple[Event, ...] | list[Event]) -> None:
        """Each seat's messages for the engine's ``events``, as a host writes them."""
        for seat, bot in enumerate(bots):
            for told in protocol_events(events, seat):
                bot.send(as_written(told))

    def choose(game: Game, seat: int, legal: list[Action]) -> Action:
        decisions[seat] += 1
        bots[seat].send({"type": "news", "text": "unknown types are ignored"})
        bots[seat].send(decide_message(decisions[seat], game.view_for(seat), legal, 5.0))
        answer = bots[seat].receive()
        assert answer["type"] == "action" and answer["id"] == decisions[seat]
        action = Action.from_json(answer["action"])
        assert action in legal, f"seat {seat} answered {answer} outside the legal actions"
        return action

    game = Game(rules, players, seed=seed)
    for seat, bot in enumerate(bots):
        bot.send(game_start_event(game, seat))
    tell([game.hand_started()])
    host_game(game, choose, tell)
    for seat, bot in enumerate(bots):
        assert bot.end({"type": "quit"}) == 0
        assert bot.silent(), "the bot wrote more than its answers"
        assert bot.stderr.getvalue() == "", f"seat {seat} reported: {bot.stderr.getvalue()}"
    assert sum(decisions) > 0
    return game


def as_written(message: dict[str, Any]) -> dict[str, Any]:
    """A protocol message as the host writes it: an ``event``'s engine value in its JSON form."""
    if message["type"] == "event":
        return {"type": "event", "event": message["event"].to_json()}
    return message


def built_in_game(level: str, rules: RuleSet, players: int, seed: int) -> Game:
    """The same game with the built-in bots, each seeded as game_start seeds the served one
    and told the engine's events as a match tells them."""
    bots = [make_bot(level) for _ in range(players)]
    rngs = [random.Random(bot_seed(seed, s)) for s in range(players)]

    def tell(events: tuple[Event, ...] | list[Event]) -> None:
        for s, bot in enumerate(bots):
            for e in events:
                bot_observe(bot, e.for_seat(s))

    game = Game(rules, players, seed=seed)
    tell([game.hand_started()])
    return host_game(game, lambda g, s, legal: bots[s].choose(g.view_for(s), legal, rngs[s]),
                     tell)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("level", ["basic", "random"])
def test_served_bot_plays_as_the_built_in_one(preset: str, level: str) -> None:
    """A whole game per preset, every seat served over the protocol: legal answers only, no
    complaint on stderr, and exactly the built-in bot's actions from the same seeds."""
    rules = RULES[preset]
    players = max(3, rules.min_players)
    seed = 1000 + PRESET_NAMES.index(preset)
    served = served_game(level, rules, players, seed)
    assert served.over
    assert served.actions == built_in_game(level, rules, players, seed).actions


def test_served_expert_plays_as_the_built_in_one() -> None:
    """The expert searches worlds sampled from the rebuilt view with the seeded RNG: served or
    built in, it plays the same short game."""
    rules = RuleSet.preset("arena", {"hands": [1, 2]})
    served = served_game("expert:2it", rules, 3, 42)
    assert served.actions == built_in_game("expert:2it", rules, 3, 42).actions


def test_served_expert_follows_the_other_hand_as_the_built_in_one() -> None:
    """At a table of two the expert reads the other hand from the engine's events (its
    belief): served over the protocol, told the events as a host writes them, it plays the
    built-in expert's game, told them by a match."""
    rules = RuleSet.preset("arena", {"hands": [1, 2]})
    served = served_game("expert:2it", rules, 2, 43)
    assert served.actions == built_in_game("expert:2it", rules, 2, 43).actions


def test_a_served_bot_reports_an_event_it_cannot_read() -> None:
    bot = ServedBot("expert:2it")
    game = Game(RULES["arena"], 2, seed=3)
    bot.send({"type": "event", "event": game.hand_started().to_json()})  # no game_start yet
    bot.send({"type": "event", "event": game.hand_started().to_json()})
    bot.send(game_start_event(game, 0))
    bot.send({"type": "event", "event": {"type": "took", "seat": 1, "card": "ZZ"}})
    bot.send({"type": "event", "event": "drew"})
    bot.send({"type": "event", "event": game.hand_started().to_json()})
    assert bot.end() == 0
    assert bot.silent()
    log = bot.stderr.getvalue().strip().splitlines()
    assert len(log) == 3, log  # the first of the events before a game_start, then each bad one
    assert "events before a game_start" in log[0]
    assert "line 4: cannot read the event" in log[1] and "ZZ" in log[1]
    assert "line 5: cannot read the event" in log[2]


@pytest.mark.parametrize("level", ["level:2", "level:6"])
def test_served_ladder_level_plays_as_the_built_in_one(level: str) -> None:
    """A level of the ladder is served as the README says
    (``liverpool bot level:6``), playing the built-in level's game."""
    rules = RuleSet.preset("standard", {"hands": [1, 2]})
    served = served_game(level, rules, 3, 7)
    assert served.actions == built_in_game(level, rules, 3, 7).actions


def test_serve_bot_skips_what_it_cannot_read() -> None:
    """Malformed lines are reported on stderr and skipped; unknown types and fields are
    ignored; a decide before any game_start takes the rules from the view; stdin's end ends
    the bot."""
    bot = ServedBot("basic")
    bot.send("this is not JSON\n")
    bot.send("\n")
    bot.send("[1, 2]\n")
    bot.send({"type": "decide", "id": 1})  # no view, no legal actions
    bot.send({"type": "mystery", "payload": [1, 2, 3]})
    bot.send({"type": "hello", "protocol": 1, "extra": {"a": 1}})
    assert bot.receive()["type"] == "hello"
    game = Game(RULES["classic"], 3, seed=8)
    legal = game.legal_actions(game.to_act()[0])
    view = game.view_for(game.to_act()[0])
    broken = decide_message(2, view, legal, 5.0)
    broken["view"]["hand"] = ["nonsense"]
    bot.send(broken)
    message = decide_message(3, view, legal, 5.0)
    message["extra"] = "ignored"
    bot.send(message)
    answer = bot.receive()
    assert answer["id"] == 3 and Action.from_json(answer["action"]) in legal
    assert bot.end() == 0  # input closed, no quit
    assert bot.silent()
    log = bot.stderr.getvalue()
    assert "line 1 from the host is not JSON" in log
    assert "line 3 from the host is not a JSON object" in log
    assert "decide needs" in log and "cannot read decide" in log
    assert len(log.strip().splitlines()) == 4


def test_serve_bot_refuses_what_is_not_a_built_in_level() -> None:
    for level in ("cmd:x", "cmd@2s:python bot.py", "grandmaster", "expert:0it", "level:9",
                  "level:0"):
        out = io.StringIO()
        err = io.StringIO()
        assert serve_bot(level, iter(['{"type": "hello", "protocol": 1}\n']), out, err) == 2
        assert out.getvalue() == "" and err.getvalue()


def test_rules_from_game_start() -> None:
    rules = RuleSet.preset("house", {"hands": [2, 3], "max_buys": 1})
    event = game_start_event(Game(rules, 3, seed=1), 0)
    assert rules_from_event(event["rules"]) == rules
    # a preset this version does not know: the knobs still give the same rules
    unknown = {**event["rules"], "preset": "future"}
    assert dataclasses.replace(rules_from_event(unknown), name="house") == rules


# ---- the command ---------------------------------------------------------------------------

def test_bot_command_refuses_a_cmd_level() -> None:
    done = subprocess.run([sys.executable, "-m", "liverpool.cli", "bot", "cmd:x"],
                          input='{"type": "hello", "protocol": 1}\n', capture_output=True,
                          text=True, timeout=HOST_WAIT, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "external program" in done.stderr


def test_bot_command_through_the_simulator() -> None:
    """``liverpool bot basic`` seated with ``cmd:`` plays exactly as the built-in basic bot (which
    uses no random numbers), with no incident; ``liverpool bot expert:2it`` plays a short game
    with no incident."""
    seats = (bot_command("basic"), "basic", bot_command("basic"), "basic")
    spec = GameSpec(0, "standard", {"hands": [1, 2]}, seats, 77, bot_timeout=60.0)
    served = play_game(spec, keep_record=True)
    assert served.incidents == []
    plain = play_game(dataclasses.replace(spec, bots=("basic",) * 4), keep_record=True)
    assert served.record is not None and plain.record is not None
    assert served.record["actions"] == plain.record["actions"]

    spec = GameSpec(1, "house", {"hands": [1]}, (bot_command("expert:2it"), "basic", "basic"),
                    5, bot_timeout=60.0)
    result = play_game(spec)
    assert result.incidents == []
    assert len(result.hand_points) == 1


# ---- the JavaScript example bot -----------------------------------------------------------

@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_javascript_example_bot(preset: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    games, players = 2, 3
    bot = f"cmd:{shlex.quote(node)} {shlex.quote(str(ROOT / 'examples' / 'example_bot.js'))}"
    done = subprocess.run(
        [sys.executable, "-m", "liverpool.cli", "simulate", "--rules", preset,
         "--games", str(games), "--players", str(players), "--bots", f"{bot},basic,basic",
         "--bot-timeout", "60", "--workers", "1", "--seed", "3", "--json"],
        capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["incidents"] == []
    assert out["games"] == games
    assert sum(b["games"] for b in out["bots"]) == games * players
    assert sum(b["wins"] for b in out["bots"]) >= games  # every game finished with a winner
