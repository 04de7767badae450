"""The match driver (liverpool.match) on stacked deals and seeded games: buy rounds settled by
seat priority and by first call (people's requests before bots', the first yes wins, everyone
passes when nobody wants the card, a request that is not legal when settled is a pass), the
events and their order at a hand's end and the game's end, what bots hear, a bot that raises
or answers illegally replaced by the basic bot with an incident, the same seed giving the same
game, and the bot generators."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import act, stacked_game
from scenario import pass_buys

from liverpool.actions import Action
from liverpool.bots import BasicBot, make_bot
from liverpool.cards import parse_card
from liverpool.engine import (
    Event,
    Game,
    HandEnded,
    HandStarted,
    IllegalActionError,
    Phase,
    SeatView,
)
from liverpool.engine.events import GameEnded
from liverpool.events import (
    bot_rng,
    bot_seed,
    game_end_event,
    game_start_event,
    hand_end_event,
    hand_start_event,
    protocol_events,
)
from liverpool.match import Decision, Match
from liverpool.narrate import Narrator, narrate
from liverpool.record import game_record, steps
from liverpool.rules import RuleSet

# standard, 3 players, dealer 0: seat 1 plays first on the upcard KC and draws QC
S0 = "AH 3H 4H 5H 6S 8S 10H JS QS 2C"
S1 = "7H 7S 7D 9D 9C 9S 7C 4C 6D KD"
S2 = "AS 3S 5S 6H 8H 10S JH QH KS 4D"


def std3(overrides: dict[str, Any] | None = None) -> Game:
    return stacked_game("standard", [S0, S1, S2], upcard="KC", stock="QC 5D 8D 3C 4S",
                        overrides=overrides)


class Answers:
    """Says yes (buy or call) or no when asked; draws on its turn, else plays its first legal
    action. Counts the questions it was asked."""

    name = "answers"

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.asked = 0

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if view.phase in ("buy", "call"):
            self.asked += 1
            wanted = [a for a in legal if a.type in ("buy", "call")]
            if self.yes and wanted:
                return wanted[0]
            return next(a for a in legal if a.type == "pass")
        return next((a for a in legal if a.type == "draw"), legal[0])


def records(game: Game) -> list[tuple[int, str]]:
    return [(a.player, a.type) for a in game.actions]


def bot_moves(match: Match, until: int) -> None:
    """Let the bots play until ``until`` actions are in the record."""
    while len(match.game.actions) < until:
        d = match.decision()  # may apply what settles a window
        if len(match.game.actions) >= until:
            break
        assert d is not None and d.bot
        match.play(match.bot_action(d.seat))


# ---- buy rounds: seat priority -------------------------------------------------------------

def test_seat_priority_the_nearest_yes_wins() -> None:
    g = std3()
    two, zero = Answers(yes=True), Answers(yes=True)
    m = Match(g, [zero, Answers(yes=False), two])
    bot_moves(m, 1)  # seat 1 draws: seats 2 and 0 are asked, in that order
    assert m.decision() == Decision(2, True, "buy")
    m.play(m.bot_action(2))
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (2, "buy")] and two.asked == 1 and zero.asked == 0


def test_seat_priority_a_persons_request_and_a_persons_silence() -> None:
    g = std3()
    m = Match(g, [None, Answers(yes=False), Answers(yes=False)])
    m.request(0, "buy")  # before the draw: the buy window is open from the discard on
    bot_moves(m, 1)
    assert m.decision() == Decision(2, True, "buy")
    m.play(m.bot_action(2))
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (2, "pass"), (0, "buy")]
    assert parse_card("KC") in g.hands[0]
    # without a request the person is not asked: their silence is a pass
    g = std3()
    m = Match(g, [None, Answers(yes=False), Answers(yes=False)])
    bot_moves(m, 1)
    m.play(m.bot_action(2))
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (2, "pass"), (0, "pass")]


# ---- buy rounds: first call ----------------------------------------------------------------

def test_first_call_a_persons_request_comes_before_the_bots() -> None:
    g = std3({"buy_priority": "first_call"})
    two = Answers(yes=True)
    m = Match(g, [None, Answers(yes=False), two])
    m.request(0, "buy")
    bot_moves(m, 1)  # seat 2 sits nearer the drawer's left, and would buy
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (0, "buy")] and two.asked == 0


def test_first_call_the_person_is_asked_first_and_says_no() -> None:
    g = std3({"buy_priority": "first_call"})
    m = Match(g, [None, Answers(yes=False), Answers(yes=True)], ask_people=True)
    bot_moves(m, 1)
    assert set(g.to_act()) == {2, 0}
    assert m.decision() == Decision(0, False, "buy")
    assert m.play(Action("pass", 0)) == ()  # an answer: the decision settles it
    assert m.decision() == Decision(2, True, "buy")  # the no was recorded at once
    assert records(g) == [(1, "draw"), (0, "pass")]
    m.play(m.bot_action(2))
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (0, "pass"), (2, "buy")]


def test_first_call_the_first_yes_wins() -> None:
    g = std3({"buy_priority": "first_call"})
    two, zero = Answers(yes=True), Answers(yes=True)
    m = Match(g, [zero, Answers(yes=False), two])
    bot_moves(m, 2)
    assert records(g) == [(1, "draw"), (2, "buy")]
    assert two.asked == 1 and zero.asked == 0


def test_first_call_everyone_passes_when_nobody_wants_it() -> None:
    g = std3({"buy_priority": "first_call"})
    m = Match(g, [Answers(yes=False), Answers(yes=False), Answers(yes=False)])
    bot_moves(m, 1)
    assert m.decision() == Decision(2, True, "buy")
    m.play(m.bot_action(2))
    assert m.decision() == Decision(0, True, "buy")
    m.play(m.bot_action(0))
    assert m.decision() == Decision(1, True, "move")
    assert records(g) == [(1, "draw"), (2, "pass"), (0, "pass")]
    assert g.phase is Phase.PLAY and parse_card("QC") in g.hands[1]  # the drawer's card


def test_a_request_not_legal_when_settled_is_a_pass() -> None:
    # arena, 7 cards each: seats 1 and 2 go down; seat 2 keeps only 7C; seat 0 discards the
    # other 7C, which fits seat 1's 7s: a call window (bonus) asks seats 1 and 2. Seat 2 could
    # not discard after taking it, so its call, asked ahead, is a pass when its turn comes.
    g = stacked_game("arena", ["7C AS 3H 4S 5C JC QC", "7H 7S 7D 9D 9C 9S KD",
                               "8H 8S 8D 10D 10C 10S 7C"], upcard="KC", stock="2H 3D 4C 5H",
                     overrides={"deal_sizes": [7] * 7, "hands": [1]})
    act(g, player=1, type="draw")
    pass_buys(g)
    act(g, player=1, type="go_down", melds=[["7H", "7S", "7D"], ["9D", "9C", "9S"]])
    act(g, player=1, type="discard", card="KD")
    act(g, player=2, type="draw")
    pass_buys(g)
    act(g, player=2, type="go_down", melds=[["8H", "8S", "8D"], ["10D", "10C", "10S"]])
    act(g, player=2, type="discard", card="3D")
    act(g, player=0, type="draw")
    pass_buys(g)
    act(g, player=0, type="discard", card="7C")
    assert g.phase is Phase.CALL and g.to_act() == (1,) and g.asked == [1, 2]
    m = Match(g, [Answers(yes=False), Answers(yes=False), None])
    m.request(2, "call")
    assert m.decision() == Decision(1, True, "call")
    m.play(m.bot_action(1))
    assert m.decision() == Decision(1, True, "move")  # the window closed: seat 1 draws
    assert records(g)[-2:] == [(1, "pass"), (2, "pass")]


# ---- answers and requests that may not be -------------------------------------------------

def test_an_answer_out_of_turn_is_refused_and_changes_nothing() -> None:
    g = std3()
    m = Match(g, [None, Answers(yes=False), Answers(yes=False)], ask_people=True)
    before, version = g.snapshot(), m.version
    with pytest.raises(IllegalActionError, match="decision"):
        m.play(Action("buy", 0))  # no buy round yet: the player on turn decides
    with pytest.raises(IllegalActionError, match="your turn"):
        m.request(1, "buy")
    assert g.snapshot() == before and m.version == version and m.requests.wanted == {}


def test_a_bot_move_for_a_game_that_moved_on_is_refused() -> None:
    g = std3()
    m = Match(g, [None, Answers(yes=False), Answers(yes=False)])
    move = m.prepare(1)
    m.request(2, "buy")  # a request changes the match: the bot's thought is stale
    with pytest.raises(IllegalActionError, match="moved on"):
        m.accept(move, move.decide())


def test_run_plays_bots_only() -> None:
    m = Match(std3(), [BasicBot(), None, BasicBot()])
    with pytest.raises(ValueError, match="person"):
        m.run()


# ---- events --------------------------------------------------------------------------------

class Listening:
    """A basic bot that keeps the events it hears."""

    name = "listening"

    def __init__(self) -> None:
        self.heard: list[dict[str, Any]] = []

    def event(self, event: dict[str, Any]) -> None:
        self.heard.append(event)

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return BasicBot().choose(view, legal, rng)


def test_events_in_order_with_their_content() -> None:
    game = Game(RuleSet.preset("standard", {"hands": [1, 2]}), 3, seed=11)
    heard: list[Event] = []
    ears = Listening()
    m = Match(game, [ears, BasicBot(), BasicBot()], index=4, listener=heard.append)
    returned = list(m.start())
    while (d := m.decision()) is not None:
        returned += m.play(m.bot_action(d.seat))
    # the listener heard the engine's events, exactly as a replay of the record tells them
    assert heard == [e for step in steps(game_record(game)) for e in step.events]
    # play() returned what the listener heard, in order, except what decision() applied
    left = iter(heard)
    assert all(any(e is h for h in left) for e in returned)
    table = [e for e in heard if isinstance(e, HandStarted | HandEnded | GameEnded)]
    assert [e.kind for e in table] == ["hand_started", "hand_ended", "hand_started",
                                       "hand_ended", "game_ended"]
    # each hand's end, then the next hand or the game's end, come last among their action's
    ends = [i for i, e in enumerate(heard) if isinstance(e, HandEnded)]
    assert all(heard[i - 1].actor is not None for i in ends)
    nxt = heard[ends[0] + 1]
    assert isinstance(nxt, HandStarted) and nxt.hand_number == 2
    last = heard[-1]
    assert isinstance(last, GameEnded) and isinstance(heard[-2], HandEnded)
    rows = [e for e in heard if isinstance(e, HandEnded)]
    assert [list(r.points) for r in rows] == [list(s) for s in game.scores]
    assert list(rows[-1].totals) == list(game.totals)
    assert last.winners == tuple(game.winners) and last.hands == 2
    # the bot heard its game_start (its own seed, not the game's), then the hand and game
    # events in the protocol's words, never an action, and every engine event as its seat
    # sees it, in the engine's order
    assert ears.heard[0] == game_start_event(game, 0, 4)
    assert ears.heard[0]["seed"] == bot_seed(game.seed, 0) != game.seed
    assert ears.heard[1:] == protocol_events(heard, 0)
    said = [e for e in ears.heard[1:] if e["type"] != "event"]
    assert said == protocol_events(heard)
    assert [e["type"] for e in said] == ["hand_start", "hand_end", "hand_start", "hand_end",
                                         "game_end"]
    assert [e["event"] for e in ears.heard[1:] if e["type"] == "event"] \
        == [e.for_seat(0) for e in heard]
    assert said[-2] == hand_end_event(rows[-1]) == {
        "type": "hand_end", "hand_number": 2, "scores": list(game.scores[-1]),
        "totals": list(game.totals), "went_down": list(rows[-1].end.down)}
    assert said[-1] == game_end_event(last) == {
        "type": "game_end", "totals": list(game.totals), "winners": list(game.winners),
        "hands": 2}


def test_the_listener_hears_what_the_narrator_tells() -> None:
    g = std3()
    heard: list[Event] = []
    m = Match(g, [None, Answers(yes=False), Answers(yes=True)], listener=heard.append)
    bot_moves(m, 2)
    dealt = heard[0]
    assert isinstance(dealt, HandStarted) and dealt.upcard == parse_card("KC")
    assert hand_start_event(dealt) == {"type": "hand_start", "hand_number": 1, "dealer": 0,
                                       "contract": [c.to_json() for c in dealt.contract]}
    # for everyone: nobody's stock card is named
    assert Narrator(g.players).lines(heard[1:]) == [
        "P1 draws from the stock", "P2 buys KC (+1 penalty card)"]
    # for the drawer: the card it drew once the buy round ended
    assert narrate(heard[1:], g.players, reader=1) == [
        "You draw from the stock", "P2 buys KC (+1 penalty card)",
        "Your draw from the stock: 5D"]
    # for the buyer: its penalty card
    assert narrate(heard[1:], g.players, reader=2) == [
        "P1 draws from the stock", "You buy KC (+1 penalty card: QC)"]


# ---- bots that fail ------------------------------------------------------------------------

class Failing:
    """Plays basic, except at its ``at``-th decision, where it raises or answers badly."""

    name = "failing"

    def __init__(self, at: int, how: str) -> None:
        self.at, self.how, self.count = at, how, 0

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        self.count += 1
        if self.count == self.at:
            if self.how == "raise":
                raise RuntimeError("out of ideas")
            if self.how == "other seat":
                return Action("draw", (view.seat + 1) % len(view.players))
            return Action("discard", view.seat, card=next(
                c for c in range(53) if c not in view.hand))
        return BasicBot().choose(view, legal, rng)


@pytest.mark.parametrize(("how", "kind", "words"), [
    ("raise", "crash", "RuntimeError: out of ideas"),
    ("illegal", "illegal", "illegal action: "),
    ("other seat", "illegal", "answered for seat 1"),
])
def test_a_failing_bot_is_replaced_for_that_move(how: str, kind: str, words: str) -> None:
    game = Game(RuleSet.preset("standard", {"hands": [1]}), 3, seed=5)
    bad = Failing(at=3, how=how)
    m = Match(game, [bad, BasicBot(), BasicBot()], index=2)
    views: dict[int, tuple[SeatView, list[Action]]] = {}
    while (d := m.decision()) is not None:
        move = m.prepare(d.seat)
        if move.view is not None:
            views[len(game.actions)] = (move.view, list(move.legal))
        m.play(m.accept(move, move.decide()))
    assert game.over and bad.count > 3  # the bot played on after its failure
    [incident] = m.incidents
    assert incident["kind"] == kind and words in incident["message"]
    assert incident["seat"] == 0 and incident["decision"] == 3 and incident["game"] == 2
    assert incident["fallback"] == "move" and incident["bot"] == "failing"
    # the move played instead is the basic bot's, from the seat's view
    view, legal = views[incident["action"]]
    assert game.actions[incident["action"]] == BasicBot().choose(view, legal, random.Random())
    assert m.take_incidents() == [incident] and m.take_incidents() == []


# ---- determinism and the bot generators ----------------------------------------------------

def _seeded(seed: int, buy_priority: str) -> Game:
    game = Game(RuleSet.preset("arena", {"hands": [1, 2], "buy_priority": buy_priority}), 4,
                seed=seed)
    with Match(game, [make_bot("random"), make_bot("basic"), make_bot("random"),
                      make_bot("basic")]) as m:
        m.run()
    return game


@pytest.mark.parametrize("buy_priority", ["seat", "first_call"])
def test_the_same_seed_gives_the_same_game(buy_priority: str) -> None:
    one, two = _seeded(7, buy_priority), _seeded(7, buy_priority)
    assert one.actions == two.actions and one.totals == two.totals
    assert _seeded(8, buy_priority).actions != one.actions


def test_bot_generators_differ_by_seat_and_hide_the_seed() -> None:
    draws = [bot_rng(1234, s).random() for s in range(8)]
    assert len(set(draws)) == 8
    assert bot_rng(1234, 0).random() == draws[0]  # a function of the seed and the seat
    # neither the deal's generator nor an arithmetic of the seed
    deal = random.Random(1234).random()
    assert deal not in draws
    assert all(bot_seed(1234, s) not in {1234, 1234 * 8 + s, 1234 * 8 + s + 1, 1234 * 31 + s}
               for s in range(8))
    assert bot_seed(1234, 0) != bot_seed(1235, 0)
    m = Match(std3(), [BasicBot()] * 3)
    assert [r.random() for r in m.rngs] == [bot_rng(1, s).random() for s in range(3)]
