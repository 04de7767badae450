"""The plain line mode of ``liverpool play --plain``, through its stdin and stdout: a stacked hand
played with typed commands (an illegal one refused with the engine's reason), a whole 7-hand
game against three basic bots typed command by command, saving as it goes, ``--resume``, and
clear refusals of bad input."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import stacked_game
from test_tui import ScriptBot, one_card_session, scenario_game, scenario_session

from liverpool.actions import Action
from liverpool.bots import BasicBot
from liverpool.cards import card_str, parse_cards
from liverpool.record import replay
from liverpool.rules import RuleSet
from liverpool.rulestext import PRESET_LINES, rules_sheet
from liverpool.tui.plain import run_plain
from liverpool.tui.session import Session, command_words, seat_file_for

ROOT = Path(__file__).resolve().parents[1]
LIVERPOOL = [sys.executable, "-m", "liverpool.cli"]


def run_lines(session: Session, lines: list[str]) -> str:
    out = io.StringIO()
    assert run_plain(session, io.StringIO("".join(f"{x}\n" for x in lines)), out) == 0
    return out.getvalue()


def test_a_stacked_hand_typed_line_by_line(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    game = session.game
    bad = Action("go_down", 0, melds=(tuple(parse_cards("7H 7S 4C")),))
    text = run_lines(session, [
        "draw",
        "frobnicate",
        "discard",
        "down 7H 7S 4C",  # checked after the draw: an illegal go-down
        "discard KD",
        "buy",
        "draw",
        "down 7H 7S 7D / JK 4C 5C 7C",  # the joker's place is found: it stands for 6C
        "lay 8C 1",
        "lay 9C 0",
        "swap 6C 1",
        "lay JK 0",
        "lay 9C 1", "lay 10C 1", "lay 3C 1", "lay 2C 1",
        "scores",
        "discard JH",
    ])
    assert "Not understood: unknown command 'frobnicate'" in text
    assert "Not understood: write discard CARD" in text
    # the refusal is the engine's reason for the go-down as typed
    fresh = scenario_game()
    fresh.apply(Action("draw", 0))
    while fresh.to_act() != (0,):
        fresh.apply(Action("pass", fresh.to_act()[0]))
    assert f"Not allowed: {fresh.why_illegal(bad)}." in text
    assert "You buy 7D (+1 penalty card: 10C)" in text  # the person's own card is named
    assert "You go down: 7S 7H 7D | 4C 5C JK 7C" in text  # the set as the table holds it
    assert "4C 5C JK(6C) 7C" in text  # the table shows what the wild stands for
    assert "You swap 6C for the JK in your run: 4C 5C 6C 7C 8C" in text
    reason = "Not allowed: "
    assert text.count(reason) == 2  # the go-down and 9C on the set of sevens
    assert "You discard JH and go out" in text
    assert "--- Hand 1 over: You went out. ---" in text
    assert "Score sheet:" in text and "Game over. Winner: You." in text
    assert game.over and game.winners == (0,)
    rec = json.loads((tmp_path / "game.json").read_text())
    assert replay(rec).game.over


class Typist(io.TextIOBase):
    """Stands in for a person at the keyboard: every time the plain mode reads a line, it types
    the command for what a basic player would do now, in the command words of the help."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.bot = BasicBot()
        self.rng = random.Random(5)
        self.typed: list[str] = []

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        s = self.session
        a = self.bot.choose(s.view(), s.legal(), self.rng)
        line = command_for(a)
        self.typed.append(line)
        return line + "\n"


def command_for(a: Action) -> str:
    t = a.type
    if t in ("draw", "pass", "nodraw"):
        return t
    if t == "take_discard":
        return "take"
    if t == "no_draw":
        return "nodraw"
    if t == "buy":
        return "buy" + (f" {a.depth}" if a.depth else "")
    if t == "go_down":
        return "down " + " / ".join(" ".join(card_str(c) for c in m) for m in a.melds or ())
    assert a.card is not None or t in ("call", "cut", "borrow")
    if t == "lay_off":
        return f"lay {card_str(a.card or 0)} {a.meld}" + (f" {a.end}" if a.end else "")
    if t == "swap_joker":
        return f"swap {card_str(a.card or 0)} {a.meld}" + (
            f" {card_str(a.wild)}" if a.wild is not None else "")
    if t == "discard":
        return f"discard {card_str(a.card or 0)}"
    if t == "give":
        return f"give {card_str(a.card or 0)}"
    if t == "call":
        return "call" + (f" {a.meld}" if a.meld is not None else "") + (
            f" {a.end}" if a.end else "")
    if t == "cut":
        return f"cut {a.count}"
    return json.dumps(a.to_json())


def test_a_whole_seven_hand_game_against_three_basic_bots(tmp_path: Path) -> None:
    session = Session.new(RuleSet.preset("standard"), 4, "basic", "You", seed=2024,
                          save=str(tmp_path / "g.json"))
    typist = Typist(session)
    out = io.StringIO()
    assert run_plain(session, typist, out) == 0
    text = out.getvalue()
    game = session.game
    assert game.over and len(game.scores) == 7
    assert "Not allowed" not in text and "Not understood" not in text
    # the person, named "You", is never a third person: not "You's set", "You deals"
    wrong = re.findall(r"\bYou's\b|\bYou (?:draws|lays|takes|buys|goes|swaps|borrows|discards|"
                       r"calls|gives|cuts|passes|deals|has|is|was)\b", text)
    assert wrong == []
    assert "You deal ===" in text and "You lay " in text and "You go down" in text
    for h in range(1, 8):
        assert f"=== Hand {h} of 7:" in text and f"--- Hand {h} over:" in text
    assert "Score sheet:" in text and "Game over. Winner" in text
    assert any(x.startswith("down ") for x in typist.typed)
    assert any(x.startswith("lay ") for x in typist.typed)
    rec = json.loads((tmp_path / "g.json").read_text())
    assert replay(rec).game.totals == game.totals


def test_saving_and_resuming_through_the_command(tmp_path: Path) -> None:
    save = tmp_path / "saved.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    first = subprocess.run(
        [*LIVERPOOL, "play", "--plain", "--seed", "11", "--bots", "basic,random,basic",
         "--save", str(save)], input="hint\n", capture_output=True, text=True,
        timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    assert "Hint: " in first.stdout
    # the exit line's command works as typed: run as a module, the interpreter and -m (a bare
    # "liverpool" is not on the PATH of the README's set-up)
    resume = first.stdout.split("go on with: ")[1].splitlines()[0]
    assert resume == f"{shlex.quote(sys.executable)} -m liverpool.cli play --resume {save}"
    rec = json.loads(save.read_text())
    assert rec["seed"] == 11 and rec["players"] == ["You", "Bob", "Cy", "Dee"]
    seats = json.loads(seat_file_for(save).read_text())
    assert seats["human"] == 0 and seats["bots"] == [None, "basic", "random", "basic"]
    # the bots played up to the person's first decision; go on from there twice
    for _ in range(2):
        n_before = len(rec["actions"])
        game = replay(rec).game
        assert 0 in game.to_act()
        choice = BasicBot().choose(game.view_for(0), game.legal_actions(0), random.Random(1))
        again = subprocess.run([*shlex.split(resume), "--plain"],
                               input=command_for(choice) + "\n", capture_output=True,
                               text=True, timeout=120, env=env)
        assert again.returncode == 0, again.stderr
        assert "(random, level 1)" in again.stdout  # the seat file brought the bots back
        assert "Not allowed" not in again.stdout and "Not understood" not in again.stdout
        new = json.loads(save.read_text())
        assert new["actions"][:n_before] == rec["actions"]
        assert new["actions"][n_before] == choice.to_json()
        assert replay(new).error is None
        rec = new


def test_resume_in_process_keeps_the_seats(tmp_path: Path) -> None:
    game = scenario_game()
    session = Session(game, 0, [None, "expert", "random"], tmp_path / "game.json", bot_seed=1,
                      bots=[None, ScriptBot(), ScriptBot()])
    session.save_seats()
    run_lines(session, ["draw", "discard KD"])
    n = len(session.game.actions)
    again = Session.resume(str(tmp_path / "game.json"))
    assert again.human == 0 and again.levels == [None, "expert", "random"]
    assert [b.name if b else None for b in again.bots] == [None, "expert", "random"]
    assert len(again.game.actions) == n
    assert again.game.snapshot() == session.game.snapshot()
    # without the seat file: the seat named like the person, and the bots given
    seat_file_for(tmp_path / "game.json").unlink()
    third = Session.resume(str(tmp_path / "game.json"), bots="random", name="Bob")
    assert third.human == 1 and third.levels == ["random", None, "random"]


def test_bad_input_is_refused_with_a_reason(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    bad_bots = subprocess.run([*LIVERPOOL, "play", "--plain", "--bots", "basic,basic",
                               "--save", str(tmp_path / "x.json")], input="",
                              capture_output=True, text=True, timeout=60, env=env)
    assert bad_bots.returncode == 2
    assert "--bots names 2 bots for 3 computer seats" in bad_bots.stderr
    assert not (tmp_path / "x.json").exists()
    (tmp_path / "broken.json").write_text("{not json")
    broken = subprocess.run([*LIVERPOOL, "play", "--plain", "--resume",
                             str(tmp_path / "broken.json")], input="", capture_output=True,
                            text=True, timeout=60, env=env)
    assert broken.returncode == 2 and "not a game record" in broken.stderr
    piped = subprocess.run([*LIVERPOOL, "play", "--seed", "1", "--save",
                            str(tmp_path / "p.json")], input="quit\n", capture_output=True,
                           text=True, timeout=60, env=env)
    assert piped.returncode == 0 and "using the plain line mode" in piped.stderr


def test_an_illegal_command_changes_nothing(tmp_path: Path) -> None:
    session = Session(scenario_game(), 0, [None, "script", "script"], tmp_path / "g.json",
                      bot_seed=1, bots=[None, ScriptBot(), ScriptBot()])
    text = run_lines(session, ["discard KD", "lay 7H 0", "take"])
    assert "Not allowed: discard is not possible now" in text
    assert "Not allowed: lay_off is not possible now" in text
    assert "You take AH" in text
    assert [a.type for a in session.game.actions][:1] == ["take_discard"]


def test_down_alone_takes_the_suggested_go_down(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    text = run_lines(session, ["down", "draw", "down"])
    assert "Not allowed: go_down is not possible now" in text
    gone = [a for a in session.game.actions if a.type == "go_down"]
    assert len(gone) == 1 and session.game.down[0]
    fresh = scenario_game()
    for a in session.game.actions[:session.game.actions.index(gone[0])]:
        fresh.apply(a)
    assert [x for x in fresh.legal_actions(0) if x.type == "go_down"] == gone


def test_the_person_answers_a_first_call_round_before_the_bots(tmp_path: Path) -> None:
    # standard, first call: the bot on seat 1 draws; seats 2 and 0 may buy the upcard KC.
    # The person is asked first (people before bots), though seat 2 sits nearer the drawer.
    hands = ["AH 3H 4H 5H 6S 8S 10H JS QS 2C", "7H 7S 7D 9D 9C 9S 7C 4C 6D KD",
             "AS 3S 5S 6H 8H 10S JH QH KS 4D"]
    for answer, record in (("buy", [(1, "draw"), (0, "buy")]),
                           ("pass", [(1, "draw"), (0, "pass"), (2, "pass")])):
        game = stacked_game("standard", hands, upcard="KC", stock="QC 5D 8D",
                            overrides={"buy_priority": "first_call"}, names=["You", "Bob", "Cy"])
        session = Session(game, 0, [None, "script", "script"], tmp_path / f"{answer}.json",
                          bot_seed=1, bots=[None, ScriptBot(["KD"]), ScriptBot()])
        text = run_lines(session, [answer])
        # asked right after the draw, before any word from Cy
        assert text.split("Bob draws from the stock\n")[1].split("\n")[4] == \
            "? Buy KC? (+1 penalty card; buys used 0) (pass hand: no more buys asked this hand)"
        assert [(a.player, a.type) for a in game.actions][:len(record)] == record
        if answer == "buy":
            assert "You buy KC (+1 penalty card: QC)" in text


def test_a_warning_is_a_line_of_its_own_and_the_question_follows_it(tmp_path: Path) -> None:
    text = run_lines(one_card_session(tmp_path), ["draw", "discard KD", "pass"])
    lines = text.split("\n")
    warned = lines.index("Warning: Bob has one card left.")
    question = "? Buy QH? (+1 penalty card; buys used 0) (pass hand: no more buys asked this " \
        "hand)"
    asked = [i for i, line in enumerate(lines) if line == question]
    assert asked and asked[0] > warned  # the question is asked after the warning, whole


def test_the_rules_command_prints_the_tables_rules_sheet(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)  # classic, playing only contract 2
    text = run_lines(session, ["rules"])
    assert text.startswith("Liverpool Rummy, classic rules (changed: 1).")
    lines = text.split("\n")
    head = f"Rules: classic rules (changed: 1). {PRESET_LINES['classic']}"
    start = next(i for i, line in enumerate(lines) if line.endswith(head))  # after the "> "
    for heading, items in rules_sheet(session.game.rules, contract_no=2, buys_used=0,
                                      players=session.game.n):
        at = lines.index(f"{heading}:", start)
        for k, item in enumerate(items, 1):
            mark = item.startswith("▶ ")
            words = item[2:] + " (this hand)" if mark else item.strip()
            assert lines[at + k] == f"  {words}"
    assert "  1. 1 set + 1 run (11 cards) (this hand)" in lines
    assert "  Which contracts are played: [2]" in lines
    assert "▶" not in text  # plain words only
    # the cards this table uses, for its own number of players
    assert f"  This table of {session.game.n} players uses " in "\n".join(lines)


def test_a_terminal_game_searches_go_downs_within_the_persons_budget(tmp_path: Path) -> None:
    """A person who buys every card offered grows a hand whose best go-down takes seconds to
    prove; the terminal game, new or resumed, lists moves within the budget a server uses."""
    from liverpool.solver import PERSON_SEARCH_BUDGET
    from liverpool.web.limits import Limits
    session = Session.new(RuleSet.preset("standard", {"hands": [1]}), 3, "basic", "You",
                          seed=5, save=str(tmp_path / "game.json"))
    assert session.game.search_budget == PERSON_SEARCH_BUDGET == Limits().search_budget
    again = Session.resume(str(tmp_path / "game.json"))
    assert again.game.search_budget == PERSON_SEARCH_BUDGET


def test_the_exit_lines_command_is_the_one_that_started_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``liverpool`` only when that name on the PATH is this program; else the script's path
    as typed (``.venv/bin/liverpool`` of the README), or the interpreter with ``-m``."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "liverpool"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    assert command_words("venv/bin/liverpool") == "venv/bin/liverpool"
    monkeypatch.setenv("PATH", str(bin_dir))
    assert command_words(str(script)) == "liverpool"
    assert command_words("/opt/liverpool/cli.py", "/usr/bin/python3") == \
        "/usr/bin/python3 -m liverpool.cli"
    monkeypatch.setattr(sys, "argv", ["venv/bin/liverpool", "play"])
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    session = scenario_session(tmp_path)
    assert session.saved_message().endswith(
        f"go on with: venv/bin/liverpool play --resume {tmp_path / 'game.json'}")


def test_plain_writes_the_record_notation_and_reads_both(tmp_path: Path) -> None:
    """One notation in the plain mode (``7H``, which a screen reader says as written); a card
    may be typed either way (``K♦`` or ``KD``)."""
    session = scenario_session(tmp_path)
    text = run_lines(session, ["draw", "discard K♦", "buy"])
    assert "You discard KD" in text and "You buy 7D (+1 penalty card: 10C)" in text
    assert not set("♠♥♦♣") & set(text)


def test_every_card_the_person_receives_is_named(tmp_path: Path) -> None:
    """A screen-reader user need not compare hand lists: the deal, the card drawn, bought (with
    its penalty card), taken from the pile and the wild swapped back each get a line that
    names them, read from the engine's events."""
    text = run_lines(scenario_session(tmp_path), [
        "draw", "discard KD", "buy", "draw", "down 7H 7S 7D / JK 4C 5C 7C", "lay 8C 1",
        "swap 6C 1"])
    dealt = re.search(r"Dealt to you \(11 cards\): (.*)\.", text)
    assert dealt is not None
    assert sorted(parse_cards(dealt.group(1))) == sorted(parse_cards(
        "7H 7S 4C 5C 7C JK 8C 9C 3C 2C KD"))
    assert "Into your hand: JH (drawn from the stock)." in text
    assert "Into your hand: 7D (bought from the discard pile); 10C (penalty card)." in text
    assert "Into your hand: 6C (drawn from the stock)." in text
    assert "Into your hand: JK (the wild you swapped out of a meld)." in text
    assert text.index("Dealt to you") < text.index("Into your hand: JH")
    taken = run_lines(scenario_session(tmp_path / "t"), ["take"])
    assert "Into your hand: AH (taken from the discard pile)." in taken


def test_a_resumed_game_says_this_hand_so_far(tmp_path: Path) -> None:
    from test_tui import saved_midway
    session = Session.resume(str(saved_midway(tmp_path)))
    text = run_lines(session, [])
    so_far = text[text.index("This hand so far:"):]
    for line in ("You draw from the stock", "Your draw from the stock: JH", "You discard KD",
                 "Bob draws from the stock\n", "You buy 7D (+1 penalty card: 10C)"):
        assert line in so_far, line
    assert so_far.index("You discard KD") < so_far.index("You buy 7D")


def test_pass_hand_stops_the_buy_questions_of_this_hand(tmp_path: Path) -> None:
    session = scenario_session(tmp_path)
    text = run_lines(session, ["draw", "discard KD", "pass hand", "draw", "discard 7C"])
    assert "(pass hand: no more buys asked this hand)" in text
    assert "No buy will be asked of you again this hand." in text
    assert text.count("? Buy ") == 1  # Bob's second discard was passed for the person
    assert session.view().phase == "draw" and session.human_to_act()


def test_the_plain_mode_walks_through_only_when_asked(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Not a terminal (CI, a pipe): the plain mode, which never stops for the walk-through and
    says it only with --guide."""
    from liverpool import cli
    for flags, said in (([], False), (["--guide"], True)):
        monkeypatch.setattr(sys, "stdin", io.StringIO("pass\npass\nquit\n"))
        save = tmp_path / f"g{len(flags)}.json"
        assert cli.main(["play", "--seed", "3", "--save", str(save), *flags]) == 0
        out = capsys.readouterr().out
        # this seed's first two decisions are buys: the note once, read with the first pass
        assert out.count("Guide, 5 of 5: May I?") == (1 if said else 0)
        assert out.count("? Buy ") == 2
