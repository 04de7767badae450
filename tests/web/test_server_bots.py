"""External bots in the web server: the host's commands are checked when the server starts,
a table's start is written only once its bots exist, and a bot's incident is told (the server's
log, a line in the table's log for the players, the summary and the record).

Domain words: incident (a bot broke the protocol: the basic bot plays its seat for the rest of
the game), host command (``--bot-command NAME=COMMAND``).
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from liverpool.web import check_bot_commands, parse_bot_commands

from .conftest import play_turns, serve

BOTS = Path(__file__).resolve().parents[1] / "bots"


def test_a_bad_bot_command_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fast"):  # a time limit the spec does not know
        parse_bot_commands(["fast=cmd@300xs:python bot.py"])
    with pytest.raises(ValueError, match="nope"):
        parse_bot_commands(["nope=/no/such/prog"])
    not_a_bot = parse_bot_commands([f"silent={sys.executable} -c pass"])
    with pytest.raises(ValueError, match="silent: handshake failed"):
        check_bot_commands(not_a_bot)
    assert parse_bot_commands(["fast=cmd@300ms:python3 x.py"]) == {
        "fast": "cmd@300ms:python3 x.py"}
    # through the command: one line, exit code 2, nothing served
    run = subprocess.run([sys.executable, "-m", "liverpool.cli", "serve", "--db",
                          str(tmp_path / "db.sqlite"), "--port", "1",
                          "--bot-command", "nope=/no/such/prog"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "nope" in run.stderr and "Traceback" not in run.stderr


async def test_an_incident_is_logged_told_and_kept(sqlite_url: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    garbage = f"{sys.executable} {BOTS / 'garbage.py'} 2"
    caplog.set_level(logging.WARNING, logger="liverpool.web")
    async with serve(sqlite_url, bot_commands={"garbage": garbage}) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "garbage"},
                              {"kind": "bot", "level": "basic"}], overrides={"hands": [1]})
        tid = t["table"]["id"]
        ann = await srv.client(tid, t["token"])
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        final = await play_turns(ann, lambda m: False, timeout=120)
        assert final["view"]["phase"] == "over"
        notices = [m for m in ann.messages if m["type"] == "notice"]
        assert len(notices) == 1 and "Bot 2's bot" in notices[0]["text"]
        assert "garbage" in notices[0]["text"]
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        assert summary["incidents"] == 1
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        [incident] = rec["incidents"]
        assert incident["seat"] == 1 and incident["kind"] == "garbage"
        assert incident["sent"].startswith("I think I will discard")
        await ann.close()
    assert any("garbage" in r.getMessage() and r.levelno == logging.WARNING
               for r in caplog.records)
    # kept in the store: a server started again on the database shows it
    async with serve(sqlite_url) as srv:
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        assert [i["kind"] for i in rec["incidents"]] == ["garbage"]


async def test_a_table_whose_command_is_gone_is_played_by_basic(sqlite_url: str) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "example_bot.py"
    async with serve(sqlite_url, bot_commands={"mine": f"{sys.executable} {example}"}) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "mine"},
                              {"kind": "bot", "level": "basic"}])
        tid = t["table"]["id"]
        assert (await srv.http.post(f"/api/tables/{tid}/start",
                                    json={"token": t["token"]})).status_code == 200
    # restarted without the host's command: the table is served, the seat played by basic
    async with serve(sqlite_url, grace=0.1) as srv:
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        assert summary["status"] == "playing" and summary["incidents"] == 1
        owner = srv.app.state.registry.owners[tid]
        assert type(owner.bots[1]).__name__ == "BasicBot"
        assert owner.incidents[0]["kind"] == "start" and owner.incidents[0]["bot"] == "mine"
