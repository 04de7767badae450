"""One client's searching bots against another client's table: how long the other table's bots
take a move while the first client keeps the server's bot workers as busy as its caps allow.

    python scripts/bot_fairness.py [--heavy-tables 5] [--level expert:2000ms] [--duration 30]
        [--warmup 5] [--quiet] [--json]

A fresh ``liverpool serve`` (a temporary SQLite database, the default limits, bots' think time
0.6 s, a dropped seat covered after 1 s) is started on a free loopback port. Client A (one
address, through the forwarded address the server trusts from loopback) creates and starts
``--heavy-tables`` tables of a host and seven bots of ``--level``, within its caps (a few
waiting at a time). Client B (another address) starts one table of a host and three basic bots
(``--quiet``: only B's table, the baseline). Nobody sits at the hosts' seats: the basic bot
covers them. A spectator of B's table times every move its bots decide (draws, takes,
discards, go-downs, lay-offs: not the passes of a buy round, which follow at once): the time
from the update before to the update of the move, which the think time alone makes 0.6 s.

It fails loudly (exit 1) when a table was refused or did not play in the measured window: a
figure from fewer tables than asked is not printed as if it were whole. Ctrl-C stops it and its
server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from liverpool.benchmarks.server import _free_port, _wait_ready

HEAVY = "198.51.100.1"
LIGHT = "203.0.113.9"
PACED = {"draw", "take_discard", "no_draw", "discard", "go_down", "lay_off", "swap_joker",
         "borrow", "call", "cut", "give"}


async def _create(http: httpx.AsyncClient, address: str, seats: list[dict[str, Any]]
                  ) -> str:
    r = await http.post("/api/tables", json={"nickname": "Host", "seats": seats},
                        headers={"x-forwarded-for": address})
    if r.status_code != 201:
        raise RuntimeError(f"create refused for {address}: {r.status_code} {r.text[:200]}")
    t = r.json()
    r = await http.post(f"/api/tables/{t['table']['id']}/start", json={"token": t["token"]},
                        headers={"x-forwarded-for": address})
    if r.status_code != 200:
        raise RuntimeError(f"start refused for {address}: {r.status_code} {r.text[:200]}")
    return str(t["table"]["id"])


async def _watch(ws_base: str, tid: str, gaps: list[float], moves: list[int],
                 measuring: asyncio.Event) -> None:
    async with connect(f"{ws_base}/ws/{tid}", max_size=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None, "version": -1}))
        last = None
        async for text in ws:
            m = json.loads(text)
            if m["type"] != "update" or m.get("event") is None:
                continue
            now = time.perf_counter()
            if measuring.is_set():
                moves[0] += 1
                if last is not None and m["event"]["action"]["type"] in PACED:
                    gaps.append(now - last)
            last = now
            if m["view"] is not None and m["view"]["phase"] == "over":
                return


async def _drive(base: str, heavy: int, level: str, duration: float, warmup: float
                 ) -> dict[str, Any]:
    ws_base = base.replace("http", "ws")
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        heavy_ids = [await _create(http, HEAVY, [{"kind": "human"}]
                                   + [{"kind": "bot", "level": level}] * 7)
                     for _ in range(heavy)]
        light_id = await _create(http, LIGHT, [{"kind": "human"}]
                                 + [{"kind": "bot", "level": "basic"}] * 3)
        gaps: list[float] = []
        heavy_moves = [[0] for _ in heavy_ids]
        light_moves = [0]
        measuring = asyncio.Event()
        watchers = [asyncio.create_task(_watch(ws_base, tid, [], n, measuring))
                    for tid, n in zip(heavy_ids, heavy_moves, strict=True)]
        watchers.append(asyncio.create_task(_watch(ws_base, light_id, gaps, light_moves,
                                                   measuring)))
        await asyncio.sleep(warmup)
        measuring.set()
        await asyncio.sleep(duration)
        measuring.clear()
        for w in watchers:
            w.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
    gaps.sort()

    def pct(p: float) -> float | None:
        return round(gaps[min(len(gaps) - 1, int(p * len(gaps)))], 3) if gaps else None
    return {"heavy_tables": heavy, "level": level, "duration": duration,
            "heavy_tables_playing": sum(1 for n in heavy_moves if n[0] > 0),
            "heavy_moves": sum(n[0] for n in heavy_moves),
            "light_moves": light_moves[0], "light_paced_moves": len(gaps),
            "move_p50_s": pct(0.5), "move_p90_s": pct(0.9),
            "move_mean_s": round(statistics.fmean(gaps), 3) if gaps else None}


def run(heavy: int, level: str, duration: float, warmup: float) -> dict[str, Any]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="liverpool-fairness-") as tmp:
        env = {**os.environ, "LIVERPOOL_GRACE": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "liverpool.cli", "serve", "--port", str(port), "--db",
             str(Path(tmp) / "fair.db")], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            asyncio.run(_wait_ready(proc, base))
            return asyncio.run(_drive(base, heavy, level, duration, warmup))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--heavy-tables", type=int, default=5)
    ap.add_argument("--level", default="expert:2000ms")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--quiet", action="store_true", help="no heavy tables: the baseline")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    heavy = 0 if args.quiet else args.heavy_tables
    try:
        out = run(heavy, args.level, args.duration, args.warmup)
    except KeyboardInterrupt:
        return 130
    except RuntimeError as e:
        print(f"bot_fairness: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:>22}: {v}")
    short = []
    if out["heavy_tables_playing"] < heavy:
        short.append(f"only {out['heavy_tables_playing']} of {heavy} heavy tables played")
    if not out["light_paced_moves"]:
        short.append("the light table made no move")
    if short:
        print("bot_fairness: measured less than asked: " + "; ".join(short), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
