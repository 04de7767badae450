"""``liverpool soak``: many games of random legal play on all cores, with invariant checks.

Game ``i`` of a run plays preset ``PRESET_NAMES[i % 5]`` with the ``(i // 5)``-th player count
the preset allows (cycling), seeded by ``game_seed(base_seed, i)``. With ``--random-rules`` game
``i`` plays instead a random rule set (``random_rules``: a random preset with random overrides
of nearly every knob, and a player count it accepts) drawn from ``game_seed(base_seed, i,
"rules")``. Each game is a pure function of (preset, overrides, players, seed,
checked-every-action), so results do not depend on the worker count; its choices are exactly
those of ``randomplay.random_game(rules, players, seed)``, which reproduces any game a violation
names.

Invariants (docs/rules.md, The game):
* cards are conserved: hands + stock + discard pile + table melds == the pack, as multisets
  (and no card appears more often than the pack holds it);
* sizes are consistent: a new hand deals the deal size to every seat, turns up one card and
  leaves the rest as stock; an empty hand belongs to a seat that is out or floating; each
  action moves the cards it names (a discard adds one card on top of the pile, a lay-off moves
  one card from hand to a meld, a go-down moves exactly its melds, ...); every meld's owner is
  down; a seat's view agrees with the state;
* some seat can always act: until the game is over ``to_act`` names a seat, and (in the games
  checked after every action) every seat it names has a legal action;
* every action the engine lists for the seat to act is accepted by ``apply``, and the game ends;
* at each hand's end the score rows have one entry per seat and the totals are their sums;
* at the game's end, replaying its record (through JSON) reaches the same state (``snapshot``).

The first ``--every-action`` games are checked after every action; all games at every hand's
end and at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .actions import Action
from .bots.base import RandomBot
from .cards import JOKER, Card, card_str, cards_str
from .engine import Event, Game, HandEnded, HandStarted, IllegalActionError, Phase
from .engine.events import Drew, GameEnded, Gave
from .match import Match
from .record import game_record, replay
from .rules import (
    BUY_PRIORITY,
    GOING_OUT,
    JOKER_SWAP,
    PLAYABLE_DISCARD,
    PRESET_NAMES,
    PRESETS,
    RuleSet,
)

MAX_ACTIONS = 500_000  # far above any game the turn limit allows; reaching it is a violation
MAX_VIOLATIONS_PER_GAME = 5
CHUNK = 4  # games per task sent to a worker (fewer round trips, still a smooth progress bar)

_SNAPSHOT_FIELDS = (
    "phase", "hand_index", "dealer", "hands", "stock", "discard", "melds", "down", "floating",
    "out", "buys", "known", "penalties", "reshuffles", "turns", "final_queue", "fresh",
    "discarder", "turn", "taken", "must_play", "gd_swaps", "went_down_now", "need_layoff",
    "bonus_laid", "asked", "pending_draw", "window_mode", "bonus_caller", "scores", "totals",
    "progress", "winners", "rng",
)


@dataclass(frozen=True, slots=True)
class GameSpec:
    index: int
    preset: str
    players: int
    seed: int
    every_action: bool
    overrides: str = ""  # JSON object of knob overrides (random rule sets); "" for none

    def rules(self) -> RuleSet:
        return RuleSet.preset(self.preset, json.loads(self.overrides) if self.overrides else {})

    def describe(self) -> str:
        return f"{self.preset} {self.overrides}" if self.overrides else self.preset


@dataclass(frozen=True, slots=True)
class Violation:
    index: int
    preset: str
    players: int
    seed: int
    action_index: int  # index in the record's actions (-1: before any action)
    message: str
    overrides: str = ""


@dataclass(slots=True)
class GameResult:
    spec: GameSpec
    actions: int = 0
    hands: int = 0
    seconds: float = 0.0
    violations: list[Violation] = field(default_factory=list)


def game_seed(base: int, index: int, what: str = "") -> int:
    """A seed for game ``index`` of a run with ``base`` seed (48 bits, stable everywhere);
    ``what`` names another use of the same game (``"rules"``: its random rule set)."""
    tag = f"liverpool-soak{'-' + what if what else ''}:{base}:{index}"
    digest = hashlib.blake2b(tag.encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


def game_specs(games: int, base: int, every_action: int, random_rule_sets: bool = False
               ) -> list[GameSpec]:
    """Presets rotate game by game; each preset cycles through the player counts it allows.
    With ``random_rule_sets`` each game has its own random rule set and player count."""
    specs = []
    for i in range(games):
        if random_rule_sets:
            rr = random_rules(random.Random(game_seed(base, i, "rules")))
            specs.append(GameSpec(i, rr.preset, rr.players, game_seed(base, i),
                                  i < every_action, json.dumps(rr.overrides, sort_keys=True)))
            continue
        preset = PRESET_NAMES[i % len(PRESET_NAMES)]
        rules = RuleSet.preset(preset)
        counts = range(rules.min_players, rules.max_players + 1)
        players = counts[(i // len(PRESET_NAMES)) % len(counts)]
        specs.append(GameSpec(i, preset, players, game_seed(base, i), i < every_action))
    return specs


# ---- random rule sets -------------------------------------------------------------------------

OWN_MAX_HANDS = 3  # hands of a random 'own' game at most
HANDS_MAX = 3  # hands of a random 'all' game at most (a 'hands' sub-list)
TURN_LIMIT_MAX = 40  # regular turns per hand at most in most random rule sets
TURN_LIMIT_LONG = 120  # ... and in the others (one in five)


@dataclass(frozen=True, slots=True)
class RandomRules:
    """A rule set no preset need have: a preset, knob overrides over it, and a player count the
    rule set accepts whose table the pack can deal."""

    preset: str
    overrides: dict[str, Any]
    players: int

    def rules(self) -> RuleSet:
        return RuleSet.preset(self.preset, self.overrides)

    def describe(self) -> str:
        return f"{self.preset} {json.dumps(self.overrides, sort_keys=True)} {self.players}p"


def random_rules(rng: random.Random, preset: str | None = None) -> RandomRules:
    """Overrides for (nearly) every knob of a random preset, each knob overridden about half the
    time, within sane bounds and always a combination ``RuleSet.check`` accepts; then a player
    count in the rule set's range whose deal fits the pack. ``turn_limit`` and the number of
    hands are always kept small so that a game stays short. ``preset`` fixes the preset.

    The ONE definition of a random rule set: ``liverpool soak --random-rules`` draws from it with
    a seeded ``random.Random``, the property tests (tests/strategies.py) with hypothesis's random
    (whose draws shrink to 0: so a draw of 0 keeps the preset's value, or picks the first,
    simplest option)."""
    if preset is None:
        preset = PRESET_NAMES[rng.randrange(len(PRESET_NAMES))]
    base = PRESETS[preset]
    o: dict[str, Any] = {}

    def cur(knob: str) -> Any:
        return o[knob] if knob in o else getattr(base, knob)

    def maybe() -> bool:  # override this knob? (about half the time; a draw of 0 says no)
        return rng.randrange(10) >= 5

    def pick(options: Sequence[Any]) -> Any:
        return options[rng.randrange(len(options))]

    # ---- table and deal
    if maybe():
        lo = rng.randint(2, 8)
        o["min_players"], o["max_players"] = lo, rng.randint(lo, 8)
    if maybe():
        if rng.randrange(2):
            o["decks"] = rng.randint(1, 3)
        else:  # steps: fewer decks for small tables
            o["decks"] = [[4, rng.randint(1, 2)], [8, rng.randint(2, 3)]]
    if maybe():
        o["jokers_per_deck"] = pick((0, 1, 2, 3, 4, 8))
    if maybe():
        o["deuces_wild"] = not base.deuces_wild
    # ---- melds
    if maybe():
        o["min_set"] = pick((3, 2, 4))
    if maybe():
        o["min_run"] = pick((4, 3, 5, 6))
    if maybe():
        o["naturals"] = None if rng.randrange(3) == 0 else \
            [rng.randint(1, cur("min_set")), rng.randint(1, cur("min_run"))]
    elif cur("naturals") is not None:  # keep the preset's floor within the new minimums
        s, r = cur("naturals")
        if s > cur("min_set") or r > cur("min_run"):
            o["naturals"] = [min(s, cur("min_set")), min(r, cur("min_run"))]
    if maybe():
        o["extra_melds_at_go_down"] = True
    if maybe():
        o["final_all_out"] = not base.final_all_out
    # ---- contracts, deals and the hands played
    if rng.randrange(10) >= 8:
        o["progression"] = "own"
        o["own_max_hands"] = rng.randint(1, OWN_MAX_HANDS)
    contracts = cur("contracts")
    exact = any(c.set_size is not None or c.run_size is not None for c in contracts)
    if maybe() or (exact and (cur("min_set") > 3 or cur("min_run") > 4)):
        new = []
        for _ in range(rng.randint(1, 7)):
            sets = rng.randint(0, 3)
            runs = rng.randint(0 if sets else 1, 3 - sets)
            c: dict[str, int] = {"sets": sets, "runs": runs}
            if sets and rng.randrange(6) == 5:
                c["set_size"] = rng.randint(cur("min_set"), cur("min_set") + 2)
            if runs and rng.randrange(6) == 5:
                c["run_size"] = rng.randint(cur("min_run"), min(13, cur("min_run") + 4))
            new.append(c)
        o["contracts"] = new
    n_contracts = len(o["contracts"]) if "contracts" in o else len(base.contracts)
    if cur("progression") == "all":
        o["hands"] = [rng.randint(1, n_contracts) for _ in range(rng.randint(1, HANDS_MAX))]
    deal_count = n_contracts if cur("progression") == "all" else rng.randint(1, 7)
    if "contracts" in o or maybe() or len(base.deal_sizes) != deal_count:
        # mostly 6..13 cards; one in five lists may hold tiny or large deals
        wide = rng.randrange(5) == 0
        o["deal_sizes"] = [rng.randint(1, 15) if wide else rng.randint(6, 13)
                           for _ in range(deal_count)]
    # ---- table play
    if maybe():
        o["layoff_same_turn"] = not base.layoff_same_turn
    if maybe():
        o["layoff_needs_second_down"] = not base.layoff_needs_second_down
    if maybe():
        o["joker_swap"] = pick(JOKER_SWAP)
    if maybe():
        o["swap_needs_down"] = not base.swap_needs_down
    if maybe():
        o["swapped_joker_must_be_played"] = not base.swapped_joker_must_be_played
    if not cur("swap_needs_down") and cur("swapped_joker_must_be_played") \
            and cur("deuces_wild") and cur("joker_swap") != "none":  # refused by check()
        knob = pick(("swap_needs_down", "swapped_joker_must_be_played", "deuces_wild"))
        o[knob] = not cur(knob)
    if maybe() or (cur("swap_at_go_down") and cur("joker_swap") == "none"):
        o["swap_at_go_down"] = 0 if cur("joker_swap") == "none" else rng.randint(0, 2)
    if cur("swap_at_go_down") > 1 and cur("deuces_wild"):  # refused by check()
        o["swap_at_go_down"] = 1
    if maybe():
        o["borrow"] = not base.borrow
    # ---- going out and discarding
    if maybe():
        o["going_out"] = pick(GOING_OUT)
    if maybe() or (cur("layoff_instead_of_draw") and cur("going_out") == "float"):
        o["layoff_instead_of_draw"] = cur("going_out") != "float" and rng.randrange(2) == 1
    if maybe():
        o["no_discard_of_taken_card"] = not base.no_discard_of_taken_card
    if maybe():
        o["fits_own_melds"] = not base.fits_own_melds
    if maybe():
        o["down_may_take_discard"] = not base.down_may_take_discard
    calls = PLAYABLE_DISCARD if cur("down_may_take_discard") else \
        tuple(m for m in PLAYABLE_DISCARD if m not in ("bonus", "standard"))
    if maybe() or cur("playable_discard") not in calls:
        o["playable_discard"] = pick(calls)
    # ---- buying
    if maybe():
        o["buying"] = not base.buying
    if maybe():
        o["penalty_cards"] = pick((1, 0, 2, 3))
    if maybe():
        o["max_buys"] = pick((None, 0, 1, 2, 3))
    if maybe():
        o["buy_priority"] = pick(BUY_PRIORITY)
    if maybe() or (cur("deep_pickup") and not cur("buying")):
        o["deep_pickup"] = cur("buying") and rng.randrange(2) == 1
    # ---- ends of hands and scoring
    if maybe():
        o["stock_reshuffles"] = pick((2, 0, 1, 3))
    # short hands mostly; some long enough to renew and run out the stock
    o["turn_limit"] = rng.randint(1, TURN_LIMIT_MAX) if rng.randrange(5) < 4 else \
        rng.randint(TURN_LIMIT_MAX + 1, TURN_LIMIT_LONG)
    if maybe():
        o["final_turns"] = not base.final_turns
    if maybe():
        o["card_points"] = [rng.randint(0, 50) for _ in range(14)]
    if maybe():
        o["rummy_points"] = rng.randint(0, 50)
    if maybe():
        o["cut_bonus"] = rng.randint(1, 50)
    # ---- the table: a player count in range, then deal sizes the pack can deal to it
    lo, hi = cur("min_players"), cur("max_players")
    players = rng.randint(lo, hi)
    decks = cur("decks")
    steps = [[8, decks]] if isinstance(decks, int) else [list(s) for s in decks]
    n_decks = next((d for top, d in steps if players <= top), steps[-1][1])
    cap = (n_decks * (52 + cur("jokers_per_deck")) - 1) // players
    sizes = list(cur("deal_sizes"))
    if max(sizes) > cap:
        o["deal_sizes"] = [min(d, cap) for d in sizes]
    return RandomRules(preset, o, players)


# ---- the checks -------------------------------------------------------------------------------

def _fmt(cards: Counter[Card]) -> str:
    return " ".join(f"{card_str(c)}x{k}" for c, k in sorted(cards.items()))


def pack_of(rules: RuleSet, players: int) -> Counter[Card]:
    """The pack from the rules alone: each deck's 52 cards and its jokers, times the decks."""
    decks = rules.decks_for(players)
    pack: Counter[Card] = Counter({c: decks for c in range(52)})
    if rules.jokers_per_deck:
        pack[JOKER] = decks * rules.jokers_per_deck
    return pack


def cards_seen(game: Game) -> Counter[Card]:
    """Every card where the state's fields put it: hands, table melds, discard pile, stock."""
    seen: Counter[Card] = Counter()
    for h in game.hands:
        seen.update(h)
    for m in game.melds:
        seen.update(m.cards)
    seen.update(game.discard)
    seen.update(game.stock)
    return seen


def check_can_act(game: Game) -> list[str]:
    """Until the game is over some seat is to act, and every seat named has a legal action
    (docs/rules.md: no dead ends)."""
    if game.over:
        return []
    seats = game.to_act()
    if not seats:
        return [f"no seat is to act in phase {game.phase.value}"]
    return [f"dead end: seat {s} is to act in phase {game.phase.value} but has no legal action "
            f"(hand {cards_str(game.hands[s])}, must play {cards_str(game.must_play)}, "
            f"swapped to go down {cards_str(game.gd_swaps)})"
            for s in seats if not game.legal_actions(s)]


def check_cards(game: Game, pack: Counter[Card]) -> list[str]:
    seen = cards_seen(game)
    if seen == pack:
        return []
    out = []
    extra = seen - pack
    missing = pack - seen
    if extra:
        out.append(f"cards beyond the pack's counts: {_fmt(extra)}")
    if missing:
        out.append(f"cards missing from the game: {_fmt(missing)}")
    return out


def check_places(game: Game, seats: Iterable[int]) -> list[str]:
    """Hand sizes, melds' owners and the given seats' views against the state."""
    out = []
    if not game.over:
        for s, h in enumerate(game.hands):
            if not h and not (game.out[s] or game.floating[s]):
                out.append(f"seat {s} holds no card but is neither out nor floating")
            busy = game.phase in (Phase.PLAY, Phase.BONUS) and s in game.to_act()
            if game.floating[s] and h and not busy:
                out.append(f"seat {s} floats between turns holding {len(h)} card(s)")
        for i, m in enumerate(game.melds):
            if not 0 <= m.owner < game.n or not game.down[m.owner]:
                out.append(f"meld {i} belongs to seat {m.owner}, who is not down")
    for s in seats:
        v = game.view_for(s)
        if v.hand_sizes != tuple(len(h) for h in game.hands):
            out.append(f"seat {s}'s view has hand sizes {v.hand_sizes}")
        if v.stock_size != len(game.stock):
            out.append(f"seat {s}'s view has stock size {v.stock_size}, not {len(game.stock)}")
        if v.discard != tuple(game.discard):
            out.append(f"seat {s}'s view of the discard pile differs from the pile")
        if sorted(v.hand) != sorted(game.hands[s]):
            out.append(f"seat {s}'s view of its own hand differs from its hand")
    return out


def check_new_hand(game: Game, pack_size: int) -> list[str]:
    """Right after a deal: the deal size to every seat, one upcard, the rest as stock."""
    size = game.deal_size()
    out = [f"seat {s} was dealt {len(h)} cards, not {size}"
           for s, h in enumerate(game.hands) if len(h) != size]
    if len(game.discard) != 1:
        out.append(f"a new hand starts with {len(game.discard)} discards, not 1")
    if len(game.stock) != pack_size - game.n * size - 1:
        out.append(f"a new hand's stock holds {len(game.stock)} cards, not "
                   f"{pack_size - game.n * size - 1}")
    if game.melds or any(game.down):
        out.append("a new hand starts with melds on the table")
    return out


def check_scores(game: Game) -> list[str]:
    out = []
    if game.rules.progression == "all" and len(game.scores) != game.hand_index:
        out.append(f"{len(game.scores)} score rows after {game.hand_index} hands")
    for i, row in enumerate(game.scores):
        if len(row) != game.n:
            out.append(f"score row {i} has {len(row)} entries for {game.n} seats")
    for s in range(game.n):
        total = sum(row[s] for row in game.scores if len(row) == game.n)
        if game.totals[s] != total:
            out.append(f"seat {s}'s total is {game.totals[s]}, its rows sum to {total}")
    return out


def check_end(game: Game) -> list[str]:
    out = []
    if game.rules.progression == "all":
        low = min(game.totals)
        want = tuple(s for s in range(game.n) if game.totals[s] == low)
        if tuple(game.winners) != want:
            out.append(f"winners {game.winners}, lowest totals {want}")
    rec = json.loads(json.dumps(game_record(game)))
    try:
        res = replay(rec)
    except ValueError as e:
        return [*out, f"the record does not replay: {e}"]
    if res.error is not None:
        out.append(f"replay stops at action {res.error['number']}: "
                   f"{res.error['reason']}")
    mine, theirs = game.snapshot(), res.game.snapshot()
    if mine != theirs:
        names = _SNAPSHOT_FIELDS if len(mine) == len(_SNAPSHOT_FIELDS) else \
            tuple(str(i) for i in range(len(mine)))
        diff = [n for n, a, b in zip(names, mine, theirs, strict=False) if a != b]
        out.append(f"replayed state differs from the live one in: {', '.join(diff)}")
    return out


def _sizes(game: Game) -> tuple[list[int], int, int, int, int]:
    return ([len(h) for h in game.hands], len(game.stock), len(game.discard), len(game.melds),
            sum(len(m.cards) for m in game.melds))


def check_action(before: tuple[list[int], int, int, int, int], game: Game, a: Action,
                 told: Event) -> list[str]:
    """The cards ``a`` names moved where it says, ``told`` being the engine's event of ``a``
    itself (its first; same hand only: the caller drops the findings of an action that ended
    the hand)."""
    hands0, _, pile0, melds0, meld_cards0 = before
    hands1, _, pile1, melds1, meld_cards1 = _sizes(game)
    p = a.player
    d = hands1[p] - hands0[p]
    out = []

    def want(delta: int, what: str) -> None:
        if d != delta:
            out.append(f"{a.type}: {what} hand changed by {d}, not {delta}")

    if a.type == "take_discard":
        want(1, "the taker's")
        if pile1 != pile0 - 1:
            out.append(f"take_discard: the pile went from {pile0} to {pile1}")
    elif a.type == "discard":
        want(-1, "the discarder's")
        if pile1 != pile0 + 1 or game.discard[-1] != a.card:
            out.append("discard: the card is not on top of the pile")
    elif a.type == "lay_off":
        want(-1, "the player's")
        if (melds1, meld_cards1) != (melds0, meld_cards0 + 1):
            out.append("lay_off: the table did not gain exactly one card")
    elif a.type == "go_down":
        k = sum(len(m) for m in a.melds or ())
        want(-k, "the player's")
        if (melds1, meld_cards1) != (melds0 + len(a.melds or ()), meld_cards0 + k):
            out.append("go_down: the table did not gain exactly the melds")
    elif a.type == "swap_joker":
        want(0, "the player's")
        if meld_cards1 != meld_cards0:
            out.append("swap_joker: the table's card count changed")
    elif a.type == "borrow":
        k = len(a.new_meld or ()) - 1
        want(-k, "the player's")
        if (melds1, meld_cards1) != (melds0 + 1, meld_cards0 + k):
            out.append("borrow: the table did not gain exactly the cards from hand")
    elif a.type == "give":
        want(-1, "the giver's")
        if not isinstance(told, Gave):
            out.append(f"give: the engine told {told.kind}, not gave")
        elif hands1[told.to] != hands0[told.to] + 1:
            out.append("give: the discarder did not receive one card")
    elif a.type == "buy":
        depth = a.depth or 1
        want(depth + game.rules.penalty_cards, "the buyer's")
    elif a.type == "draw" and isinstance(told, Drew):
        # drawn at once, or once the buy round over the discard ends
        want(0 if told.buy_round else 1, "the drawer's")
    elif a.type == "no_draw":
        want(0, "the drawer's")
    return out


# ---- one game -------------------------------------------------------------------------------

class _Stop(Exception):
    """Raised by the checks to end a game that has shown enough."""


def play_checked(spec: GameSpec) -> GameResult:
    """Play one game by random legal play, checking invariants; a pure function of ``spec``.
    The game is driven by a match of random players (buy rounds and call windows settled as in
    every other game); the checks listen to it, so an action applied while a window settles is
    checked like any other."""
    t0 = time.perf_counter()
    res = GameResult(spec)
    rules = spec.rules()
    game = Game(rules, spec.players, seed=spec.seed)
    pack = pack_of(rules, spec.players)
    pack_size = sum(pack.values())
    every = spec.every_action

    def report(i: int, messages: list[str]) -> bool:
        for m in messages:
            if len(res.violations) < MAX_VIOLATIONS_PER_GAME:
                res.violations.append(Violation(spec.index, spec.preset, spec.players,
                                                spec.seed, i, m, spec.overrides))
        return bool(messages)

    # the state before the next action: what the checks of an action compare against
    before = _sizes(game) if every else None
    seen = len(game.actions)  # actions whose events the checks have heard
    # an action's card-movement findings, held until its events show whether it ended the hand
    # (sizes before and after a deal do not compare)
    held: tuple[int, list[str]] | None = None

    def stop_on(i: int, messages: list[str]) -> None:
        if report(i, messages) and len(res.violations) >= MAX_VIOLATIONS_PER_GAME:
            raise _Stop

    def release() -> None:
        nonlocal held
        if held is not None:
            i, messages = held
            held = None
            stop_on(i, messages)

    def heard(event: Event) -> None:
        """The checks, told every event of the match in order; each action's first event is
        the action's own, heard with the game as the action (and all it set off) left it."""
        nonlocal before, seen, held
        i = len(game.actions) - 1
        if isinstance(event, HandEnded):
            held = None
        elif isinstance(event, HandStarted | GameEnded):
            msgs = check_cards(game, pack) + check_places(game, range(game.n)) \
                + check_scores(game)
            if isinstance(event, HandStarted):
                msgs += check_new_hand(game, pack_size)
            stop_on(i, msgs)
        elif len(game.actions) != seen:
            seen = len(game.actions)
            release()
            if every:
                msgs = check_cards(game, pack) + check_places(game, game.to_act()[:1])
                stop_on(i, msgs)
                if before is not None:
                    held = (i, check_action(before, game, game.actions[-1], event))
                stop_on(i + 1, check_can_act(game))
                before = _sizes(game)

    report(-1, check_cards(game, pack) + check_new_hand(game, pack_size))
    match = Match(game, [RandomBot()] * spec.players, listener=heard)
    with contextlib.suppress(_Stop):
        if every and report(0, check_can_act(game)):
            raise _Stop
        while not game.over:
            i = len(game.actions)
            if i >= MAX_ACTIONS:
                report(i, [f"the game did not end within {MAX_ACTIONS} actions"])
                break
            try:
                d = match.decision()  # applies what settles a buy round or call window
            except _Stop:
                raise
            except Exception as e:
                report(i, [f"settling the {game.phase.value} phase for seat(s) {game.to_act()} "
                           f"failed: {e!r}"])
                break
            if d is None:
                break
            i = len(game.actions)
            try:
                a = match.bot_action(d.seat)
            except Exception as e:  # any crash while listing is a finding, not the end of the run
                stuck = check_can_act(game)
                report(i, stuck or [f"listing legal actions for seat(s) {game.to_act()} in "
                                    f"phase {game.phase.value} failed: {e!r}"])
                break
            try:
                match.play(a)
            except _Stop:
                raise
            except IllegalActionError as e:
                report(i, [f"listed action {a} was rejected: {e}"])
                break
            except Exception as e:
                report(i, [f"applying listed action {a} crashed: {e!r}"])
                break
    with contextlib.suppress(_Stop):
        release()
    if game.over:
        report(len(game.actions) - 1, check_scores(game) + check_end(game))
    elif not res.violations:
        report(len(game.actions), ["the game stopped before its end"])
    res.actions = len(game.actions)
    res.hands = len(game.scores)
    res.seconds = time.perf_counter() - t0
    return res


def _run_chunk(specs: Sequence[GameSpec]) -> list[GameResult]:
    return [play_checked(s) for s in specs]


# ---- the command ----------------------------------------------------------------------------

@dataclass
class PresetStats:
    games: int = 0
    actions: int = 0
    hands: int = 0
    violations: int = 0
    seconds: float = 0.0


def run(games: int, workers: int, seed: int, every_action: int,
        progress: Progress | None = None, random_rule_sets: bool = False) -> list[GameResult]:
    """All games' results, in game order (the same whatever ``workers`` is)."""
    specs = game_specs(games, seed, every_action, random_rule_sets)
    chunks = [specs[k:k + CHUNK] for k in range(0, len(specs), CHUNK)]
    task = progress.add_task("soak", total=len(specs)) if progress else None
    results: list[GameResult] = []

    def done(batch: list[GameResult]) -> None:
        results.extend(batch)
        if progress is not None and task is not None:
            progress.advance(task, len(batch))

    if workers <= 1:
        for chunk in chunks:
            done(_run_chunk(chunk))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # keep a bounded number of chunks in flight so progress is live and memory flat
            pending: set[Future[list[GameResult]]] = set()
            queue = iter(chunks)
            for chunk in queue:
                pending.add(pool.submit(_run_chunk, chunk))
                if len(pending) >= workers * 4:
                    break
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    done(f.result())
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending.add(pool.submit(_run_chunk, nxt))
    results.sort(key=lambda r: r.spec.index)
    return results


def summarize(results: Sequence[GameResult]) -> dict[str, PresetStats]:
    stats = {name: PresetStats() for name in PRESET_NAMES}
    for r in results:
        st = stats[r.spec.preset]
        st.games += 1
        st.actions += r.actions
        st.hands += r.hands
        st.violations += len(r.violations)
        st.seconds += r.seconds
    return stats


def main(args: argparse.Namespace) -> int:
    games = int(args.games)
    workers = int(args.workers) or os.cpu_count() or 1
    every = int(args.every_action)
    randomized = bool(getattr(args, "random_rules", False))
    console = Console()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    t0 = time.perf_counter()
    with progress:
        results = run(games, workers, int(args.seed), every, progress, randomized)
    wall = time.perf_counter() - t0
    stats = summarize(results)
    table = Table(title=f"liverpool soak: {games:,} games"
                        f"{' of random rule sets' if randomized else ''}, seed {args.seed}, "
                        f"{workers} worker(s), first {min(every, games):,} checked after every "
                        f"action")
    first = "preset (overridden)" if randomized else "preset"
    for col in (first, "games", "hands", "actions", "violations", "time (s)"):
        table.add_column(col, justify="left" if col.startswith("preset") else "right")
    total = PresetStats()
    for name, st in stats.items():
        table.add_row(name, f"{st.games:,}", f"{st.hands:,}", f"{st.actions:,}",
                      f"[red]{st.violations}[/]" if st.violations else "0", f"{st.seconds:.1f}")
        total.games += st.games
        total.hands += st.hands
        total.actions += st.actions
        total.violations += st.violations
        total.seconds += st.seconds
    table.add_row("total", f"{total.games:,}", f"{total.hands:,}", f"{total.actions:,}",
                  str(total.violations), f"{total.seconds:.1f}", style="bold")
    console.print(table)
    console.print(f"wall time {wall:.1f} s (per-preset times are summed over workers)")
    bad = [v for r in results for v in r.violations]
    if bad:
        console.print(f"[red]{len(bad)} violation(s)[/]; the first few (reproduce with "
                      f"randomplay.random_game(RuleSet.preset(preset"
                      f"{', overrides' if randomized else ''}), players, seed)):")
        for v in bad[:10]:
            rules = f" overrides {v.overrides}" if v.overrides else ""
            console.print(f"  game {v.index} {v.preset}{rules} {v.players}p seed {v.seed} "
                          f"action {v.action_index}: {v.message}", markup=False)
        return 1
    console.print("[green]no violations[/]")
    return 0


if __name__ == "__main__":  # python -m liverpool.soak --games 100
    _p = argparse.ArgumentParser(prog="python -m liverpool.soak")
    _p.add_argument("--games", type=int, default=10_000)
    _p.add_argument("--workers", type=int, default=0)
    _p.add_argument("--seed", type=int, default=0)
    _p.add_argument("--every-action", type=int, default=1_000)
    _p.add_argument("--random-rules", action="store_true")
    sys.exit(main(_p.parse_args()))
