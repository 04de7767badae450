"""The store's batches: every write of a batch in one transaction, or none of it."""

from __future__ import annotations

import asyncio
from typing import Any

from liverpool.web.leases import make_store
from liverpool.web.store import StoredEvent, StoredTable, StoreError


async def test_a_batch_is_written_whole_or_not_at_all(db_url: str) -> None:
    store = make_store(db_url)
    await store.open()
    try:
        await store.create_table(StoredTable("t1", 1.0, "open", {"rules": "standard"},
                                             [StoredEvent(0, "create", {"seat": 0})]))
        # submitted together, so one batch: the second has the first's version, so neither
        # is written, nor the status that came with it
        first = store._submit("append", ("t1", StoredEvent(1, "join", {"seat": 1}), None))  # type: ignore[attr-defined]
        again = store._submit("append", ("t1", StoredEvent(1, "join", {"seat": 2}),  # type: ignore[attr-defined]
                                         "playing"))
        results: list[Any] = await asyncio.gather(first, again, return_exceptions=True)
        assert all(isinstance(r, StoreError) for r in results), results
        stored = await store.load("t1")
        assert stored is not None and stored.status == "open"
        assert [e.version for e in stored.events] == [0]
        # the next batch is written (by a fresh connection if the store made one)
        await store.append("t1", StoredEvent(1, "join", {"seat": 1}), status="playing")
        await store.add_note("t1", {"seat": 1, "kind": "start"})
        stored = await store.load("t1")
        assert stored is not None and stored.status == "playing"
        assert [(e.version, e.kind, e.data) for e in stored.events] == [
            (0, "create", {"seat": 0}), (1, "join", {"seat": 1})]
        assert stored.notes == [{"seat": 1, "kind": "start"}]
        assert await store.active_ids() == ["t1"]
    finally:
        await store.close()
