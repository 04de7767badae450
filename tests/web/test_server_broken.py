"""Stored tables the server cannot (or must not) rebuild as they are: one that fails to rebuild
is marked ``broken`` and logged while the server serves everything else; a stored bot level
outside the closed list (as an older version could write) is never run.

Domain words: rebuild (a table's owner made again from its configuration and stored events).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from liverpool.web.leases import make_store
from liverpool.web.store import StoredEvent, StoredTable

from .conftest import human_seats, serve


def _config(**more: object) -> dict[str, object]:
    return {"rules": "standard", "overrides": {}, "seats": [
        {"kind": "human", "level": None}, {"kind": "bot", "level": "basic"},
        {"kind": "bot", "level": "basic"}], "turn_timer": None, "buy_timer": None,
        "seed": 5, "public": True, "join_secret": "s" * 24, **more}


async def _store_table(db: str, table: StoredTable) -> None:
    store = make_store(db)
    await store.open()
    try:
        await store.create_table(table)
    finally:
        await store.close()


def _create(tid: str, config: dict[str, object], *events: StoredEvent) -> StoredTable:
    return StoredTable(tid, time.time(), "playing" if events else "open", config, [
        StoredEvent(0, "create", {"seat": 0, "name": "Ann", "token_hash": "0" * 64}),
        *events])


async def test_a_table_that_cannot_be_rebuilt_is_marked_and_the_rest_is_served(
        sqlite_url: str) -> None:
    # an action the engine refuses in the stored log: the game cannot be replayed
    bad = _create("broken1", _config(), StoredEvent(1, "start", {"bots": {}}),
                  StoredEvent(2, "action", {"action": {"player": 0, "type": "discard",
                                                       "card": "AS"}}))
    await _store_table(sqlite_url, bad)
    async with serve(sqlite_url) as srv:
        r = await srv.http.get("/api/tables/broken1")
        assert r.status_code == 503 and r.json()["error"] == "broken"
        assert (await srv.http.get("/api/tables")).status_code == 200
        t = await srv.create(human_seats(1, 2))  # the server goes on serving
        assert (await srv.http.get(f"/api/tables/{t['table']['id']}")).status_code == 200
    with sqlite3.connect(sqlite_url) as conn:
        status = conn.execute("SELECT status FROM lv_tables WHERE id='broken1'").fetchone()
    assert status == ("broken",)


async def test_a_stored_command_level_is_never_run(sqlite_url: str, tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    levels = [f"cmd:touch {mark}", f"cmd@1s:sh -c 'touch {mark}'", "expert:999999999ms"]
    config = _config(seats=[{"kind": "human", "level": None},
                            *({"kind": "bot", "level": lv} for lv in levels)])
    await _store_table(sqlite_url, _create("oldcmd1", config,
                                           StoredEvent(1, "start", {"bots": {}})))
    async with serve(sqlite_url) as srv:
        owner = srv.app.state.registry.owners["oldcmd1"]
        assert [type(b).__name__ for b in owner.bots.values()] == ["BasicBot"] * 3
        spec = await srv.client("oldcmd1", None)
        await spec.until(lambda m: m["type"] == "update" and m["action"]["player"] != 0,
                         timeout=30)
        await spec.close()
    assert not mark.exists()
