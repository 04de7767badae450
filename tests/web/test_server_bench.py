"""``liverpool bench server`` runs end to end: a server subprocess, bot tables over
websockets, and the figures the issue asks for."""

from __future__ import annotations

import json
import subprocess
import sys


def test_bench_server_quick_run() -> None:
    out = subprocess.run([sys.executable, "-m", "liverpool.cli", "bench", "server", "--quick",
                          "--json"], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["tables"] == 4 and figures["errors"] == 0
    assert figures["actions"] > 0 and figures["actions_per_s"] > 0
    assert 0 < figures["latency_p50_ms"] <= figures["latency_p99_ms"]
