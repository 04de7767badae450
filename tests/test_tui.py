"""The terminal app of ``liverpool play``, driven headless with Textual's Pilot through a whole
hand on a stacked deck: an illegal go-down refused with the engine's reason, a buy, going down
with melds picked card by card, laying off (choosing the meld and the end), a joker swap, going
out, the hand's result and the score sheet; also the suggested go-down, the hint, the sort
toggle, the one-card warning and the replay watcher."""

from __future__ import annotations

import io
import json
import random
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import C, stacked_game
from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.geometry import Region
from textual.widgets import OptionList, RichLog, Static

from liverpool.actions import Action
from liverpool.bots import BasicBot
from liverpool.cards import parse_card
from liverpool.engine import Game, SeatView
from liverpool.melds import RUN, SET, Meld
from liverpool.record import replay
from liverpool.rules import RuleSet
from liverpool.rulestext import PRESET_LINES, rules_sheet
from liverpool.tui.app import PlayApp
from liverpool.tui.session import Session
from liverpool.tui.text import (
    faces,
    fit_parts,
    meld_text,
    possessive,
    second_person,
    subject,
)
from liverpool.tui.watch import Replayer, WatchApp
from liverpool.tui.widgets import Menu, Notice, ScrollPanel, TailLog

HANDS = ["7H 7S 4C 5C 7C JK 8C 9C 3C 2C KD",  # You (seat 0) plays first: Cy deals
         "7D KH KS QH QS JD 10D 9D 9H 8H 6H",  # Bob discards the 7D You buy
         "KC QC JC 10S 9S 8S 6S 5S 4S 3S 2S"]
# stock: You draw JH; Bob 4H; your penalty card 10C; Cy 5H; You 6C
STOCK = "JH 4H 10C 5H 6C"


class ScriptBot:
    """A bot for stacked scenarios: draws, passes, and discards the planned cards in order
    (else its lowest card)."""

    name = "script"

    def __init__(self, discards: Sequence[str] = ()) -> None:
        self.plan = [parse_card(c) for c in discards]

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        by: dict[str, list[Action]] = {}
        for a in legal:
            by.setdefault(a.type, []).append(a)
        for t in ("draw", "pass"):
            if t in by:
                return by[t][0]
        if "discard" in by:
            if self.plan:
                for a in by["discard"]:
                    if a.card == self.plan[0]:
                        self.plan.pop(0)
                        return a
            return by["discard"][0]
        return legal[0]


def scenario_game() -> Game:
    return stacked_game("classic", HANDS, "AH", STOCK, dealer=2, overrides={"hands": [2]},
                        contract_no=2, names=["You", "Bob", "Cy"])


def scenario_session(tmp_path: Path) -> Session:
    game = scenario_game()
    return Session(game, 0, [None, "script", "script"], tmp_path / "game.json", bot_seed=1,
                   bots=[None, ScriptBot(["7D"]), ScriptBot()])


def text_of(widget: Static) -> str:
    """What a Static shows, as plain text."""
    console = Console(width=200, record=True, file=io.StringIO())
    content = widget.content
    console.print(content if not isinstance(content, str) else Text.from_markup(content))
    return console.export_text()


def prompt_of(app: PlayApp) -> str:
    return text_of(app.query_one("#prompt", Static))


async def point_at(pilot: object, app: PlayApp, card: str) -> None:
    """Move the cursor onto ``card`` with the arrow keys."""
    cards = app.shown_hand()
    target = cards.index(parse_card(card))
    await pilot.press("home", *(["right"] * target))  # type: ignore[attr-defined]
    assert app.card_at_cursor() == parse_card(card)


async def select(pilot: object, app: PlayApp, cards: str) -> None:
    for c in cards.split():
        await point_at(pilot, app, c)
        await pilot.press("space")  # type: ignore[attr-defined]


def advance(session: Session, actions: Sequence[Action]) -> None:
    """Play the person's ``actions`` in order, the bots moving in between."""
    for a in actions:
        while not session.human_to_act():
            assert session.step_bot() is not None
        session.act(a)
    while not session.human_to_act():
        assert session.step_bot() is not None


def down_with_a_set_and_a_run(session: Session) -> None:
    """The scenario up to the person's go-down in their second turn: set 7S 7H 7D, run
    4C 5C JK 7C (meld [1]); 8C, 9C, 10C, 3C, 2C and 6C still in hand."""
    advance(session, [Action("draw", 0), Action("discard", 0, card=parse_card("KD")),
                      Action("buy", 0), Action("draw", 0),
                      Action("go_down", 0, melds=(tuple(C("7S 7H 7D")),
                                                  tuple(C("4C 5C JK 7C"))))])


async def test_a_whole_hand_with_the_keyboard(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    game = session.game
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        assert session.human_to_act() and game.phase.value == "draw"
        assert "take the discard A♥ or draw" in prompt_of(app)
        await pilot.press("d")  # draw from the stock (the bots pass the opening upcard)
        await pilot.pause()
        assert parse_card("JH") in session.view().hand

        # an illegal go-down: the engine's reason is shown, nothing changes
        await pilot.press("g")
        await select(pilot, app, "7H 7S 4C")
        await pilot.press("m")
        composed = app.pending[0][app.choice[0]]
        expected = game.why_illegal(Action("go_down", 0, melds=(composed,)))
        assert expected
        before = len(game.actions)
        await pilot.press("enter")
        assert app.errors[-1] == expected
        assert faces(expected) in prompt_of(app).replace("\n", " ")
        assert len(game.actions) == before
        await pilot.press("escape")
        assert not app.composing

        await point_at(pilot, app, "KD")
        await pilot.press("d")  # discard KD; Bob draws and discards 7D, Cy draws: the buy
        await pilot.pause()
        assert game.phase.value == "buy" and session.human_to_act()
        assert "Buy 7♦?" in prompt_of(app)
        await pilot.press("b")
        await pilot.pause()
        assert parse_card("7D") in session.view().hand
        assert parse_card("10C") in session.view().hand  # the penalty card
        assert session.view().buys[0] == 1
        log = app.query_one("#log", RichLog)
        # the person's own penalty card is named to them
        assert any("You buy 7♦ (+1 penalty card: 10♣)" in line.text for line in log.lines)

        # second turn: draw 6C, go down with melds picked card by card
        assert game.phase.value == "draw" and session.human_to_act()
        await pilot.press("d")
        await pilot.pause()
        assert parse_card("6C") in session.view().hand
        await pilot.press("g")
        await select(pilot, app, "7H 7S 7D")
        await pilot.press("m")
        await select(pilot, app, "4C 5C 7C JK")
        await pilot.press("m")
        assert app.pending[1][app.choice[1]] == tuple(C("4C 5C JK 7C"))  # the joker is 6C
        await pilot.press("enter")
        await pilot.pause()
        view = session.view()
        assert view.down[0]
        assert [m.cards for m in view.melds] == [tuple(C("7S 7H 7D")), tuple(C("4C 5C JK 7C"))]
        assert "JK(6♣)" in text_of(app.query_one("#melds", Static))

        # lay 8C off: choose the meld from the menu
        await point_at(pilot, app, "8C")
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, Menu)
        await pilot.press("1")  # meld [1], the run: the number shown picks it
        await pilot.pause()
        assert session.view().melds[1].cards == tuple(C("4C 5C JK 7C 8C"))

        # an illegal lay-off: 9C on the set of sevens, the engine's reason shown
        await point_at(pilot, app, "9C")
        await pilot.press("l", "0")
        await pilot.pause()
        reason = game.why_illegal(Action("lay_off", 0, card=parse_card("9C"), meld=0))
        assert reason and app.errors[-1] == reason

        # swap 6C for the joker, then play the joker on the set
        await point_at(pilot, app, "6C")
        await pilot.press("j", "1")
        await pilot.pause()
        view = session.view()
        assert view.melds[1].cards == tuple(C("4C 5C 6C 7C 8C"))
        assert parse_card("JK") in view.hand and view.must_play == (parse_card("JK"),)
        await point_at(pilot, app, "JK")
        await pilot.press("l", "0")
        await pilot.pause()
        assert session.view().melds[0].cards.count(parse_card("JK")) == 1
        for card, meld in (("9C", "1"), ("10C", "1"), ("3C", "1"), ("2C", "1")):
            await point_at(pilot, app, card)
            await pilot.press("l", meld)
            await pilot.pause()
        assert session.view().melds[1].cards == tuple(C("2C 3C 4C 5C 6C 7C 8C 9C 10C"))
        assert list(session.view().hand) == C("JH")

        # going out with the last discard: the hand's result, then the game's end
        await pilot.press("home", "d")
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        result = text_of(app.screen.query_one(Static))
        assert app.screen.query_one(Static).size.width > 40  # drawn, not squeezed to nothing
        assert "Hand 1 is over: You went out" in result
        assert game.scores == [[0, game.scores[0][1], game.scores[0][2]]]
        assert str(game.scores[0][1]) in result and "Score sheet" in result
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Notice)  # the game's end: winner and score sheet
        end = text_of(app.screen.query_one(Static))
        assert "Winner: You" in end and "total" in end
        await pilot.press("enter")
        await pilot.press("tab")  # the score sheet on demand
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        assert "Score sheet" in text_of(app.screen.query_one(Static))
        await pilot.press("tab")
        await pilot.pause()
        assert not isinstance(app.screen, Notice)
        assert "Game over" in prompt_of(app)

    # the record on disk is the whole game and replays
    rec = json.loads((tmp_path / "game.json").read_text())
    assert len(rec["actions"]) == len(game.actions)
    done = replay(rec)
    assert done.error is None and done.game.over and done.game.winners == (0,)


async def test_accept_the_suggested_go_down_and_hint(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        suggested = [a for a in session.legal() if a.type == "go_down"]
        assert suggested  # the deal already holds a set and a run
        await pilot.press("h")
        await app.workers.wait_for_complete()  # the search runs off the screen's thread
        await pilot.pause()
        hint = session.hint()
        assert hint is not None and faces(hint[1]) in prompt_of(app)
        await pilot.press("g")
        assert "suggested" in text_of(app.query_one("#compose", Static))
        await pilot.press("a")
        await pilot.pause()
        view = session.view()
        assert view.down[0]
        assert [m.cards for m in view.melds] == [tuple(m) for m in suggested[0].melds or ()]


async def test_sort_toggle_and_pace_keys(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        by_suit = app.shown_hand()
        await pilot.press("o")
        by_rank = app.shown_hand()
        assert sorted(by_suit) == sorted(by_rank) and by_suit != by_rank
        ranks = [c % 13 for c in by_rank if c != 52]
        assert ranks == sorted(ranks)
        assert "sorted by rank" in app.query_one("#hand", Static).border_title
        await pilot.press("f")
        assert app.pace_index == 1


async def test_bots_play_at_a_pace_until_the_person_is_asked(tmp_path: Path) -> None:
    game = scenario_game()
    # the person sits at seat 2 this time: Bob and You... the bots move first, on a timer
    session = Session(game, 2, ["script", "script", None], tmp_path / "g.json", bot_seed=1,
                      bots=[ScriptBot(), ScriptBot(), None])
    app = PlayApp(session, pace=0.01)
    async with app.run_test(size=(150, 50)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if session.human_to_act():
                break
        assert session.human_to_act()
        log = app.query_one("#log", RichLog)
        assert any("draws from the stock" in line.text for line in log.lines)


async def test_the_keys_answer_while_a_bot_thinks(tmp_path: Path) -> None:
    release = threading.Event()

    class SlowBot(ScriptBot):
        def choose(self, view: SeatView, legal: Sequence[Action],
                   rng: random.Random) -> Action:
            release.wait(10)  # thinks until the test lets it answer
            return super().choose(view, legal, rng)

    game = scenario_game()
    session = Session(game, 2, ["slow", "script", None], tmp_path / "g.json", bot_seed=1,
                      bots=[SlowBot(), ScriptBot(), None])
    app = PlayApp(session, pace=0.01)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause(0.1)
        assert app.thinking is not None and len(game.actions) == 0
        before = app.order
        await pilot.press("o")  # the screen is not frozen by the search
        assert app.order != before and len(game.actions) == 0
        release.set()
        for _ in range(200):
            await pilot.pause(0.02)
            if session.human_to_act():
                break
        assert session.human_to_act() and len(game.actions) > 0


class GoDownBot(ScriptBot):
    """Goes down at once with a set of sevens and a run of clubs, keeping one card."""

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        for a in legal:
            if a.type == "go_down":
                return Action("go_down", view.seat, melds=(
                    tuple(C("7D 7S 7H")), tuple(C("4C 5C 6C 7C 8C 9C 10C"))))
        return super().choose(view, legal, rng)


def one_card_session(tmp_path: Path) -> Session:
    """Bob can go down at once and keep a single card, in his first turn."""
    hands = ["KD QD JD 9S 8S 6S 5H 4H 3H 2D 10H",
             "7D 7S 7H 4C 5C 6C 7C 8C 9C 10C QH",
             "KC QC JC 10S 9D 8D 6D 5D 4D 3D 2S"]
    game = stacked_game("classic", hands, "AH", "JH 4H 10C 5H 6H", dealer=2,
                        overrides={"hands": [2]}, contract_no=2, names=["You", "Bob", "Cy"])
    return Session(game, 0, [None, "script", "script"], tmp_path / "g.json", bot_seed=1,
                   bots=[None, GoDownBot(["QH"]), ScriptBot()])


async def test_one_card_left_warning(tmp_path: Path) -> None:
    session = one_card_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await point_at(pilot, app, "KD")
        await pilot.press("d")
        await pilot.pause()
        assert session.view().hand_sizes[1] == 1
        log = app.query_one("#log", RichLog)
        assert any("Bob has one card left" in line.text for line in log.lines)
        assert "one card!" in text_of(app.query_one("#players", Static))


def covered(app: App[None], widget: Static) -> set[str]:
    """What is drawn over any cell of ``widget`` (a toast, another screen...)."""
    r = widget.region
    over = set()
    for y in range(r.y, r.bottom):
        for x in range(r.x, r.right):
            top, _ = app.screen.get_widget_at(x, y)
            if top is not widget:
                over.add(type(top).__name__)
    return over


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_a_warning_and_the_question_both_stay_in_sight(tmp_path: Path,
                                                              size: tuple[int, int]) -> None:
    session = one_card_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await point_at(pilot, app, "KD")
        await pilot.press("d")  # Bob goes down to one card and discards: may the person buy?
        await pilot.pause(0.3)
        assert session.human_to_act() and session.view().hand_sizes[1] == 1
        prompt = app.query_one("#prompt", Static)
        warnings = app.query_one("#warnings", Static)
        assert "Buy Q♥?" in prompt_of(app) and "b buy" in prompt_of(app)
        assert "Bob has one card left" in text_of(warnings)
        assert covered(app, prompt) == set() and covered(app, warnings) == set()
        assert prompt.region.height >= 2 and warnings.region.height >= 1
        # read and answered: the next action clears it, the log keeps it
        await pilot.press("p")
        await pilot.pause()
        assert not warnings.display


async def test_watch_steps_through_a_record(tmp_path: Path) -> None:
    from liverpool.cli import main as cli_main
    rec_path = tmp_path / "demo.json"
    assert cli_main(["demo", "--seed", "3", "--quiet", "--record", str(rec_path)]) == 0
    rec = json.loads(rec_path.read_text())
    replayer = Replayer(rec)
    assert replayer.error is None and len(replayer.actions) == len(rec["actions"])
    game = replayer.final
    assert game.over
    app = WatchApp(replayer, "demo.json")
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.press("right", "right", "right")
        assert app.step == 3
        await pilot.press("left")
        assert app.step == 2
        await pilot.press("pagedown")
        assert app.step == replayer.hand_starts[1]
        await pilot.press("end")
        await pilot.pause()
        assert app.step == len(replayer.actions)
        shown = text_of(app.query_one("#players", Static))
        assert "Winner" in shown and "Score sheet" in shown
        # stepping back rebuilds the same state as a fresh replay of the prefix
        await pilot.press("home")
        for _ in range(30):
            await pilot.press("right")
        fresh = Replayer({**rec, "actions": rec["actions"][:30]}).final
        assert replayer.at(30).snapshot() == fresh.snapshot()


def test_meld_text_marks_each_wild_with_what_it_stands_for() -> None:
    run = Meld(0, RUN, tuple(C("2H JK 4H 2C")), 1, 2)  # the 2H in its own place; JK 3H, 2C 5H
    assert meld_text(run, True).plain == "2♥ JK(3♥) 4♥ 2♣(5♥)"
    assert meld_text(run, True, plain=True).plain == "2H JK(3H) 4H 2C(5H)"
    high = Meld(0, RUN, tuple(C("QS KS JK")), 0, 12)
    assert meld_text(high, plain=True).plain == "QS KS JK(AS)"
    sevens = Meld(1, SET, tuple(C("7H 7S 2C JK")), 7)
    assert meld_text(sevens, True).plain == "7♥ 7♠ 2♣(7) JK(7)"
    deuces = Meld(1, SET, tuple(C("2S 2H JK")), 2)  # 2s of a set of 2s are natural
    assert meld_text(deuces, True, plain=True).plain == "2S 2H JK(2)"
    # a wild is drawn in the wild colour, a natural 2 too where 2s are wild
    styles = [span.style for span in meld_text(run, True).spans]
    assert styles[0] == styles[1] == "bold magenta"


def test_lines_about_the_person_named_you_read_in_the_second_person() -> None:
    assert second_person("Bob lays 8C on You's 4C 5C JK 7C") == "Bob lays 8C on your 4C 5C JK 7C"
    assert second_person("You lays 8C on You's 4C 5C JK 7C") == "You lay 8C on your 4C 5C JK 7C"
    assert second_person("You discards JH and goes out") == "You discard JH and go out"
    assert second_person("it is not You's decision now: waiting for Bob") == \
        "it is not your decision now: waiting for Bob"
    assert second_person("You's turn. You's run") == "Your turn. Your run"
    # others keep their names, and so does a person who chose a name
    assert second_person("Bob lays 8C on Cy's run") == "Bob lays 8C on Cy's run"
    assert second_person("Ann lays 8C on Ann's run", "Ann") == "Ann lays 8C on Ann's run"
    assert (subject("You", "deals"), subject("Cy", "deals")) == ("You deal", "Cy deals")
    assert (subject("You", "has"), possessive("You"), possessive("Cy", start=True)) == \
        ("You have", "your", "Cy's")


async def test_the_lay_off_menu_and_the_log_say_your_meld(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    down_with_a_set_and_a_run(session)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await point_at(pilot, app, "8C")
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, Menu)
        labels = [str(x) for x in app.screen.labels]
        assert labels[1].startswith("your run: ") and "You's" not in " ".join(labels)
        app.screen.dismiss(1)
        await pilot.pause()
        log = [line.text for line in app.query_one("#log", RichLog).lines]
        assert any("You lay 8♣ on your run: 4♣ 5♣ JK 7♣ 8♣" in line for line in log), log
        assert not any("You's" in line for line in log)


async def test_a_menu_picks_by_the_number_it_shows(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    down_with_a_set_and_a_run(session)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await point_at(pilot, app, "8C")
        await pilot.press("l")
        await pilot.pause()
        shown = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        assert [x[:3] for x in shown] == ["[0]", "[1]"]  # the melds' own numbers
        assert "your set" in shown[0] and "your run" in shown[1]
        await pilot.press("1")
        await pilot.pause()
        assert session.view().melds[1].cards == tuple(C("4C 5C JK 7C 8C"))
        assert app.errors == []


class MenuApp(App[None]):
    """A bare screen that opens one menu and keeps what it picked."""

    def __init__(self, menu: Menu) -> None:
        super().__init__()
        self.menu = menu
        self.picked: list[int | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.menu, self.picked.append)


@pytest.mark.parametrize(("keys", "picked"), [
    (["1", "2"], 12),  # two digits, for the meld [12]
    (["1", "enter"], 1),  # 1 begins 10, 11 and 12: Enter picks [1]
    (["5"], 5),  # no other number begins with 5: picked at once
    (["0"], 0),
    (["1", "7"], 7),  # no number begins with 17: 7 alone
])
async def test_a_meld_menu_takes_numbers_of_two_digits(keys: list[str], picked: int) -> None:
    numbers = list(range(13))
    app = MenuApp(Menu("which meld?", [f"meld {n}" for n in numbers], numbers))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        assert app.picked == [numbers.index(picked)]


async def test_other_menus_are_numbered_from_one() -> None:
    app = MenuApp(Menu("which end?", ["low end", "high end"]))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        shown = [str(o.prompt) for o in app.menu.query_one(OptionList).options]
        assert shown == ["[1] low end", "[2] high end"]
        await pilot.press("2")
        await pilot.pause()
        assert app.picked == [1]


def assert_newest_in_sight(log: TailLog) -> None:
    """The log's bottom rows show its newest entry, whole, and no row is wider than the log."""
    rows = [log.render_line(y).text.rstrip() for y in range(log.scrollable_content_region.height)]
    newest = log.entries[-1].plain
    assert rows[-1] and newest.rstrip().endswith(rows[-1].strip()), (rows[-3:], newest)
    assert any(row.startswith(newest.split(" ")[0]) for row in rows), (rows, newest)
    assert log.max_scroll_x == 0


async def test_the_log_always_shows_its_newest_line(tmp_path: Path) -> None:
    app = PlayApp(scenario_session(tmp_path), pace=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        log = app.query_one("#log", TailLog)
        for i in range(80):  # far more than fit
            app.log_line(f"move{i}: " + "a long word " * (i % 9))
        await pilot.pause()
        assert_newest_in_sight(log)
        for size in ((80, 24), (150, 50), (60, 20), (100, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert_newest_in_sight(log)
        # written while a notice covers the log, seen once it is closed
        app.push_screen(Notice(Text("a hand's result")))
        await pilot.pause()
        app.log_line("written under the notice")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        app.screen.dismiss(False)
        await pilot.pause()
        await pilot.pause()
        assert_newest_in_sight(log)
        await pilot.press("d")  # a move of the person's own
        await pilot.pause()
        assert_newest_in_sight(log)
        # the draw, then (the bots passed the discard) the card it brought
        assert log.entries[-2].plain == "You draw from the stock"
        assert log.entries[-1].plain == "Your draw from the stock: J♥"


def rows_shown(widget: Static) -> list[str]:
    """The rows a widget draws in its own region, as text."""
    w, h = widget.size.width, widget.size.height
    return [strip.text for strip in widget.render_lines(Region(0, 0, w, h))]


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_top_line_fits_the_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    # the longest contract, a long name dealing, and a changed rule
    session = Session.new(RuleSet.preset("hoyle", {"hands": [7]}), 3, "basic", "Alexandra",
                          seed=4, save=str(tmp_path / "g.json"))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        title = app.query_one("#title", Static)
        rows = rows_shown(title)
        assert 1 <= len(rows) <= 2 and all(len(r) <= size[0] for r in rows)
        shown = " · ".join(r.strip() for r in rows)
        for part in ("hand 1 of 1: 2 sets of 3 + 1 run of 7", "Alexandra deals",
                     "12 cards dealt", "hoyle rules (changed: 1)"):
            assert part in shown, (part, rows)
        # the hand, its contract and the dealer come first
        assert rows[0].strip().startswith("hand 1 of 1: 2 sets of 3 + 1 run of 7 · Alexandra")


def test_fit_parts_keeps_the_first_parts_and_drops_the_last() -> None:
    parts = ["hand 7 of 7: 3 runs", "Bob deals", "10 cards dealt", "standard rules"]
    assert fit_parts(parts, 80) == [" · ".join(parts)]
    assert fit_parts(parts, 32) == ["hand 7 of 7: 3 runs · Bob deals", "10 cards dealt · "
                                    "standard rules"]
    assert fit_parts(parts, 20) == ["hand 7 of 7: 3 runs", "Bob deals"]
    assert fit_parts(["a very long first part"], 10) == ["a very lo…"]


def demo_record(tmp_path: Path, hands: str = "[1,2,3]") -> dict[str, object]:
    from liverpool.cli import main as cli_main
    path = tmp_path / "demo.json"
    assert cli_main(["demo", "--seed", "3", "--players", "3", "--quiet", "--override",
                     f"hands={hands}", "--record", str(path)]) == 0
    rec: dict[str, object] = json.loads(path.read_text())
    return rec


def result_shown(app: WatchApp) -> str:
    return text_of(app.query_one("#players", Static)) + text_of(app.query_one("#melds", Static))


async def test_watch_shows_each_hand_with_its_result_where_it_ends(tmp_path: Path) -> None:
    replayer = Replayer(demo_record(tmp_path))
    game = replayer.final
    assert game.over and len(game.scores) == 3
    app = WatchApp(replayer, "demo.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for k in (1, 2, 3):
            await pilot.press("pagedown")  # to the end of the next hand
            await pilot.pause()
            assert app.step == replayer.hand_starts[k]
            title = " ".join(rows_shown(app.query_one("#title", Static)))
            assert title.strip().startswith(f"hand {k} of 3: ") and "over" in title, title
            shown = result_shown(app)
            result = replayer.results[app.step]
            who = " and ".join(game.players[s] for s in result.out) if result.out else "No one"
            assert f"Hand {k} is over: {who} went out" in shown
            for s, name in enumerate(game.players):  # each player's points and total
                row = next(x for x in shown.splitlines() if x.strip().startswith(f"│ {name} "))
                cells = [c.strip() for c in row.split("│")]
                assert cells[3:5] == [str(game.scores[k - 1][s]), str(result.totals[s])], row
            log = app.query_one("#log", TailLog).entries
            assert log[-1].plain.startswith(f"Hand {k} over: ")
            if k < 3:
                # the next frame is the next hand's deal, named so, at the same step
                await pilot.press("right")
                await pilot.pause()
                title = " ".join(rows_shown(app.query_one("#title", Static)))
                assert title.strip().startswith(f"hand {k + 1} of 3: ") and "over" not in title
                assert app.query_one("#log", TailLog).entries[-1].plain.startswith(
                    f"— hand {k + 1}: ")
                await pilot.press("left")
        # stepping move by move onto a hand's last action shows its result too
        await pilot.press("home")
        for _ in range(replayer.hand_starts[1]):
            await pilot.press("right")
        await pilot.pause()
        assert app.frame.result is not None and app.frame.result.number == 1
        # End: the game's end, with the final result
        await pilot.press("end")
        await pilot.pause()
        shown = result_shown(app)
        winners = " and ".join(game.players[s] for s in game.winners)
        assert f"Winner{'s' if len(game.winners) > 1 else ''}: {winners}" in shown
        assert "Score sheet" in shown and "Hand 3 is over" in shown
        title = " ".join(rows_shown(app.query_one("#title", Static)))
        assert "hand 3 of 3" in title and "game over" in title


async def test_watch_end_of_a_record_stopped_after_a_hand(tmp_path: Path) -> None:
    rec = demo_record(tmp_path)
    whole = Replayer(rec)
    actions = rec["actions"]
    assert isinstance(actions, list)
    # a game saved just after hand 2 ended: the end shows hand 2 and its result, not hand 3
    stopped = Replayer({**rec, "actions": actions[:whole.hand_starts[2]]})
    app = WatchApp(stopped, "saved.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        title = " ".join(rows_shown(app.query_one("#title", Static)))
        assert title.strip().startswith("hand 2 of 3: ") and "over" in title, title
        shown = result_shown(app)
        assert "Hand 2 is over" in shown and "Score sheet" in shown  # the sheet so far
    # stopped in the middle of hand 3: the end names hand 3, whose moves are shown
    middle = Replayer({**rec, "actions": actions[:whole.hand_starts[2] + 5]})
    app = WatchApp(middle, "saved.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        title = " ".join(rows_shown(app.query_one("#title", Static)))
        assert title.strip().startswith("hand 3 of 3: ") and "over" not in title, title


def squeeze(text: str) -> str:
    """Text with its box lines and runs of spaces gone, to find wrapped words in."""
    return " ".join(text.replace("│", " ").split())


async def test_the_rules_key_shows_the_tables_rules_in_the_cores_words(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)  # classic, playing only contract 2
    down_with_a_set_and_a_run(session)  # the person bought once
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        title = " ".join(rows_shown(app.query_one("#title", Static)))
        assert "classic rules (changed: 1)" in title and "r rules" in title
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        shown = squeeze(text_of(app.screen.query_one(Static)))
        rules = session.game.rules
        sheet = rules_sheet(rules, contract_no=2, buys_used=1, players=session.game.n)
        assert PRESET_LINES["classic"] in shown
        # the cards this table uses, for its own number of players
        assert f"This table of {session.game.n} players uses" in shown
        for heading, lines in sheet:
            assert heading in shown
            for line in lines:
                assert squeeze(line) in shown, line
        contracts = dict(sheet)["Contracts"]
        assert contracts == ["▶ 1. 1 set + 1 run (11 cards)"]  # the hand played, marked
        # the person's buys used are counted: the sheet for no buys differs and is not shown
        unbought = dict(rules_sheet(rules, contract_no=2, buys_used=0,
                                    players=session.game.n))['Buying ("May I?")']
        assert any(squeeze(x) not in shown for x in unbought)
        assert "Which contracts are played: [2]" in shown  # the table's change to its preset
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, Notice)


async def test_while_going_down_n_rearranges_and_r_still_shows_the_rules(
        tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    advance(session, [Action("draw", 0)])
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await pilot.press("g")
        await select(pilot, app, "7C 8C 9C JK")
        await pilot.press("m")
        assert len(app.pending[0]) == 2  # the joker is the 6C or the 10C
        first = text_of(app.query_one("#compose", Static))
        await pilot.press("n")
        assert app.choice == [1] and text_of(app.query_one("#compose", Static)) != first
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, Notice) and app.composing
        assert "Contracts" in text_of(app.screen.query_one(Static))


async def test_watch_shows_the_rules_too(tmp_path: Path) -> None:
    replayer = Replayer(demo_record(tmp_path))
    app = WatchApp(replayer, "demo.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        shown = squeeze(text_of(app.screen.query_one(Static)))
        assert "▶ 1. 2 sets" in shown and "Which contracts are played: [1, 2, 3]" in shown


ASCII_CARD = re.compile(r"(?<!\w)(?:10|[2-9AJQK])[SHDC](?!\w)")


async def test_one_screen_one_card_notation(tmp_path: Path) -> None:
    """The app writes cards with suit symbols everywhere on its screen: the board, the
    question, the log, a hint and an engine's refusal (they came in the record's ``AC``
    notation beside the board's ``A♣``)."""
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    seen: list[str] = []

    def look() -> None:
        for panel in ("#prompt", "#hand", "#pile", "#melds", "#compose"):
            seen.append(text_of(app.query_one(panel, Static)))
        seen.extend(entry.plain for entry in app.query_one("#log", TailLog).entries)

    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        look()
        await pilot.press("d")  # the drawn card named, after the bots pass the upcard
        await pilot.pause()
        await pilot.press("h")  # the hint's reason
        await app.workers.wait_for_complete()
        await pilot.pause()
        look()
        await pilot.press("g")
        await select(pilot, app, "7H 7S 4C")
        await pilot.press("m", "enter")  # refused: the engine's reason
        await pilot.pause()
        assert app.errors
        look()
        await pilot.press("escape")
        await point_at(pilot, app, "KD")
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("b")  # bought, with the penalty card named
        await pilot.pause()
        look()
    shown = "\n".join(seen)
    assert "J♥" in shown and "7♦" in shown and "10♣" in shown
    assert ASCII_CARD.findall(shown) == []


async def test_watch_writes_cards_one_way_too(tmp_path: Path) -> None:
    replayer = Replayer(demo_record(tmp_path))
    app = WatchApp(replayer, "demo.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        log = "\n".join(entry.plain for entry in app.query_one("#log", TailLog).entries)
        assert "♥" in log and ASCII_CARD.findall(log) == []
    # into a pipe the moves keep the record's notation
    assert any(ASCII_CARD.search(line.plain) for _, line in replayer.log_entries())


async def test_the_card_drawn_is_named_and_marked_until_the_next_draw(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("d")  # JH comes once the bots have passed the upcard
        await pilot.pause()
        hand = text_of(app.query_one("#hand", Static))
        assert "You drew J♥" in prompt_of(app)
        assert "▸J♥" in hand and "(▸ drew J♥)" in hand and hand.count("▸") == 2
        await point_at(pilot, app, "KD")
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("b")  # the buy brings 7D and a penalty card, not a draw
        await pilot.pause()
        assert "▸J♥" in text_of(app.query_one("#hand", Static))
        await pilot.press("d")
        await pilot.pause()
        hand = text_of(app.query_one("#hand", Static))
        assert "▸6♣" in hand and "▸J♥" not in hand and "You drew 6♣" in prompt_of(app)


def saved_midway(tmp_path: Path) -> Path:
    """The scenario saved after the person's draw, discard and buy, with its seat file."""
    session = Session(scenario_game(), 0, [None, "basic", "basic"], tmp_path / "game.json",
                      bot_seed=1, bots=[None, ScriptBot(["7D"]), ScriptBot()])
    session.save_seats()
    advance(session, [Action("draw", 0), Action("discard", 0, card=parse_card("KD")),
                      Action("buy", 0)])
    session.close()
    return tmp_path / "game.json"


async def test_a_resumed_games_log_goes_on_from_its_record(tmp_path: Path) -> None:
    session = Session.resume(str(saved_midway(tmp_path)))
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        log = [entry.plain for entry in app.query_one("#log", TailLog).entries]
    moves = ["— hand 1: 1 set + 1 run, Cy deals —", "You draw from the stock",
             "Your draw from the stock: J♥", "You discard K♦", "Bob draws from the stock",
             "Bob discards 7♦", "You buy 7♦ (+1 penalty card: 10♣)"]
    assert [line for line in log if line in moves] == moves, log


async def test_never_ask_me_to_buy_this_hand(tmp_path: Path) -> None:
    """n at a buy question passes it and every later one of the hand: the engine still gets
    the seat's pass, the person is not asked."""
    session = scenario_session(tmp_path)
    game = session.game
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await point_at(pilot, app, "KD")
        await pilot.press("d")  # Bob discards 7D: may the person buy it?
        await pilot.pause()
        assert game.phase.value == "buy" and "n no more buys this hand" in prompt_of(app)
        before = len(game.actions)
        await pilot.press("n")
        await pilot.pause()
        assert game.actions[before] == Action("pass", 0)
        asked = len(game.actions)
        assert "no buys asked this hand" in " ".join(rows_shown(app.query_one("#title",
                                                                              Static)))
        # the person's next turn, then Bob's discard: passed for the person, not asked
        assert session.human_to_act() and game.phase.value == "draw"
        await pilot.press("d")
        await pilot.pause()
        await point_at(pilot, app, "7C")
        await pilot.press("d")
        await pilot.pause()
        assert session.human_to_act() and game.phase.value == "draw"
        passes = [a for a in game.actions[asked:] if a == Action("pass", 0)]
        assert passes, "the seat's pass was given to the engine"


def test_no_buys_lasts_one_hand(tmp_path: Path) -> None:
    session = Session.new(RuleSet.preset("standard", {"hands": [1, 2]}), 3, "basic", "You",
                          seed=7, save=str(tmp_path / "g.json"))
    game = session.game
    bot, rng = BasicBot(), random.Random(3)
    asked: dict[int, int] = {}  # buy questions the person saw, by hand
    while not game.over:
        if not session.human_to_act():
            assert session.step_bot() is not None
            continue
        view = session.view()
        if view.phase == "buy":
            asked[view.hand_number] = asked.get(view.hand_number, 0) + 1
            session.no_buys()
            continue
        session.act(bot.choose(view, session.legal(), rng))
    assert asked == {1: 1, 2: 1}  # asked once a hand: the first answer stopped the rest
    passes = [a for a in game.actions if a == Action("pass", 0)]
    assert len(passes) > 2  # the later questions were answered with the seat's pass


async def test_a_key_pressed_while_the_bots_settle_a_buy_is_kept(tmp_path: Path) -> None:
    """Just after the draw the bots settle a buy of the card passed; a discard pressed then was
    dropped. It is kept, shown as kept, and applied to the card it was pressed on once the
    person may act (the drawn card, sorted in, moves that card's place)."""
    release = threading.Event()

    class SlowBot(ScriptBot):
        def choose(self, view: SeatView, legal: Sequence[Action],
                   rng: random.Random) -> Action:
            release.wait(10)  # settles the buy round when the test lets it
            return super().choose(view, legal, rng)

    session = Session(scenario_game(), 0, [None, "slow", "script"], tmp_path / "g.json",
                      bot_seed=1, bots=[None, SlowBot(["7D"]), ScriptBot()])
    game = session.game
    app = PlayApp(session, pace=0.01)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause(0.05)
        assert not session.human_to_act() and app.thinking is not None
        await point_at(pilot, app, "KD")
        await pilot.press("d")  # discard KD, pressed while Bob decides on the upcard
        await pilot.pause()
        assert "Kept for your decision: d (K♦)" in prompt_of(app)
        release.set()
        for _ in range(200):
            await pilot.pause(0.02)
            if Action("discard", 0, card=parse_card("KD")) in game.actions \
                    and session.human_to_act():
                break
        assert Action("discard", 0, card=parse_card("KD")) in game.actions
        assert parse_card("JH") in session.view().hand and not app.kept


async def test_a_kept_key_of_no_use_is_refused_in_words(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.kept.append(("b", "b", None))  # a buy key kept for what turned out a draw
        app.after_change()
        await pilot.pause()
        assert "Not now: b, pressed while waiting" in prompt_of(app)
        assert not app.kept and len(session.game.actions) == 0


def all_down(tmp_path: Path) -> Session:
    """Four players, each down with three sets: twelve melds on the table at the person's
    decision."""
    session = Session.new(RuleSet.preset("standard", {"hands": [4]}), 4, "basic", "You",
                          seed=3, save=str(tmp_path / "g.json"))
    bot, rng = BasicBot(), random.Random(1)
    while not all(session.view().down) or not session.human_to_act():
        if session.human_to_act():
            session.act(bot.choose(session.view(), session.legal(), rng))
        else:
            assert session.step_bot() is not None
    assert len(session.view().melds) == 12
    return session


def melds_in_sight(app: PlayApp) -> set[int]:
    """The numbers of the melds whose lines the table panel shows whole now."""
    box = app.query_one("#melds-box")
    melds = app.query_one("#melds", Static)
    top, height = round(box.scroll_y), box.scrollable_content_region.height
    rows = [strip.text for strip in melds.render_lines(
        Region(0, 0, melds.size.width, melds.size.height))]
    spans: dict[int, list[int]] = {}  # each meld's first and last row
    meld = None
    for y, row in enumerate(rows):
        start = re.match(r"\s*\[(\d+)\]", row)
        if start:
            meld = int(start.group(1))
            spans[meld] = [y, y]
        elif row.strip() and not row.startswith(" "):
            meld = None  # an owner's name
        elif meld is not None and row.strip():
            spans[meld][1] = y  # the meld's line, wrapped
    return {m for m, (first, last) in spans.items() if top <= first and last < top + height}


async def test_at_80x24_no_meld_is_hidden_without_a_word(tmp_path: Path) -> None:
    session = all_down(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        box = app.query_one("#melds-box")
        seen = melds_in_sight(app)
        assert len(seen) < 12  # the panel is too short for the table
        hint = str(box.border_subtitle)
        assert f"+{12 - len(seen)} more melds below" in hint and "PgDn" in hint
        assert box.show_vertical_scrollbar
        for _ in range(12):
            await pilot.press("pagedown")
            await pilot.pause()
            seen |= melds_in_sight(app)
        assert seen == set(range(12))
        assert "above" in str(box.border_subtitle) and "below" not in str(box.border_subtitle)
        cursor = app.cursor
        await pilot.press("pageup")  # the keys of the hand still move in the hand
        await pilot.press("right")
        assert app.cursor == min(cursor + 1, len(app.shown_hand()) - 1)


@pytest.mark.parametrize("key", ["question_mark", "r"])
async def test_at_80x24_help_and_rules_scroll_and_say_so(tmp_path: Path, key: str) -> None:
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        panel = app.screen.query_one(ScrollPanel)
        assert panel.max_scroll_y > 0 and panel.show_vertical_scrollbar  # it is cut
        assert "↓ more below" in str(panel.border_subtitle)
        assert "PgUp/PgDn scroll" in str(panel.border_subtitle)
        await pilot.press("end")
        await pilot.pause()
        assert panel.scroll_y == panel.max_scroll_y
        assert "↓ more below" not in str(panel.border_subtitle)
        assert "↑ more above" in str(panel.border_subtitle)


def guide_texts(app: PlayApp) -> dict[str, str]:
    """The walk-through's notes on screen, by the panel they sit by."""
    return {near: text_of(app.query_one(f"#guide-{near}", Static)).strip()
            for near in ("pile", "melds", "hand", "prompt")
            if app.query_one(f"#guide-{near}", Static).display}


async def test_the_first_game_walk_through_follows_one_turn(tmp_path: Path) -> None:
    from liverpool.tui.guide import GUIDE_FILE, Guide
    session = scenario_session(tmp_path)
    app = PlayApp(session, pace=0, guide=Guide(folder=tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        notes = guide_texts(app)
        assert list(notes) == ["pile"] and "1/5" in notes["pile"] and "Draw:" in notes["pile"]
        await pilot.press("d")
        await pilot.pause()
        notes = guide_texts(app)  # the play: each note beside what it is about
        assert set(notes) == {"hand", "melds", "prompt"}
        assert "Go down:" in notes["hand"] and "Lay off:" in notes["melds"]
        assert "Discard:" in notes["prompt"]
        await pilot.press("g", "escape")  # going down and back: the notes stay till the discard
        assert set(guide_texts(app)) == {"hand", "melds", "prompt"}
        await point_at(pilot, app, "KD")
        await pilot.press("d")
        await pilot.pause()
        notes = guide_texts(app)  # Bob's 7D: the May I? question
        assert list(notes) == ["prompt"] and "5/5 · May I?:" in notes["prompt"]
        assert not (tmp_path / GUIDE_FILE).exists()
        await pilot.press("p")
        await pilot.pause()
        assert guide_texts(app) == {} and (tmp_path / GUIDE_FILE).exists()
        assert "That was the whole walk-through" in prompt_of(app)


async def test_the_walk_through_is_skipped_with_esc_and_comes_back_with_i(
        tmp_path: Path) -> None:
    from liverpool.tui.guide import GUIDE_FILE, Guide
    app = PlayApp(scenario_session(tmp_path), pace=0, guide=Guide(folder=tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert guide_texts(app)
        await pilot.press("escape")
        assert guide_texts(app) == {} and (tmp_path / GUIDE_FILE).exists()
        await pilot.press("i")
        assert "Draw:" in guide_texts(app)["pile"]


@pytest.mark.parametrize(("history", "done", "offered"), [
    (False, False, True), (True, False, False), (False, True, False)])
def test_the_walk_through_is_offered_on_the_first_game_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, history: bool, done: bool,
        offered: bool) -> None:
    """The app offers it when the history has no game and it was never done or skipped."""
    from liverpool import cli, tui
    from liverpool.tui import app as app_module
    from liverpool.tui.guide import GUIDE_FILE

    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("LIVERPOOL_DATA_DIR", str(data))
    if history:
        (data / "history.jsonl").write_text("{}\n")
    if done:
        (data / GUIDE_FILE).write_text("{}")
    given: list[object] = []

    class Shown:
        def __init__(self, session: Session, guide: object = None) -> None:
            given.append(guide)

        def run(self) -> None:
            pass

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(app_module, "PlayApp", Shown)
    monkeypatch.setattr(tui.sys, "stdin", Terminal())
    monkeypatch.setattr(tui.sys, "stdout", Terminal())
    assert cli.main(["play", "--seed", "3", "--save", str(tmp_path / "g.json")]) == 0
    assert (given[0] is not None) == offered


async def test_watch_at_80x24_says_when_the_table_is_longer_than_its_box(
        tmp_path: Path) -> None:
    # the watch's table panel cut the melds of four players down with no sign of them
    from liverpool.record import game_record
    session = all_down(tmp_path)
    replayer = Replayer(json.loads(json.dumps(game_record(session.game))))
    app = WatchApp(replayer, "g.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        await pilot.pause()
        box = app.query_one("#melds-box", ScrollPanel)
        assert box.max_scroll_y > 0 and box.show_vertical_scrollbar
        assert "↓ more below" in str(box.border_subtitle)
        for _ in range(20):
            await pilot.press("down")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        assert "↑ more above" in str(box.border_subtitle)
        assert "↓ more below" not in str(box.border_subtitle)
        assert app.step == len(replayer.actions)  # ↑/↓ scroll; they do not step


# ---- the replay with a review (liverpool replay FILE --watch --review) ------------------------
def joker_record() -> dict[str, object]:
    """A short record in which seat 0 throws its joker away for nothing (a blunder: the
    review's tests show it), then seat 1 plays a turn."""
    from liverpool.record import game_record
    g = stacked_game("classic", ["3H 4H JK 6H 9D 9C 2S 8D KD QC 10S",
                                 "2H 3C 5C 6C 8D 10H JS QS KS AH AD",
                                 "2S 3S 4D 5D 6S 8H 10D JD QD KH AC"], "2C", "7C", dealer=2,
                     overrides={"hands": [2]}, contract_no=2, names=["Ann", "Bea", "Cy"])
    from liverpool.engine import Phase

    def turn(seat: int, discard: str) -> None:
        g.apply(Action.from_json({"player": seat, "type": "draw"}))
        while g.phase is Phase.BUY:  # every seat asked passes
            g.apply(Action.from_json({"player": g.to_act()[0], "type": "pass"}))
        g.apply(Action.from_json({"player": seat, "type": "discard", "card": discard}))
    turn(0, "JK")
    turn(1, "KS")
    rec: dict[str, object] = game_record(g)
    return rec


async def test_watch_with_a_review_shows_each_labelled_decision_and_m_jumps_to_it() -> None:
    from liverpool.review import review
    rec = joker_record()
    seat_review = review(rec, [0]).seats[0]
    marked = [d for d in seat_review.decisions if d.label is not None]
    assert [d.index for d in marked] == [3] and marked[0].label == "blunder"
    app = WatchApp(Replayer(rec), "j.json", seat_review)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        line = app.query_one("#verdict", Static)
        assert "review of Ann: accuracy" in text_of(line) and "1 blunder (??)" in text_of(line)
        await pilot.press("m")  # to the decision labelled: Ann's discard of the joker
        await pilot.pause()
        assert app.step == 4
        shown = text_of(line)
        assert "?? blunder" in shown and "played: discard JK" in shown
        assert "better: discard K♦" in shown and "threw away a wild card" in shown
        log = [e.plain for e in app.query_one("#log", TailLog).entries]
        assert any(x.startswith("   4 ") and x.endswith(" ??") for x in log), log
        assert any("blunder: better: discard K♦" in x for x in log), log
        await pilot.press("right")  # Bea's draw: no verdict of Ann's
        await pilot.pause()
        assert "?? blunder" not in text_of(line) and "review of Ann" in text_of(line)
        await pilot.press("m")  # no labelled decision after: the frame stays
        await pilot.pause()
        assert app.step == 5
        await pilot.press("M")
        await pilot.pause()
        assert app.step == 4
        keys = text_of(app.query_one("#keys", Static))
        assert "m/M next/previous labelled decision" in keys


async def test_watch_without_a_review_has_no_verdict_line(tmp_path: Path) -> None:
    app = WatchApp(Replayer(joker_record()), "j.json")
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.press("right", "right", "right", "right")
        await pilot.pause()
        assert not app.query_one("#verdict", Static).display
        assert not any("??" in e.plain for e in app.query_one("#log", TailLog).entries)


def test_replay_review_into_a_pipe_prints_the_review(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from liverpool.cli import main as cli_main
    path = tmp_path / "j.json"
    path.write_text(json.dumps(joker_record()))
    assert cli_main(["replay", str(path), "--watch", "--review", "--workers", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("review of Ann: accuracy") and "1 blunder (??)" in out[0]
    at = next(i for i, x in enumerate(out) if x.startswith("   4 Ann discards JK"))
    assert out[at].endswith(" ??")
    assert out[at + 1].strip().startswith("blunder: better: discard KD; Discarding JK threw")
    assert "  worst:" in out and any(x.startswith("     4 ?? blunder") for x in out)
    # another seat, named by --seat: Bea's decisions, none labelled here
    assert cli_main(["replay", str(path), "--review", "--seat", "1"]) == 0
    assert capsys.readouterr().out.startswith("review of Bea:")
    assert cli_main(["replay", str(path), "--review", "--seat", "3"]) == 2
    assert "--seat must be 0 to 2" in capsys.readouterr().err
