"""``liverpool bench server`` runs end to end: a server subprocess, bot tables over
websockets, and the figures the issue asks for."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from liverpool.benchmarks.server import (
    KEPT_LIMITS,
    Refused,
    bench_env,
    lifted_limits,
    post,
    unsorted_limits,
)
from liverpool.web.limits import Limits


def test_bench_server_quick_run() -> None:
    out = subprocess.run([sys.executable, "-m", "liverpool.cli", "bench", "server", "--quick",
                          "--json"], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["tables"] == 4 and figures["errors"] == 0
    assert figures["tables_playing"] == 4
    assert figures["actions"] > 0 and figures["actions_per_s"] > 0
    assert 0 < figures["latency_p50_ms"] <= figures["latency_p99_ms"]


def test_the_bench_lifts_every_limit_one_client_or_many_tables_would_hit() -> None:
    """Every field of ``Limits`` is lifted by the bench or kept on purpose: a cap the bench
    does not know of would refuse its tables (the cap on games in play once did, unseen)."""
    fields = {f.name for f in dataclasses.fields(Limits)}
    lifted = set(lifted_limits())
    assert unsorted_limits() == [], "decide: lift it (LIFTED_LIMIT) or keep it (KEPT_LIMITS)"
    assert set(KEPT_LIMITS) <= fields, set(KEPT_LIMITS) - fields  # no stale names
    assert not lifted & set(KEPT_LIMITS)
    rates = {f.name for f in dataclasses.fields(Limits) if f.type == "str"}
    assert rates <= lifted and "message_rate" in rates
    assert {"playing_tables", "open_tables", "open_tables_per_client",
            "waiting_tables_per_client", "tables_per_network", "sockets_per_client"} <= lifted
    env = bench_env()
    served = Limits.from_env(env)  # the values a server takes
    assert served.playing_tables >= 1_000_000
    assert served.create_rate == "1000000/minute"
    kept = Limits.from_env(bench_env({"playing_tables": "1"}))
    assert kept.playing_tables == 1 and kept.open_tables >= 1_000_000


def test_a_limit_added_later_is_lifted_by_its_name_or_named_as_undecided() -> None:
    @dataclasses.dataclass(frozen=True)
    class Later(Limits):
        playing_tables_per_network: int = 50
        games_per_address: int = 10
        lookup_rate: str = "5/minute"
        sockets_per_table: int = 12
        stale_table_ttl: float = 600.0

    lifted = lifted_limits(Later)
    for name in ("playing_tables_per_network", "games_per_address", "lookup_rate",
                 "sockets_per_table"):
        assert name in lifted, name
    assert unsorted_limits(Later) == ["stale_table_ttl"]


def test_a_bench_refused_by_a_cap_counts_the_refusals_and_exits_non_zero() -> None:
    """Three tables against a server that lets one game play: the two refused starts are
    errors, one table played, and the run says it was short (it once printed 0 errors)."""
    out = subprocess.run([sys.executable, "-m", "liverpool.cli", "bench", "server", "--tables",
                          "3", "--think", "0.1", "--duration", "1", "--warmup", "0.5",
                          "--limit", "playing_tables=1", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    figures = json.loads(out.stdout)  # the figures are printed all the same
    assert figures["tables"] == 3 and figures["tables_playing"] == 1
    assert figures["errors"] == 2 and figures["error_codes"] == {"start:503:busy": 2}
    assert figures["actions"] > 0
    line = out.stderr.strip().splitlines()[-1]
    assert "2 of 3 tables did not play" in line and "start:503:busy x2" in line, line


def test_a_limit_the_bench_is_told_to_keep_must_be_a_limit() -> None:
    out = subprocess.run([sys.executable, "-m", "liverpool.cli", "bench", "server", "--limit",
                          "playing_tabels=1"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "playing_tables" in out.stderr


def test_every_refused_or_unanswered_lobby_request_is_named_by_its_code() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/tables":
            return httpx.Response(429, json={"error": "too_many_tables", "message": "..."})
        if request.url.path.endswith("/join"):
            return httpx.Response(502, text="<html>bad gateway</html>")
        if request.url.path.endswith("/start"):
            raise httpx.ConnectError("refused")
        return httpx.Response(200, json={"token": "t"})

    async def codes() -> list[str]:
        got = []
        async with httpx.AsyncClient(base_url="http://bench",
                                     transport=httpx.MockTransport(answer)) as http:
            for what, path in (("create", "/api/tables"), ("join", "/api/tables/a/join"),
                               ("start", "/api/tables/a/start")):
                with pytest.raises(Refused) as e:
                    await post(http, what, path, {})
                got.append(e.value.code)
            assert await post(http, "join", "/api/tables/a/other", {}) == {"token": "t"}
        return got

    assert asyncio.run(codes()) == ["create:429:too_many_tables", "join:502:?",
                                    "start:ConnectError"]


def children(pid: int) -> list[tuple[int, str]]:
    """The child processes of ``pid``: (pid, command line)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append((int(stat.parent.name), cmd))
    return found


def interrupt_when_serving(args: list[str], servers: int) -> tuple[subprocess.Popen[str],
                                                                   list[tuple[int, str]], float]:
    """Start ``liverpool bench server`` with ``args``; once its ``servers`` servers answer
    and its tables play a little, send it SIGINT (only it: its servers have sessions of their
    own, as from a terminal). Returns the bench, its children then, and when it was sent."""
    bench = subprocess.Popen([sys.executable, "-m", "liverpool.cli", "bench", "server", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60
    ports: list[str] = []
    while len(ports) < servers:
        assert bench.poll() is None and time.monotonic() < end, bench.communicate()
        time.sleep(0.2)
        ports = [cmd.split("--port ")[1].split()[0] for _, cmd in children(bench.pid)
                 if " serve " in cmd]
    for port in ports:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/api/config").status_code == 200:
                    break
            assert time.monotonic() < end
            time.sleep(0.1)
    time.sleep(1.5)  # the tables start
    kids = children(bench.pid)
    bench.send_signal(signal.SIGINT)
    return bench, kids, time.monotonic()


def gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    os.killpg(pgid, signal.SIGKILL)  # (not left behind by the test either)
    return False


def test_ctrl_c_stops_the_bench_and_its_server_at_once() -> None:
    bench, kids, sent = interrupt_when_serving(["--tables", "2", "--duration", "30"], 1)
    try:
        _, err = bench.communicate(timeout=10)
    finally:
        bench.kill()
    took = time.monotonic() - sent
    assert bench.returncode == 130, err
    assert took < 3, took
    assert "interrupted" in err
    assert kids and all(gone(pid) for pid, _ in kids), kids  # the server's whole group
