"""Containment of external bots: whatever a bot starts ends with it, also a helper that left the
bot's session (``setsid``) or whose parent exited (a double fork); optional CPU and memory caps.

Domain words: family (a bot and everything it started), helper (a process a bot starts).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from liverpool.bots import ExternalBot, make_bot
from liverpool.bots.contain import CPU_ENV, MEMORY_ENV

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux's /proc")

BOT = '''
import json, os, subprocess, sys
def helper(how):
    code = "import time; time.sleep(300)"
    if how == "setsid":
        p = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        return p.pid
    # a double fork: the middle process starts a helper in a new session, then exits
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, "-c", code])
        os.write(w, str(pid).encode())
        os._exit(0)
    os.close(w)
    pid = int(os.read(r, 32))
    os.wait()
    return pid
pids = [helper("setsid"), helper("double")]
with open(sys.argv[1], "w") as f:
    f.write(" ".join(map(str, pids)))
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "forker"}), flush=True)
    elif msg["type"] == "decide":
        print(json.dumps({"type": "action", "id": msg["id"], "action": msg["legal"][0]}),
              flush=True)
'''


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(path: Path) -> list[int]:
    end = time.monotonic() + 60  # a guard against a hang only
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end, "the bot never started its helpers"
        time.sleep(0.02)
    return [int(x) for x in path.read_text().split()]


def test_helpers_that_left_the_session_end_with_the_bot(tmp_path: Path) -> None:
    script = tmp_path / "forker.py"
    script.write_text(BOT)
    pids_file = tmp_path / "pids"
    bot = make_bot(f"cmd:{sys.executable} {script} {pids_file}")
    assert isinstance(bot, ExternalBot)
    assert bot.probe() == "forker"
    helpers = _wait_for(pids_file)
    assert len(helpers) == 2 and all(_alive(p) for p in helpers)
    assert all(os.getsid(p) != os.getsid(bot.pid or 0) for p in helpers)  # they left
    bot.close()
    end = time.monotonic() + 30
    while any(_alive(p) for p in helpers) and time.monotonic() < end:
        time.sleep(0.05)
    assert [p for p in helpers if _alive(p)] == []


def test_cpu_and_memory_caps_apply_to_the_bot(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "forker.py"
    script.write_text(BOT)
    monkeypatch.setenv(CPU_ENV, "30")
    monkeypatch.setenv(MEMORY_ENV, "512")
    bot = make_bot(f"cmd:{sys.executable} {script} {tmp_path / 'pids'}")
    assert isinstance(bot, ExternalBot)
    bot.probe()
    limits = Path(f"/proc/{bot.pid}/limits").read_text()
    cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
    mem = next(line for line in limits.splitlines() if line.startswith("Max address space"))
    assert cpu.split()[3] == "30" and mem.split()[3] == str(512 * 1024 * 1024)
    bot.close()
    monkeypatch.setenv(CPU_ENV, "lots")
    bad = make_bot(f"cmd:{sys.executable} {script} {tmp_path / 'pids2'}")
    assert isinstance(bad, ExternalBot)
    with pytest.raises(Exception, match=CPU_ENV):
        bad.probe()


def test_a_bot_seated_mid_game_gets_no_old_hand_ends(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A web table rebuilt after a restart seats its bot again in the middle of the game:
    game_start, then hand_start of the current hand, then decisions; the hands before it are
    over and no hand_end is sent for them afterwards."""
    import json
    import random

    from liverpool.bots import BasicBot, bot_event, close_bot
    from liverpool.engine import Game, HandEnded
    from liverpool.events import game_start_event, hand_start_event
    from liverpool.rules import RuleSet

    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("BOT_LOG", str(log))
    bots = Path(__file__).resolve().parent / "bots"
    game = Game(RuleSet.preset("standard", {"hands": [1, 2, 3]}), 3, seed=6)
    basic = BasicBot()
    ended = 0
    while ended < 2:  # two hands played before the bot is seated again
        seat = game.to_act()[0]
        told = game.apply(basic.choose(game.view_for(seat), game.legal_actions(seat),
                                       random.Random(1)))
        ended += sum(isinstance(e, HandEnded) for e in told)
    ext = make_bot(f"cmd:{sys.executable} {bots / 'fair.py'}")
    try:
        bot_event(ext, game_start_event(game, 0, 0))
        bot_event(ext, hand_start_event(game.hand_started()))
        asked = 0
        while asked < 3 and not game.over:
            seat = game.to_act()[0]
            chooser = ext if seat == 0 else basic
            asked += seat == 0
            game.apply(chooser.choose(game.view_for(seat), game.legal_actions(seat),
                                      random.Random(1)))
    finally:
        close_bot(ext)
    kinds = [json.loads(x)["type"] for x in log.read_text().splitlines()]
    assert kinds[:4] == ["hello", "game_start", "hand_start", "decide"]
    assert "hand_end" not in kinds


def test_the_terminal_tells_of_an_incident(tmp_path: Path) -> None:
    from liverpool.rules import RuleSet
    from liverpool.tui.session import Session

    bots = Path(__file__).resolve().parent / "bots"
    garbage = f"cmd:{sys.executable} {bots / 'garbage.py'} 2"
    session = Session.new(RuleSet.preset("standard", {"hands": [1]}), 3, f"{garbage},basic",
                          "Ann", 5, str(tmp_path / "game.json"))
    warnings: list[str] = []
    try:
        while not session.over and not warnings:
            if session.human_to_act():
                hinted = session.hint()
                assert hinted is not None
                ev = session.act(hinted[0])
            else:
                step = session.step_bot()
                assert step is not None
                ev = step
            warnings += [w for w in ev.warnings if "bot failed" in w]
    finally:
        session.close()
    assert warnings and "garbage" in warnings[0] and "basic bot plays" in warnings[0]
