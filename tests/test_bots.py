"""The bots (random, basic, expert) and hints, seen from outside: every choice is a legal action,
games are reproducible from their seed, and a bot decides from its seat's view alone, so the
cards hidden from it (others' unknown cards, the stock) cannot change what it does.

Expert budgets are tiny here (``expert:2it``): the point is legality and information hiding,
not playing strength.
"""

from __future__ import annotations

import copy
import gc
import pickle
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import C, act, hand_of, stacked_game

from liverpool.actions import Action
from liverpool.bots import BasicBot, Bot, BotSpecError, ExpertBot, RandomBot, hint, make_bot
from liverpool.cards import card_str
from liverpool.engine import Game, SeatView
from liverpool.engine.state import STATE_FIELDS
from liverpool.record import replay
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.simulate import play_game, specs_for

LEVELS = ("random", "basic", "expert:2it", "level:3")

# One player count per preset, inside the preset's range (docs/rules.md (Presets): standard is 3-8,
# the others 2-8); varied so that 2, 3 and 4+ player tables all occur.
TABLES: dict[str, int] = {"hoyle": 4, "classic": 3, "arena": 2, "standard": 3, "house": 2}


def _drive(game: Game, bots: Sequence[Bot], seed: int, max_decisions: int = 20_000,
           on_decision: Any = None) -> int:
    """Play ``game`` to its end: at each decision the acting seat's bot chooses from that seat's
    view and legal actions; every choice must be one of the legal actions, and choosing must not
    touch the game. Returns the number of decisions."""
    rngs = [random.Random(seed * 31 + s) for s in range(len(bots))]
    picker = random.Random(seed)  # which seat acts when several may (first-call buy rounds)
    decisions = 0
    while not game.over:
        assert decisions < max_decisions, "the game does not end"
        seats = game.to_act()
        assert seats, "a game that is not over must wait for someone"
        seat = seats[0] if len(seats) == 1 else picker.choice(seats)
        legal = game.legal_actions(seat)
        assert legal, f"seat {seat} is asked to act but has no legal action"
        before = game.snapshot()
        action = bots[seat].choose(game.view_for(seat), legal, rngs[seat])
        assert game.snapshot() == before, f"{bots[seat].name} changed the game while choosing"
        assert action in legal, f"{bots[seat].name} chose {action.to_json()}, not a legal action"
        assert action.player == seat
        if on_decision is not None:
            on_decision(game, seat, action)
        game.apply(action)  # raises IllegalActionError if the engine disagrees with `legal`
        decisions += 1
    return decisions


def _check_finished(game: Game, rules: RuleSet) -> None:
    """A complete game: one score row per hand of the preset, totals are the rows' sums, and
    the winners are the seats with the lowest total (docs/rules.md, The game)."""
    assert len(game.scores) == len(rules.hand_list())
    for s in range(game.n):
        assert game.totals[s] == sum(row[s] for row in game.scores)
    low = min(game.totals)
    assert list(game.winners) == [s for s in range(game.n) if game.totals[s] == low]


# ---- 1. every level plays whole games of every preset with legal actions only ----------------

@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_level_plays_a_whole_game_legally(level: str, preset: str) -> None:
    players = TABLES[preset]
    rules = RuleSet.preset(preset)
    rules.check_players(players)
    game = Game(rules, players, seed=101)
    if level.startswith("expert"):
        # one searching seat keeps the file fast; basic players fill the table
        bots: list[Bot] = [make_bot(level)] + [BasicBot() for _ in range(players - 1)]
    else:
        bots = [make_bot(level) for _ in range(players)]
    counts: Counter[str] = Counter()

    def count(game: Game, seat: int, action: Action) -> None:
        if seat == 0:
            counts[action.type] += 1

    _drive(game, bots, seed=7, on_decision=count)
    _check_finished(game, rules)
    # seat 0 really played: it started many turns (draw or take the discard)
    assert counts["draw"] + counts["take_discard"] > 10


@pytest.mark.parametrize("level", LEVELS)
def test_level_handles_cut_and_first_call_buy_rounds(level: str) -> None:
    """standard's options: a cut decision each hand (cut_bonus) and buy rounds where every
    eligible seat may act at once (buy_priority first_call, to_act lists several seats)."""
    rules = RuleSet.preset("standard", {"cut_bonus": 50, "buy_priority": "first_call",
                                        "hands": [1, 2, 3]})
    game = Game(rules, 4, seed=5)
    seen: Counter[str] = Counter()

    def note(game: Game, seat: int, action: Action) -> None:
        seen[game.phase.value] += 1
        if game.phase.value == "buy" and len(game.to_act()) > 1:
            seen["several_to_act"] += 1

    bots: list[Bot] = [make_bot(level)] + [make_bot("random") for _ in range(3)]
    _drive(game, bots, seed=3, on_decision=note)
    _check_finished(game, rules)
    assert seen["cut"] == 3  # one cut per hand
    assert seen["several_to_act"] > 0


def test_expert_asked_to_buy_while_another_seat_owes_a_lay_off() -> None:
    """house (layoff_instead_of_draw): a down player may start the turn with no_draw, "then the
    player must lay off at least one card" (docs/rules.md, Phases). Seat 1 does so holding 4D 6S
    7C (7C fits its 7-set), and the buy round asks seat 2. Seat 2 cannot see seat 1's cards;
    whatever it imagines there, the expert must answer with one of its legal actions."""
    game = stacked_game("house", ["AS 3C 4C 6C JH QD 5S 6H 3H",
                                  "7H 7S 7D 9C 9D 9H 4D 6S KC",
                                  "8H 8S 8D 10C 10D 10H 5D 3S KD"],
                        upcard="KH", stock="7C QS JC 5C")
    # seat 1: draws 7C, goes down with two sets (contract 1), discards KC: 10 - 6 - 1 = 3 left
    act(game, player=1, type="draw")
    act(game, player=2, type="pass")
    act(game, player=0, type="pass")
    act(game, player=1, type="go_down", melds=[["7H", "7S", "7D"], ["9C", "9D", "9H"]])
    act(game, player=1, type="discard", card="KC")
    # seat 2: draws QS, goes down, discards KD; two players are down, so lay-offs are open
    act(game, player=2, type="draw")
    act(game, player=0, type="pass")
    act(game, player=2, type="go_down", melds=[["8H", "8S", "8D"], ["10C", "10D", "10H"]])
    act(game, player=2, type="discard", card="KD")
    # seat 0: draws JC and discards it (no meld of jacks: no playable-discard window)
    act(game, player=0, type="draw")
    act(game, player=1, type="pass")
    act(game, player=0, type="discard", card="JC")
    act(game, player=1, type="no_draw")
    assert hand_of(game, 1) == ["6S", "4D", "7C"]
    assert game.to_act() == (2,)
    legal = game.legal_actions(2)
    assert {a.type for a in legal} == {"buy", "pass"}
    expert = make_bot("expert:8it")
    for k in range(6):
        assert expert.choose(game.view_for(2), legal, random.Random(k)) in legal


# ---- make_bot -------------------------------------------------------------------------------

def test_make_bot_levels_and_names() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("basic"), BasicBot)
    assert isinstance(make_bot(" Basic "), BasicBot)
    expert = make_bot("expert")
    assert isinstance(expert, ExpertBot) and expert.name == "expert"
    four = make_bot("expert:4it")
    assert isinstance(four, ExpertBot) and four.iterations == 4 and four.name == "expert:4it"
    timed = make_bot("expert:50ms")
    assert isinstance(timed, ExpertBot) and timed.millis == 50 and timed.name == "expert:50ms"
    assert make_bot("random").name == "random" and make_bot("basic").name == "basic"


@pytest.mark.parametrize("spec", ["wizard", "", "expert:0it", "expert:5s", "expert:it",
                                  "basic:4it", "expert:-3ms"])
def test_make_bot_rejects_bad_names(spec: str) -> None:
    with pytest.raises(BotSpecError) as info:
        make_bot(spec)
    assert repr(spec.strip().lower()) in str(info.value) or repr(spec) in str(info.value)


# ---- 2. determinism ---------------------------------------------------------------------------

@pytest.mark.parametrize("bots", [("random", "random", "random"), ("basic", "basic", "random"),
                                  ("expert:2it", "basic", "random")])
def test_same_seed_same_record(bots: tuple[str, ...]) -> None:
    # contracts 2 and 5 only: a complete but short game, so the expert case stays quick
    specs = specs_for(2, "arena", {"hands": [2, 5]}, bots, seed=12)
    first = play_game(specs[0], keep_record=True)
    again = play_game(specs[0], keep_record=True)
    assert first.record is not None
    assert first.record == again.record
    assert first == again  # points, winners, downs per hand, decisions too
    assert first.contract_numbers == [2, 5]
    # another seed is another game (else the comparison above proves nothing)
    other = play_game(specs[1], keep_record=True)
    assert other.record is not None and other.record["actions"] != first.record["actions"]
    # the record is the game: replaying it reproduces the result
    result = replay(first.record)
    assert result.error is None and result.game.over
    assert list(result.game.totals) == first.totals
    assert list(result.game.winners) == first.winners
    assert [list(r) for r in result.game.scores] == first.hand_points


# ---- 3. hidden cards do not matter ------------------------------------------------------------

def _hidden_placement(game: Game, seat: int) -> tuple[object, ...]:
    """Where the cards hidden from ``seat`` lie: others' hands (as multisets) and the stock."""
    hands = tuple(tuple(sorted(game.hands[s])) for s in range(game.n) if s != seat)
    return (hands, tuple(game.stock))


@pytest.mark.parametrize("preset,players", [("hoyle", 3), ("classic", 2), ("arena", 3),
                                            ("standard", 4), ("house", 3)])
def test_choice_ignores_how_hidden_cards_lie(preset: str, players: int) -> None:
    """At many decision points, a second world deals the cards hidden from the acting seat
    again (``determinized``). The seat's view is the same in both worlds, so is its list of
    legal actions, and every bot with the same RNG seed makes the same choice in both."""
    game = Game(RuleSet.preset(preset), players, seed=23)
    bots = {level: make_bot(level) for level in LEVELS}
    tally = Counter[str]()

    def compare(game: Game, seat: int, action: Action) -> None:
        legal = game.legal_actions(seat)
        if len(legal) < 2 or tally["points"] % 2:  # every other real decision
            tally["points"] += 1
            return
        tally["points"] += 1
        k = tally["points"]
        world = game.determinized(seat, random.Random(1000 + k))
        tally["worlds"] += 1
        if _hidden_placement(world, seat) != _hidden_placement(game, seat):
            tally["moved"] += 1
        view, world_view = game.view_for(seat), world.view_for(seat)
        assert world_view == view, "the seat can tell the two worlds apart"
        world_legal = world.legal_actions(seat)
        assert world_legal == legal, "legal actions depend on cards the seat cannot see"
        for level, bot in bots.items():
            if level.startswith("expert") and tally["expert"] >= 25:
                continue  # the search is the slow part: enough points for it
            tally["expert"] += level.startswith("expert")
            mine = bot.choose(view, legal, random.Random(k))
            theirs = bot.choose(world_view, world_legal, random.Random(k))
            assert mine == theirs, (f"{level} at decision {k}: {mine.to_json()} here, "
                                    f"{theirs.to_json()} with the hidden cards dealt again")
            tally["compared"] += 1

    _drive(game, [BasicBot() for _ in range(players)], seed=9, on_decision=compare)
    assert tally["expert"] == 25
    assert tally["compared"] > 60
    # the test means something only if the second worlds really differed
    assert tally["moved"] >= 0.9 * tally["worlds"]


# ---- 4. bots get views only -------------------------------------------------------------------

def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` (through containers, slots and attributes)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


def _mid_game(preset: str, players: int, seed: int, decisions: int) -> Game:
    """A game played some way in by basic players, so the table has melds and known cards."""
    game = Game(RuleSet.preset(preset), players, seed=seed)
    bot = BasicBot()
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.over:
            break
        seat = game.to_act()[0]
        game.apply(bot.choose(game.view_for(seat), game.legal_actions(seat), rng))
    return game


def test_a_view_holds_no_part_of_the_game() -> None:
    game = _mid_game("standard", 4, seed=4, decisions=300)
    seat = game.to_act()[0]
    view = game.view_for(seat)
    assert isinstance(view, SeatView)
    inside = _reachable(view)
    assert not any(isinstance(o, Game) for o in inside), "the view leads back to the Game"
    # none of the game's mutable containers (hands, stock, melds, known cards...) is shared
    values = [getattr(game, name) for name, *_ in STATE_FIELDS]  # (compiled: no __dict__)
    mutable = {id(v) for v in values if isinstance(v, list | dict | set)}
    for v in values:
        if isinstance(v, list):
            mutable |= {id(x) for x in v if isinstance(x, list | dict | set)}
    assert not mutable & {id(o) for o in inside}
    assert sorted(view.hand) == sorted(game.hands[seat])


def test_a_view_is_a_snapshot() -> None:
    """A view taken earlier does not change when the game goes on (a bot may keep it)."""
    game = _mid_game("arena", 3, seed=8, decisions=40)
    seat = game.to_act()[0]
    view = game.view_for(seat)
    kept = copy.deepcopy(view)
    bot = BasicBot()
    rng = random.Random(0)
    for _ in range(60):
        s = game.to_act()[0]
        game.apply(bot.choose(game.view_for(s), game.legal_actions(s), rng))
    assert view == kept


@pytest.mark.parametrize("level", LEVELS)
def test_choose_works_on_a_view_alone(level: str) -> None:
    """The same choice from the live view, from a pickled copy (no link to any game), and from
    the view of a world built from the view alone (``Game.from_view``)."""
    bot = make_bot(level)
    checked = 0
    for preset, players, seed in (("standard", 4, 4), ("hoyle", 3, 6), ("house", 2, 2)):
        for decisions in (25, 120, 260):
            game = _mid_game(preset, players, seed, decisions)
            if game.over:
                continue
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            view = game.view_for(seat)
            detached = pickle.loads(pickle.dumps(view))
            world = Game.from_view(view, random.Random(decisions))
            assert world.view_for(seat) == view
            assert world.legal_actions(seat) == legal
            expected = bot.choose(view, legal, random.Random(3))
            assert expected in legal
            assert bot.choose(detached, legal, random.Random(3)) == expected
            assert bot.choose(world.view_for(seat), world.legal_actions(seat),
                              random.Random(3)) == expected
            checked += 1
    assert checked >= 6


def test_same_view_from_two_different_deals_same_choice() -> None:
    """Two stacked deals give seat 1 the same ten cards, upcard and first stock card (5H) but
    different cards to the others and deeper in the stock: seat 1's views are equal at its
    draw and again after it drew, so every bot chooses the same in both worlds."""
    seat1 = "7H 7S 7D 9C 9D 9H 2C 4D 6S KC"
    deal_a = ["AS 2S 3S 4S 5S 6S 8S 10S JS QS", seat1, "AH 2H 3H 4H 5H 6H 8H 10H JH QH"]
    deal_b = ["AD 3D 5D 7C 8C 10C QC KD KH JK", seat1, "4C 5C 6C 8D 10D JD QD 3C 5H 6H"]
    a = stacked_game("standard", deal_a, upcard="QH", stock="5H KS 2D")
    b = stacked_game("standard", deal_b, upcard="QH", stock="5H 8H 3H")
    assert a.hands[0] != b.hands[0] and a.hands[2] != b.hands[2] and a.stock != b.stock
    bots = [make_bot(level) for level in LEVELS]

    def same_choices() -> None:
        assert a.view_for(1) == b.view_for(1)
        assert a.legal_actions(1) == b.legal_actions(1)
        for bot in bots:
            for k in range(4):
                assert (bot.choose(a.view_for(1), a.legal_actions(1), random.Random(k))
                        == bot.choose(b.view_for(1), b.legal_actions(1), random.Random(k)))

    same_choices()  # seat 1 to draw: take QH or draw
    for g in (a, b):
        act(g, player=1, type="draw")  # declines the upcard; the buy round follows
        act(g, player=2, type="pass")  # nearest to the drawer's left first
        act(g, player=0, type="pass")  # the dealer is asked too (the upcard has no discarder)
    assert a.hands[1] == b.hands[1]  # both drew the 5H
    same_choices()  # seat 1 to play: go down, then discard


# ---- 6. hints -------------------------------------------------------------------------------

def going_down_position() -> Game:
    """standard contract 1 is two sets (docs/rules.md (Presets); naturals 2 per set). Seat 1 holds
    7H 7S 7D and 9C 9D 9H and has drawn: it may go down."""
    game = stacked_game("standard", ["AS 2S 3S 4S 5S 6S 8S 10S JS QS",
                                     "7H 7S 7D 9C 9D 9H 2C 4D 6S KC",
                                     "AH 2H 3H 4H 5H 6H 8H 10H JH QH"],
                        upcard="QC", stock="5H")
    act(game, player=1, type="draw")
    act(game, player=2, type="pass")
    act(game, player=0, type="pass")
    return game


def test_hint_suggests_going_down() -> None:
    """After drawing seat 1 can go down with its two sets, and the hint says so."""
    game = going_down_position()
    legal = game.legal_actions(1)
    assert any(a.type == "go_down" for a in legal)
    action, reason = hint(game.view_for(1), legal)
    assert action in legal
    assert action.type == "go_down"
    assert reason.startswith("go down:")
    assert action.melds is not None
    assert sorted(sorted(m) for m in action.melds) == sorted([sorted(C("7H 7S 7D")),
                                                             sorted(C("9C 9D 9H"))])
    for meld in action.melds:  # the reason names the melds it suggests
        for card in meld:
            assert card_str(card) in reason
    # going down is legal; after it the seat holds 2C 4D 6S KC 5H (11 - 6 = 5 cards)
    game.apply(action)
    assert game.down[1] and len(game.hands[1]) == 5


def test_hint_is_legal_with_a_reason_everywhere() -> None:
    """Across whole games of every preset, the hint is a legal action of the seat to act and
    comes with a reason that names the suggested card where there is one."""
    for preset in PRESET_NAMES:
        players = TABLES[preset]
        game = Game(RuleSet.preset(preset), players, seed=31)
        hints = 0

        def check(game: Game, seat: int, action: Action) -> None:
            nonlocal hints
            legal = game.legal_actions(seat)
            suggested, reason = hint(game.view_for(seat), legal)
            assert suggested in legal
            assert isinstance(reason, str) and reason.strip()
            if len(legal) > 1 and suggested.type in ("discard", "lay_off", "give", "swap_joker"):
                # a real choice names its card (a forced move may just name the move)
                assert suggested.card is not None and card_str(suggested.card) in reason
            if suggested.type == "go_down":
                assert reason.startswith("go down:")
            # the hint is the basic bot's own decision
            assert BasicBot().decide(game.view_for(seat), legal) == (suggested, reason)
            hints += 1

        _drive(game, [RandomBot() for _ in range(players)], seed=2, on_decision=check)
        assert hints > 100


def test_hint_without_a_decision_is_an_error() -> None:
    game = Game(RuleSet.preset("arena"), 2, seed=1)
    waiting = game.to_act()[0]
    other = 1 - waiting
    assert game.legal_actions(other) == []
    with pytest.raises(ValueError):
        hint(game.view_for(other), [])


def test_basic_decide_matches_choose() -> None:
    game = _mid_game("classic", 3, seed=3, decisions=50)
    bot = BasicBot()
    for _ in range(150):
        if game.over:
            break
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        view = game.view_for(seat)
        action, reason = bot.decide(view, legal)
        assert action in legal and reason
        assert bot.choose(view, legal, random.Random(0)) == action
        game.apply(action)
