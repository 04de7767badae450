"""The lobby page and the connection: a table made with the form (bots at several levels, a rule
option, turn and buy timers) and listed for others; the page riding out a server restart.

Domain words: lobby, rule option (a knob override), turn timer, buy timer, reconnect.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from .conftest import (
    GRACE,
    Server,
    free_port,
    join_by_link,
    open_table_as_host,
    start_server,
    stop_server,
)


def test_lobby_creates_a_table_with_bots_an_option_and_timers(server: Server,
                                                               make_player: Any) -> None:
    ann = make_player("Ann")
    page = ann.page
    page.goto(server.base + "/")
    # the form follows the server's limits; a table is private unless the host lists it
    config = server.api("GET", "/api/config")
    assert page.get_attribute("#nickname", "maxlength") == str(config["limits"]["nickname_max"])
    assert float(page.get_attribute("#turn-timer", "min") or "nan") == config["limits"]["min_timer"]
    assert not page.is_checked("#public")
    levels = page.eval_on_selector_all("select[data-seat='1'] option",
                                       "os => os.map(o => o.value)")
    assert levels == ["human", *[f"bot:{lv}" for lv in config["levels"]]]
    page.fill("#nickname", "Ann")
    page.check("input[name='preset'][value='standard']")
    page.select_option("#seat-count", "4")
    page.select_option("select[data-seat='1']", "human")
    page.select_option("select[data-seat='2']", "bot:level:1")
    page.select_option("select[data-seat='3']", "bot:level:3")
    # the ladder by number, title and rating
    words = page.eval_on_selector_all("select[data-seat='3'] option",
                                      "os => os.map(o => o.textContent)")
    assert words[1].startswith("computer: level 1, Beginner (rated ") and \
        words[8].startswith("computer: level 8, Master"), words
    page.fill("#turn-timer", "30")
    page.fill("#buy-timer", "4")
    page.click(".rule-options summary")
    page.fill("input[data-knob='max_buys']", "2")
    page.check("#public")  # listed in the lobby, so that others find it
    ann.shot("lobby-form")
    page.click("#create")
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[-1]
    summary = server.api("GET", f"/api/tables/{table}")
    assert summary["overrides"] == {"max_buys": 2} and summary["public"] is True
    assert (summary["turn_timer"], summary["buy_timer"]) == (30, 4)
    assert [(s["kind"], s["level"]) for s in summary["seats"]] == [
        ("human", None), ("human", None), ("bot", "level:1"), ("bot", "level:3")]
    page.wait_for_selector("#start")

    # someone else finds it in the list of public tables
    bea = make_player("Bea")
    bea.page.goto(server.base + "/")
    row = bea.page.wait_for_selector(f".table-row[data-table='{table}']")
    assert row is not None and "open" in row.inner_text()

    # the seat nobody took is played by the computer once the host starts
    page.click("#start")
    page.wait_for_selector("#hand .card")
    assert server.api("GET", f"/api/tables/{table}")["seats"][1]["kind"] == "bot"
    assert "buys 0/2" in page.inner_text("#players")

    # the running timers show as countdowns: the turn's on the seat, the buy's by "May I?"
    seen_turn = seen_buy = False
    end = time.monotonic() + 90
    while not (seen_turn and seen_buy) and time.monotonic() < end:
        clock = page.inner_text(".player[data-seat='0'] .clock")
        if clock.startswith("⏱"):
            assert 0 <= int(clock.split()[1]) <= 30
            seen_turn = True
        # read at once: the window's clock may be gone between two calls
        buy_clock = page.evaluate(
            "() => (document.querySelector('#buy-clock') || {}).textContent || ''")
        seen_buy = seen_buy or "closes in" in buy_clock
        if ann.legal():
            ann.perform(ann.hint())
        time.sleep(0.05)
    assert seen_turn and seen_buy
    assert not ann.errors and not bea.errors


def test_the_page_reconnects_by_itself_after_a_server_restart(tmp_path: Path,
                                                               make_player: Any) -> None:
    port = free_port()
    db = tmp_path / "tables.db"
    # the default grace period: the seat must not be covered while the server is away
    proc = start_server(db, port, grace=15)
    try:
        own = Server(f"http://127.0.0.1:{port}")
        ann = make_player("Ann")
        ann.server = own
        open_table_as_host(own, ann, {
            "nickname": "Ann", "rules": "standard", "overrides": {},
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                      {"kind": "bot", "level": "basic"}],
            "turn_timer": None, "buy_timer": None, "seed": 4})
        ann.page.click("#start")
        ann.page.wait_for_selector(".table-page[data-legal]:not([data-legal=''])")
        ann.perform(ann.hint())
        ann.page.wait_for_selector(".table-page[data-legal~='discard']")
        hand, version = sorted(ann.hand()), ann.version()

        stop_server(proc, kill=True)
        ann.page.wait_for_selector("#conn[data-state='offline']")
        assert "reconnecting" in ann.page.inner_text("#conn")
        proc = start_server(db, port, grace=15)
        ann.page.wait_for_selector("#conn[data-state='online']", timeout=20_000)
        ann.page.wait_for_selector(".table-page[data-legal~='discard']")
        assert sorted(ann.hand()) == hand and ann.version() == version
        # and play goes on
        a = ann.hint()
        ann.perform(a)
        assert ann.version() > version
        assert not ann.errors, ann.errors
    finally:
        stop_server(proc)


def test_a_friend_who_leaves_is_covered_by_a_bot_and_gets_the_seat_back(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    bea = make_player("Bea")
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {},
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": None, "buy_timer": None, "seed": 21})
    join_by_link(bea, ann.share_link)
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    bea.page.wait_for_selector("#hand .card")
    bea_box = ".player[data-seat='1']"

    bea.page.goto("about:blank")  # Bea closes the tab
    ann.page.wait_for_selector(f"{bea_box} .badge:has-text('bot covering')",
                               timeout=(GRACE + 10) * 1000)
    # the game does not wait for her: the covering bot plays her turns while Ann plays hers
    version = ann.version()
    end = time.monotonic() + 30
    while ann.version() < version + 6 and time.monotonic() < end:
        if ann.legal():
            ann.perform(ann.hint())
        time.sleep(0.05)
    assert ann.version() >= version + 6

    bea.page.goto(server.base + f"/t/{table}")  # back, with the token this browser kept
    bea.page.wait_for_selector("#hand .card")
    assert bea.state()["seat"] == "1"
    ann.page.wait_for_selector(f"{bea_box}:not(:has(.badge.warn))")
    assert not ann.errors and not bea.errors


def _new_table(server: Server, public: bool) -> str:
    return str(server.api("POST", "/api/tables", {
        "nickname": "Hal", "rules": "standard", "overrides": {}, "public": public,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": None, "buy_timer": None})["table"]["id"])


def _range(page: Any) -> tuple[int, int, int]:
    """The list's "first–last of total"."""
    m = re.fullmatch(r"(\d+)–(\d+) of (\d+)", page.inner_text("#tables-range").strip())
    assert m is not None, page.inner_text("#tables-range")
    return int(m[1]), int(m[2]), int(m[3])


def _listed(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".table-row", "rs => rs.map(r => r.dataset.table)"))


def test_the_lobby_lists_public_tables_only_a_page_at_a_time(server: Server,
                                                             make_player: Any) -> None:
    private = _new_table(server, public=False)
    public = [_new_table(server, public=True) for _ in range(22)]  # newest last
    cy = make_player("Cy")
    page = cy.page
    page.goto(server.base + "/")
    # newest first, 20 to a page: the newest public tables on the first page
    page.wait_for_selector(f".table-row[data-table='{public[-1]}']")
    first, last, total = _range(page)
    assert (first, last) == (1, 20) and total >= 22
    shown = _listed(page)
    assert len(shown) == 20 and shown[:20] == public[::-1][:20]
    assert private not in shown
    assert page.is_disabled("#tables-prev") and not page.is_disabled("#tables-next")

    page.click("#tables-next")
    page.wait_for_selector(f".table-row[data-table='{public[0]}']")
    first, last, total = _range(page)
    assert first == 21 and last == min(40, total)
    shown = _listed(page)
    assert shown[:2] == [public[1], public[0]] and private not in shown
    assert not page.is_disabled("#tables-prev")
    # the private table is on no page at all: it is joined by its link only
    for offset in range(0, total, 20):
        answer = server.api("GET", f"/api/tables?offset={offset}&limit=20")
        assert private not in [t["id"] for t in answer["tables"]]
        assert all(t["public"] for t in answer["tables"])

    # the page shown is refreshed by itself: a new table shows in the count
    newer = _new_table(server, public=True)
    page.wait_for_function(
        "n => /of (\\d+)$/.test(document.querySelector('#tables-range').textContent) &&"
        " Number(document.querySelector('#tables-range').textContent.match(/of (\\d+)$/)[1]) > n",
        arg=total, timeout=12_000)
    page.click("#tables-prev")
    page.wait_for_selector(f".table-row[data-table='{newer}']")
    assert _range(page)[:2] == (1, 20)

    # a public table is joined from the list without any secret
    page.click(f".table-row[data-table='{newer}'] a:has-text('Join')")
    page.fill("#join-nickname", "Cy")
    page.click("#join")
    page.wait_for_selector("#seats li:has-text('Cy')")
    assert server.api("GET", f"/api/tables/{newer}")["seats"][1]["name"] == "Cy"
    assert not cy.errors, cy.errors


def test_the_lobby_says_why_the_server_refused(tmp_path: Path, make_player: Any) -> None:
    port = free_port()
    proc = start_server(tmp_path / "tables.db", port,
                        limits={"LIVERPOOL_LIMIT_CREATE_RATE": "4/minute"})
    try:
        own = Server(f"http://127.0.0.1:{port}")
        ann = make_player("Ann")
        page = ann.page
        page.goto(own.base + "/")
        # a nickname the server refuses (a bidi override): its words, and the field to fix
        page.fill("#nickname", "\u202eAnn")
        page.click("#create")
        page.wait_for_selector("#create-form .error:has-text('nickname')")
        assert page.evaluate("() => document.activeElement.id") == "nickname"
        # too many tables from this address: the page says so, and what to do
        for _ in range(6):
            status, _answer = own.call("POST", "/api/tables", {
                "nickname": "Bot", "rules": "standard", "overrides": {},
                "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                          {"kind": "bot", "level": "basic"}]})
            if status == 429:
                break
        else:
            raise AssertionError("the create rate was never reached")
        page.fill("#nickname", "Ann")
        page.click("#create")
        page.wait_for_selector("#create-form .error:has-text('Too many requests')")
        assert "/t/" not in page.url
        assert not ann.errors, ann.errors
    finally:
        stop_server(proc)
