"""Private tables in the browser (docs/security.md): the share link carries the join secret after
"#join=", so a friend with the link sits down and someone with the bare table address does not;
everyone seated sees the link to invite others; before the start the host removes a player and
a player leaves; a table nobody starts in time expires.

Domain words: share link, join secret, private table (the default), host (seat 0), waiting room,
expired table.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .conftest import Server, free_port, join_by_link, open_table_as_host, start_server, stop_server

PRIVATE = "This table is private: ask the host for the link."


def _humans(n: int) -> dict[str, Any]:
    return {"nickname": "Ann", "rules": "standard", "overrides": {},
            "seats": [{"kind": "human"}] * n, "turn_timer": None, "buy_timer": None}


def _names(server: Server, table: str) -> list[str | None]:
    return [s["name"] for s in server.api("GET", f"/api/tables/{table}")["seats"]]


def test_a_private_tables_link_seats_a_friend_and_the_bare_address_does_not(
        server: Server, make_player: Any) -> None:
    ann, bea, cy = make_player("Ann"), make_player("Bea"), make_player("Cy")
    table = open_table_as_host(server, ann, _humans(3))
    assert server.api("GET", f"/api/tables/{table}")["public"] is False
    assert f"/t/{table}#join=" in ann.share_link

    # Bea has only the table's address: the page says the table is private and offers no join
    bea.page.goto(server.base + f"/t/{table}")
    bea.page.wait_for_selector(f"#join-private:has-text('{PRIVATE}')")
    assert bea.page.locator("#join").count() == 0
    # she pastes the whole link into the same tab (no reload: only the fragment changes)
    bea.page.goto(ann.share_link)
    bea.page.wait_for_selector("#join-form")
    bea.page.fill("#join-nickname", "Bea")
    bea.page.click("#join")
    bea.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    assert _names(server, table) == ["Ann", "Bea", None]
    # anyone seated sees the link that invites (with the secret), to copy or to select
    assert bea.page.input_value("#share-url") == ann.share_link
    assert bea.page.get_attribute("#share", "data-link") == ann.share_link

    # a wrong secret is refused by the server, and the page says why
    cy.page.goto(server.base + f"/t/{table}#join=not-the-secret")
    cy.page.fill("#join-nickname", "Cy")
    cy.page.click("#join")
    cy.page.wait_for_selector(f"#join-error:has-text('{PRIVATE}')")
    assert _names(server, table) == ["Ann", "Bea", None]
    # the link Bea passes on works, pasted into the lobby's link box: the secret goes along
    cy.page.goto(server.base + "/")
    cy.page.fill("#join-link", bea.page.input_value("#share-url"))
    cy.page.click("#join-link-open")
    cy.page.wait_for_selector("#join-form")
    assert cy.page.url == ann.share_link
    cy.page.fill("#join-nickname", "Cy")
    cy.page.click("#join")
    cy.page.wait_for_selector("#seats li:has-text('Cy')")
    assert _names(server, table) == ["Ann", "Bea", "Cy"]
    for p in (ann, bea, cy):
        assert not p.errors, p.errors


def test_the_host_removes_a_player_and_a_player_leaves(server: Server,
                                                       make_player: Any) -> None:
    ann, bea, cy = make_player("Ann"), make_player("Bea"), make_player("Cy")
    table = open_table_as_host(server, ann, _humans(3))
    join_by_link(bea, ann.share_link)
    join_by_link(cy, ann.share_link)
    ann.page.wait_for_selector("#seats li:has-text('Cy')")
    # the host may remove the others; the others may leave
    assert ann.page.locator("#seats button.remove").count() == 2
    assert ann.page.locator("#seats li[data-seat='0'] button.remove").count() == 0
    assert ann.page.locator("#leave-table").count() == 0
    for p in (bea, cy):
        p.page.wait_for_selector("#leave-table")
        assert p.page.locator("#seats button.remove").count() == 0

    # the host removes Bea: her page forgets its seat and shows the join form with why
    first_link = ann.page.input_value("#share-url")
    ann.page.click("#seats li[data-seat='1'] button.remove")
    bea.page.wait_for_selector("#join-form")
    assert bea.page.locator("#join-notice").inner_text().strip()
    ann.page.wait_for_selector("#seats li.free[data-seat='1']")
    assert _names(server, table) == ["Ann", None, "Cy"]
    kept = bea.page.evaluate("t => localStorage.getItem('liverpool:' + t)", table)
    assert kept is None
    bea.page.reload()  # and stays unseated
    bea.page.wait_for_selector("#join-form")

    # Cy leaves on his own
    cy.page.click("#leave-table")
    cy.page.wait_for_selector("#join-notice:has-text('You left the table')")
    cy.page.wait_for_selector("#join-form")
    ann.page.wait_for_selector("#seats li.free[data-seat='2']")
    assert _names(server, table) == ["Ann", None, None]

    # the table's link changed with Bea's removal: the host's page shows the new one
    ann.page.wait_for_function(
        "old => document.querySelector('#share-url').value !== old", arg=first_link)
    # Bea, removed, cannot come back with the link her browser kept
    bea.page.fill("#join-nickname", "Bea")
    bea.page.click("#join")
    bea.page.wait_for_selector("#join-error:has-text('private')")
    assert _names(server, table) == ["Ann", None, None]
    # Cy, who left on his own, comes back with the new link, and the game can start
    cy.page.goto(ann.page.input_value("#share-url"))
    cy.page.fill("#join-nickname", "Cy")
    cy.page.click("#join")
    cy.page.wait_for_selector("#seats li:has-text('Cy')")
    ann.page.wait_for_selector("#seats li:has-text('Cy')")
    ann.page.click("#start")
    for p in (ann, cy):
        p.page.wait_for_selector("#hand .card")
    for p in (ann, bea, cy):
        assert not p.errors, p.errors


def test_a_table_not_started_in_time_expires(tmp_path: Path, make_player: Any) -> None:
    port = free_port()
    ttl = 6
    proc = start_server(tmp_path / "tables.db", port,
                        limits={"LIVERPOOL_LIMIT_OPEN_TABLE_TTL": str(ttl)})
    try:
        own = Server(f"http://127.0.0.1:{port}")
        ann, bea, cy = make_player("Ann"), make_player("Bea"), make_player("Cy")
        for p in (ann, bea, cy):
            p.server = own
        table = open_table_as_host(own, ann, _humans(3))
        bea.page.goto(ann.share_link)  # Bea opens the link in time, and joins too late
        bea.page.wait_for_selector("#join-form")
        end = time.monotonic() + ttl + 20
        while own.api("GET", f"/api/tables/{table}")["status"] != "expired":
            assert time.monotonic() < end, "the table did not expire"
            time.sleep(0.3)
        bea.page.fill("#join-nickname", "Bea")
        bea.page.click("#join")
        bea.page.wait_for_selector("#join-error:has-text('expired')")
        # the host's waiting room says so, and offers no start
        ann.page.wait_for_selector("#expired")
        assert ann.page.locator("#start").count() == 0
        # who opens the link now sees an expired table, with no join
        cy.page.goto(ann.share_link)
        cy.page.wait_for_selector("#join-closed:has-text('expired')")
        assert cy.page.locator("#join").count() == 0
        assert _names(own, table) == ["Ann", None, None]
        for p in (ann, bea, cy):
            assert not p.errors, p.errors
    finally:
        stop_server(proc)
