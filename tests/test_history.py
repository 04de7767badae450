"""The terminal's profile and history: a plain game played to its end is counted once (place
and points from its record's replay, the rating moved by exactly what ``ratings.rate`` gives),
the name is remembered, a damaged profile is kept and named, and ``liverpool history`` pages
newest first, as a table or as JSON. Every test has its own data directory (conftest)."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from test_play_plain import Typist

from liverpool import cli, paths, profile
from liverpool.bots import make_bot
from liverpool.engine import Game
from liverpool.match import Match
from liverpool.ratings import BOT_RATINGS, Entry, Rating, rate
from liverpool.record import game_record
from liverpool.rules import RuleSet
from liverpool.standings import standings_of_record
from liverpool.tui import plain
from liverpool.tui.session import seat_file_for

RUN_PLAIN = plain.run_plain
ONE_HAND = ["--rules", "standard", "--override", "hands=[1]", "--players", "3"]


def data() -> Path:
    return Path(os.environ[paths.ENV])


def typed_by_a_basic_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain mode reads the person's lines from a typist that plays like the basic bot."""
    monkeypatch.setattr(plain, "run_plain",
                        lambda session, inp, out: plain.PlainUI(session, Typist(session),
                                                                out).run())


def history(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert cli.main(["history", "--json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_a_plain_game_played_to_its_end_is_counted_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    typed_by_a_basic_player(monkeypatch)
    save = tmp_path / "g.json"
    assert cli.main(["play", "--plain", *ONE_HAND, "--bots", "basic,random", "--seed", "7",
                     "--name", "Ann", "--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert "Game over." in out
    rec = json.loads(save.read_text())
    _, standings = standings_of_record(rec)
    me = standings[0]
    rated = [Entry(Rating(), me.place), Entry(BOT_RATINGS["level:5"], standings[1].place, True),
             Entry(BOT_RATINGS["level:1"], standings[2].place, True)]
    after = rate(rated)[0]
    change = f"Rating {Rating().text()} -> {after.text()} ({after.shown - Rating().shown:+d})"
    assert change in out and f"of 3 with {me.points} point" in out

    got = history(capsys)
    assert got["total"] == 1 and len(got["games"]) == 1
    game = got["games"][0]
    assert (game["place"], game["points"], game["players"]) == (me.place, me.points, 3)
    assert game["rating_before"] == profile.rating_json(Rating())
    assert Rating.from_json(game["rating_after"]) == after  # exactly: unrounded
    assert got["rating"] == {**profile.rating_json(after), "games": 1}
    assert game["preset"] == "standard" and game["overrides"] == {"hands": [1]}
    assert game["seats"] == [{"name": "Ann", "kind": "person", "level": None},
                             {"name": "Bob", "kind": "bot", "level": "basic"},
                             {"name": "Cy", "kind": "bot", "level": "random"}]
    assert game["seat"] == 0 and game["record"] == str(save.resolve())
    assert game["id"] == json.loads(seat_file_for(save).read_text())["game"]
    assert got["stats"]["standard"]["games"] == 1 and got["stats"]["standard"]["hands"] == 1

    # resumed, the finished game shows its end again but is not counted twice
    assert cli.main(["play", "--plain", "--resume", str(save)]) == 0
    assert change in capsys.readouterr().out
    again = history(capsys)
    assert again["total"] == 1 and again["rating"] == got["rating"]

    # the name is remembered: a new game without --name seats "Ann"
    monkeypatch.setattr(plain, "run_plain", RUN_PLAIN)  # no typist: this game is quit at once
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--plain", *ONE_HAND, "--seed", "8",
                     "--save", str(tmp_path / "h.json")]) == 0
    assert json.loads((tmp_path / "h.json").read_text())["players"][0] == "Ann"
    assert history(capsys)["total"] == 1  # a quit game is not in the history
    assert profile.load(data()).name == "Ann"


def finished_record(seed: int = 3) -> dict[str, Any]:
    game = Game(RuleSet.preset("standard", {"hands": [1]}), ["Ann", "Bob", "Cy"], seed=seed)
    with Match(game, [make_bot("basic") for _ in range(3)]) as match:
        match.run()
    return game_record(game)


SEATS = [profile.Seat("Ann", "person"), profile.Seat("Bob", "bot", "expert"),
         profile.Seat("Cy", "bot", "cmd:my-bot")]  # a bot with no rating: a newcomer's


def test_the_same_game_recorded_twice_is_added_once(tmp_path: Path) -> None:
    rec = finished_record()
    first = profile.record_game("g1", rec, tmp_path / "g.json", SEATS, 0)
    second = profile.record_game("g1", rec, tmp_path / "g.json", SEATS, 0)
    assert first.added and not second.added and second.entry == first.entry
    assert first.entry["rated_seats"] == 3
    # the update is the model's: the expert fixed, the unmeasured bot a newcomer
    _, standings = standings_of_record(rec)
    want = rate([Entry(Rating(), standings[0].place),
                 Entry(BOT_RATINGS["level:7"], standings[1].place, True),
                 Entry(Rating(), standings[2].place)])[0]
    assert Rating.from_json(first.entry["rating_after"]) == want
    lines = profile.history_path(data()).read_text().splitlines()
    assert len(lines) == 1
    prof = profile.load(data())
    assert prof.games == 1 and prof.stats["standard"].games == 1
    assert prof.rating == want
    # the profile was saved but the history's line was lost (a crash between the two): the
    # next call writes the line, and counts nothing again
    profile.history_path(data()).unlink()
    third = profile.record_game("g1", rec, tmp_path / "g.json", SEATS, 0)
    assert third.entry == first.entry
    assert profile.load(data()).games == 1
    assert len(profile.history_path(data()).read_text().splitlines()) == 1
    # a second game starts from the first's rating
    fourth = profile.record_game("g2", rec, tmp_path / "g2.json", SEATS, 0)
    assert fourth.entry["rating_before"] == first.entry["rating_after"]
    assert profile.load(data()).games == 2


def test_a_damaged_profile_is_kept_and_named(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = profile.profile_path(data())
    data().mkdir(parents=True, exist_ok=True)
    path.write_text('{"name": "Ann", "rating": ')
    with pytest.raises(profile.ProfileError) as err:
        profile.load(data())
    assert "damaged" in str(err.value) and "profile.json.bad" in str(err.value)
    assert "\n" not in str(err.value)
    assert path.with_name("profile.json.bad").read_text() == path.read_text()
    assert cli.main(["history"]) == 1
    stderr = capsys.readouterr().err
    assert stderr.count("\n") == 1 and "damaged" in stderr
    with pytest.raises(profile.ProfileError):
        profile.record_game("g1", finished_record(), tmp_path / "g.json", SEATS, 0)
    with pytest.raises(profile.ProfileError):
        profile.set_name("Bo", data())
    assert path.read_text() == '{"name": "Ann", "rating": '  # never overwritten
    assert not profile.history_path(data()).exists()


def synthetic(n: int) -> None:
    with profile.history_path(data()).open("w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"g{i}", "date": f"2024-01-01T00:{i:02d}:00+00:00",
                                "preset": "standard", "seats": [], "seat": 0, "place": 1,
                                "points": i, "players": 4, "rating_before": Rating().to_json(),
                                "rating_after": Rating(1510, 480).to_json(),
                                "record": f"g{i}.json"}) + "\n")


def test_paging_newest_first(capsys: pytest.CaptureFixture[str]) -> None:
    data().mkdir(parents=True, exist_ok=True)
    synthetic(45)
    first = history(capsys)
    assert (first["total"], first["offset"], first["limit"]) == (45, 0, 20)
    assert [g["id"] for g in first["games"]] == [f"g{i}" for i in range(44, 24, -1)]
    last = history(capsys, "--offset", "40", "--limit", "10")
    assert [g["id"] for g in last["games"]] == ["g4", "g3", "g2", "g1", "g0"]
    assert history(capsys, "--offset", "45")["games"] == []
    assert set(first) == {"games", "total", "offset", "limit", "rating", "stats"}
    assert first["rating"]["rating"] == 1500 and first["stats"] == {}

    assert cli.main(["history", "--offset", "20"]) == 0
    text = capsys.readouterr().out
    assert "Games 21-40 of 45 (page 2 of 3). Next page: liverpool history --offset 40" in text
    assert "1500? -> 1510? (+10)" in text and "g24.json" in text and "g5.json" in text
    assert "g25.json" not in text and "g4.json" not in text
    assert cli.main(["history", "--offset", "40", "--limit", "5"]) == 0
    assert "Games 41-45 of 45 (page 9 of 9)." in capsys.readouterr().out
    assert cli.main(["history", "--offset", "100"]) == 0
    assert "the last page starts at --offset 40" in capsys.readouterr().out


def test_bad_arguments_and_an_empty_history(capsys: pytest.CaptureFixture[str]) -> None:
    for bad, words in ((["--limit", "0"], "a page is 1 to 200 games"),
                       (["--limit", "201"], "a page is 1 to 200 games"),
                       (["--offset", "-1"], "an offset is 0 or more"),
                       (["--limit", "ten"], "not a whole number")):
        with pytest.raises(SystemExit) as stop:
            cli.main(["history", *bad])
        assert stop.value.code == 2 and words in capsys.readouterr().err
    assert cli.main(["history"]) == 0
    assert "No games in your history yet: play one" in capsys.readouterr().out
    assert cli.main(["history", "--stats"]) == 0
    assert "Rating 1500?" in capsys.readouterr().out


def test_stats_after_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = finished_record()
    profile.record_game("g1", rec, tmp_path / "g.json", SEATS, 0)
    got = history(capsys)
    figures = got["stats"]["standard"]
    assert figures["games"] == 1 and figures["contracts"][0]["hands"] == 1
    assert set(figures) >= {"wins", "mean_place", "points_per_hand", "going_out_rate",
                            "buys_per_hand", "contracts"}
    assert cli.main(["history", "--stats"]) == 0
    text = capsys.readouterr().out
    assert "By rules" in text and "Contracts made: standard" in text
    assert "after 1 rated game" in text


async def test_the_apps_end_shows_the_place_and_the_rating(tmp_path: Path) -> None:
    from test_tui import prompt_of, scenario_session, text_of
    from textual.widgets import Static

    from liverpool.tui.app import PlayApp
    from liverpool.tui.widgets import Notice

    session = scenario_session(tmp_path)
    session.end_listener = cli.profile_listener(data())
    ui = plain.PlainUI(session, io.StringIO(), io.StringIO())
    for line in ["draw", "discard KD", "buy", "draw", "down 7H 7S 7D / JK 4C 5C 7C",
                 "lay 8C 1", "swap 6C 1", "lay JK 0", "lay 9C 1", "lay 10C 1", "lay 3C 1",
                 "lay 2C 1"]:
        while not session.human_to_act():
            session.step_bot()
        ui.command(line)
    app = PlayApp(session, pace=0)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await pilot.press("home", "d")  # discard JH and go out: the game's only hand ends
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Notice)
        end = text_of(app.screen.query_one(Static))
        # the scripted bots were never measured: they count as newcomers
        entry = profile.read_page(folder=data()).games[0]
        rec = json.loads(Path(entry["record"]).read_text())
        want = rate([Entry(Rating(), s.place) for s in standings_of_record(rec)[1]])[0]
        assert Rating.from_json(entry["rating_after"]) == want and want.mu > 1500
        change = profile.rating_change(entry)
        assert f"You placed 1st of 3 with 0 points. Rating {change}." in end
        await pilot.press("enter")
        await pilot.pause()
        assert change in prompt_of(app)
    got = profile.read_page(folder=data())
    assert got.total == 1 and got.games[0]["place"] == 1 and got.games[0]["rated_seats"] == 3
