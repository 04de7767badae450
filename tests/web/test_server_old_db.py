"""A database written by the server before players existed (tests/data/db-head-1dc2c73.sqlite,
made by tests/data/make_head_db.py at that version) opens with today's server, which keeps every
game: each table has its status, each finished game replays to the totals it ended with and now
has its standings, the game in play goes on, and new tables and players sit beside the old ones.

Domain words: old database (the checked-in file, opened from a copy: a server writes to what it
opens), manifest (what the file holds, written when it was made).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from liverpool.ratings import places
from liverpool.record import new_game_from_record, steps

from .conftest import RELAXED, serve

DATA = Path(__file__).resolve().parent.parent / "data"
OLD = DATA / "db-head-1dc2c73.sqlite"
# the old tables were made long ago: nothing may expire or sleep while the test looks at them
PATIENT = dataclasses.replace(RELAXED, open_table_ttl=1e9, idle_table_ttl=1e9)


def manifest() -> dict[str, Any]:
    out: dict[str, Any] = json.loads((DATA / "db-head-1dc2c73.json").read_text())
    return out


def event_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT table_id, count(*) FROM lv_events GROUP BY table_id"))


@pytest.mark.asyncio
async def test_the_previous_versions_database_opens_and_keeps_every_game(tmp_path: Path
                                                                        ) -> None:
    db = tmp_path / "old.db"
    shutil.copyfile(OLD, db)
    tables = manifest()["tables"]
    before = event_counts(db)
    assert before == {t["id"]: t["events"] for t in tables}
    async with serve(str(db), limits=PATIENT, grace=600) as srv:
        for t in tables:
            summary = (await srv.http.get(f"/api/tables/{t['id']}")).json()
            assert summary["status"] == t["status"], t["id"]
            assert summary["rules"] == t["preset"] and len(summary["seats"]) == t["seats"]
            if t["status"] != "over":
                assert summary["standings"] is None
                continue
            rec = (await srv.http.get(f"/api/tables/{t['id']}/record")).json()
            assert rec["players"] == t["players"] and len(rec["actions"]) == t["actions"]
            game = new_game_from_record(rec)
            for _ in steps(None, game, rec["actions"]):
                pass
            assert game.over and list(game.totals) == t["totals"]
            assert [list(row) for row in game.scores] == t["scores"]
            # an old finished game gets its standings: guests, and bots of fixed rating
            rows = summary["standings"]
            assert [r["points"] for r in rows] == t["totals"]
            assert [r["place"] for r in rows] == list(places(t["totals"]))
            for r in rows:
                assert (r["rating"] is None) == (r["kind"] == "human")
            r = await srv.http.get(f"/api/tables/{t['id']}/replay")
            assert r.status_code == 200
        # the game in play goes on: a person's seat answers again
        playing = next(t for t in tables if t["status"] == "playing")
        owner = srv.app.state.registry.owners[playing["id"]]
        assert owner.version == playing["events"] - 1 and not owner.game.over
        # new players and tables beside the old ones
        r = await srv.http.post("/api/players", json={"name": "Newcomer"})
        key = r.json()["key"]
        r = await srv.http.post("/api/tables", headers={"Authorization": f"Bearer {key}"},
                                json={"seats": [{"kind": "human"}] * 3})
        assert r.status_code == 201, r.text
        new_id = r.json()["table"]["id"]
    after = event_counts(db)
    for t in tables:  # not one old event lost or added
        assert after[t["id"]] == t["events"] or t["status"] == "playing"
        assert after[t["id"]] >= t["events"]
    assert new_id in after
    async with serve(str(db), limits=PATIENT, grace=600) as srv:  # and again, from the file
        for t in tables:
            summary = (await srv.http.get(f"/api/tables/{t['id']}")).json()
            assert summary["status"] == t["status"]
        assert (await srv.http.get(f"/api/tables/{new_id}")).json()["status"] == "open"
        me = await srv.http.get("/api/players/me", headers={"Authorization": f"Bearer {key}"})
        assert me.json()["name"] == "Newcomer"
