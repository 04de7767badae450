"""Players who come back, in real browsers: the page makes a player when a name is first
needed and keeps it across a reload and a second tab; a recovery code gives another browser the
same player (with a key of its own); "Forget me" forgets it; a finished game shows its
standings and is listed on the player's page with its place and points, and the player on the
leaderboard; two people play again (a rematch) from the end of their game; "Leave the game"
marks the seat. No address the page asks for ever holds a key.

Domain words: player (a person the server remembers: {id, key, name} in localStorage
"liverpool:player"), key (the browser's secret for its player, sent only in a header or the
websocket hello), guest (plays without a player), recovery code, standings, rematch, leave,
out deal (a stacked deck on which Ann goes out on her first turn, so a one-hand game ends at
once).
"""

from __future__ import annotations

import json
import time
from typing import Any

from .conftest import Player, Server, join_by_link
from .test_browser_assets import _watch_csp
from .test_browser_people import DESKTOP, PHONE, deal, dock_in_view, in_view, no_sideways_scroll
from .test_browser_table import build_go_down

# arena allows two players; Ann (seat 0, the dealer) holds three sets and may lay them all down
OUT_RULES = {"hands": [1], "extra_melds_at_go_down": True}
ANN_SETS = [["7S", "7D", "7C", "7H"], ["8S", "8D", "8C"], ["9S", "9D", "9C"]]
ANN_HAND = [c for meld in ANN_SETS for c in meld]


def out_deck(seats: int = 2) -> list[str]:
    return deal("arena", OUT_RULES, [ANN_HAND] + [None] * (seats - 1), "2D")


def stored_player(p: Player) -> dict[str, Any] | None:
    raw = p.page.evaluate("() => localStorage.getItem('liverpool:player')")
    return json.loads(raw) if raw else None


def watch_urls(p: Player) -> list[str]:
    """Every address the page asks for (pages, API calls, the websocket)."""
    seen: list[str] = []
    p.context.on("request", lambda r: seen.append(r.url))
    p.page.on("websocket", lambda ws: seen.append(ws.url))
    return seen


def no_key_in(urls: list[str], *keys: str) -> None:
    assert urls
    for url in urls:
        for key in keys:
            assert key not in url, f"a key in an address: {url}"


def new_player(server: Server, p: Player, name: str, **settings: Any) -> dict[str, Any]:
    """A player made through the API, kept in ``p``'s browser as the page keeps it."""
    me = server.api("POST", "/api/players", {"name": name})
    if settings:
        server.api("PATCH", "/api/players/me", settings, key=me["key"])
    p.page.goto(server.base + "/")
    p.page.evaluate("p => localStorage.setItem('liverpool:player', JSON.stringify(p))", me)
    return dict(me)


def sit_at(server: Server, p: Player, table: str, seat: int, token: str,
           player: str | None) -> None:
    """Keep a seat's token in ``p``'s browser as the lobby keeps it, and open the table."""
    p.page.goto(server.base + "/")
    p.page.evaluate("([t, v]) => localStorage.setItem('liverpool:' + t, JSON.stringify(v))",
                    [table, {"seat": seat, "token": token, "player": player}])
    p.page.goto(server.base + f"/t/{table}")


def ann_goes_out(ann: Player, others: tuple[Player, ...] = ()) -> None:
    """The others play as the hints say until Ann may draw; she draws, lays her three sets
    down and discards the last card: the game (one hand) is over."""
    end = time.monotonic() + 60
    while "draw" not in ann.legal():
        assert time.monotonic() < end, "Ann's turn did not come"
        for o in others:
            if o.legal():
                o.perform(o.hint())
        time.sleep(0.05)
    ann.perform({"type": "draw", "player": 0})
    ann.page.wait_for_selector("#go-down")
    build_go_down(ann, ANN_SETS)
    [last] = ann.hand()
    ann.perform({"type": "discard", "player": 0, "card": last})


def close_hand_end(p: Player) -> None:
    """The last hand's screen gives way to the standings."""
    p.page.wait_for_selector("#hand-end")
    p.page.click("#hand-end-close")
    p.page.wait_for_selector("#hand-end", state="detached")


# ---- who the page remembers ----------------------------------------------------------------

def test_the_player_is_kept_across_a_reload_and_a_second_tab(server: Server,
                                                             make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    urls = watch_urls(ann)
    page = ann.page
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    assert page.input_value("#nickname") == "" and stored_player(ann) is None
    # the first name needed: creating a table makes the player
    page.fill("#nickname", "Ann")
    page.click("#create")
    page.wait_for_selector("#share-url")
    me = stored_player(ann)
    assert me and me["name"] == "Ann" and me["id"] and me["key"]
    table = page.url.rsplit("/", 1)[1]
    summary = server.api("GET", f"/api/tables/{table}")
    assert summary["seats"][0]["player"] == me["id"]
    assert page.get_attribute("#nav-me", "href") == f"/p/{me['id']}"

    # a reload: the same player, the same seat
    page.reload()
    page.wait_for_selector("#seats li:has-text('Ann') .badge:has-text('you')")
    assert stored_player(ann) == me
    # a second tab: the same player, the name prefilled in the lobby
    tab = ann.context.new_page()
    tab.goto(server.base + "/")
    tab.wait_for_selector("#create-form")
    assert tab.input_value("#nickname") == "Ann"
    assert not tab.is_checked("#nickname-guest")
    assert json.loads(tab.evaluate("() => localStorage.getItem('liverpool:player')")) == me
    # ... and at the table, seated
    tab.goto(server.base + f"/t/{table}")
    tab.wait_for_selector("#seats li:has-text('Ann') .badge:has-text('you')")

    # a guest plays without a player: nothing made, no key sent
    guest = make_player("Cy", viewport=DESKTOP)
    guest_urls = watch_urls(guest)
    guest.page.goto(server.base + "/")
    guest.page.fill("#nickname", "Cy")
    guest.page.check("#nickname-guest")
    guest.page.click("#create")
    guest.page.wait_for_selector("#share-url")
    assert stored_player(guest) is None
    guest_table = guest.page.url.rsplit("/", 1)[1]
    assert server.api("GET", f"/api/tables/{guest_table}")["seats"][0]["player"] is None
    # the choice is kept for the next form
    guest.page.goto(server.base + "/")
    assert guest.page.is_checked("#nickname-guest")
    no_key_in(urls + guest_urls, me["key"])
    assert not ann.errors and not guest.errors, ann.errors + guest.errors


def test_a_recovery_code_gives_another_browser_the_same_player(server: Server,
                                                               make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    phone = make_player("Ann's phone", viewport=PHONE, has_touch=True, is_mobile=True)
    urls = watch_urls(ann)
    phone_urls = watch_urls(phone)
    me = new_player(server, ann, "Ann")
    ann.page.click("#nav-me")
    ann.page.wait_for_selector("#settings")
    ann.page.click("#recovery-show")
    code = ann.page.input_value("#recovery-code")
    assert code

    # the phone has no player: its "My page" is where a code is used
    phone.page.goto(server.base + "/")
    phone.page.click("#nav-me")
    phone.page.wait_for_selector("#recover-code")
    in_view(phone, "#recover-panel")
    no_sideways_scroll(phone)
    phone.page.fill("#recover-code", code)
    phone.page.click("#recover")
    phone.page.wait_for_selector("#settings")
    got = stored_player(phone)
    assert got and got["id"] == me["id"] and got["name"] == "Ann"
    assert got["key"] != me["key"]
    assert phone.page.url.endswith(f"/p/{me['id']}")
    no_sideways_scroll(phone)
    # both keys work: each device is the player
    for key in (me["key"], got["key"]):
        assert server.api("GET", "/api/players/me", key=key)["id"] == me["id"]
    no_key_in(urls + phone_urls, me["key"], got["key"], code)
    assert not ann.errors and not phone.errors, ann.errors + phone.errors


def test_forget_me_forgets_the_player(server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=PHONE, has_touch=True, is_mobile=True)
    tablet = make_player("Ann's tablet", viewport=DESKTOP)
    me = new_player(server, ann, "Ann", listed=True)
    other = new_player(server, tablet, "Ann")
    # the tablet's player is another's: it is shown without settings
    tablet.page.goto(server.base + f"/p/{me['id']}")
    tablet.page.wait_for_selector("#player-name")
    assert tablet.page.locator("#settings").count() == 0

    page = ann.page
    page.goto(server.base + "/p/me")
    page.wait_for_selector("#settings")
    assert page.url.endswith(f"/p/{me['id']}")
    page.click("#forget")
    page.wait_for_selector("#forget-confirm")
    page.click("#forget-confirm")
    page.wait_for_selector("#forgotten")
    assert stored_player(ann) is None
    kept = page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('liverpool:'))")
    assert set(kept) <= {"liverpool:sort", "liverpool:four-color"}, kept
    # the server keeps only that a former player played: no name, nothing shown
    gone = server.api("GET", f"/api/players/{me['id']}")
    assert gone["name"] != "Ann" and gone["rating"] is None and gone["games"] is None
    assert server.call("GET", "/api/players/me", key=me["key"])[0] == 401
    # the lobby: no name kept; "My page" leads to using a recovery code
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    assert page.input_value("#nickname") == ""
    assert page.get_attribute("#nav-me", "href") == "/p/me"

    # a browser whose key the server forgot (forgotten from another device): dropped, said,
    # and the table is made for a guest
    server.api("DELETE", "/api/players/me", key=other["key"])
    tablet.page.goto(server.base + "/")
    tablet.page.fill("#nickname", "Ann")
    tablet.page.click("#create")
    tablet.page.wait_for_selector("#share-url")
    tablet.page.wait_for_selector("#site-notice:has-text('guest')")
    assert stored_player(tablet) is None
    assert not ann.errors and not tablet.errors, ann.errors + tablet.errors


# ---- the end of a game ---------------------------------------------------------------------

def test_a_finished_game_shows_on_the_players_page_and_the_leaderboard(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=PHONE, has_touch=True, is_mobile=True)
    urls = watch_urls(ann)
    violations = _watch_csp(ann)  # the standings, the chart, the leaderboard: no inline style
    me = new_player(server, ann, "Ann Rated", listed=True, public=True)
    res = server.api("POST", "/api/tables", {
        "rules": "arena", "overrides": OUT_RULES, "seed": 3, "deals": [out_deck()],
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}]}, key=me["key"])
    table = res["table"]["id"]
    sit_at(server, ann, table, res["seat"], res["token"], me["id"])
    ann.page.wait_for_selector("#start")
    ann.page.click("#start")
    ann.page.wait_for_selector("#hand .card")
    ann_goes_out(ann)

    # the standings: Ann first with no points, her rating's change; the bot's fixed rating
    close_hand_end(ann)
    ann.page.wait_for_selector("#standings .standing[data-seat='0'] .st-change")
    first = ann.page.locator("#standings .standing").first
    assert first.get_attribute("data-seat") == "0" and first.get_attribute("data-place") == "1"
    assert "0 pts" in first.inner_text()
    assert ann.page.inner_text("#standings .standing[data-seat='0'] .st-change").startswith("+")
    in_view(ann, "#rematch")
    dock_in_view(ann)
    ann.shot("standings-phone", full_page=False)

    # her page: the game with its place and points, the statistics, the rating's chart
    ann.page.click("#standings .standing[data-seat='0'] .st-name a")
    ann.page.wait_for_selector(f"#games .game-row[data-table='{table}']")
    row = ann.page.locator(f"#games .game-row[data-table='{table}']")
    assert row.get_attribute("data-place") == "1" and row.get_attribute("data-points") == "0"
    assert "1st of 2" in row.inner_text()
    assert row.locator(f"a[href='/replay/{table}']").count() == 1
    ann.page.wait_for_selector("#stats-table th:has-text('arena')")
    ann.page.wait_for_selector("#rating-chart svg circle")
    assert "?" in ann.page.inner_text("#player-rating")  # one game: provisional
    no_sideways_scroll(ann)
    ann.shot("player-page-phone")

    # the leaderboard lists her, with the bots' ratings beside
    ann.page.click("#nav-leaderboard")
    ann.page.wait_for_selector(f"#leaderboard tr[data-player='{me['id']}']")
    assert "Ann Rated" in ann.page.inner_text(f"#leaderboard tr[data-player='{me['id']}']")
    ann.page.wait_for_selector("#lb-bots li[data-level='level:5']")
    ann.page.select_option("#lb-preset", "arena")
    ann.page.wait_for_selector(f"#leaderboard tr[data-player='{me['id']}']")
    no_sideways_scroll(ann)
    # and the lobby's chooser says each bot level's rating
    ann.page.goto(server.base + "/")
    ann.page.wait_for_selector("#create-form")
    labels = ann.page.eval_on_selector_all("select[data-seat='1'] option",
                                           "os => os.map(o => o.textContent)")
    assert any(text.startswith("computer: level 5, Solid (rated ") for text in labels), labels
    no_key_in(urls, me["key"])
    assert violations == [], violations
    assert not ann.errors, ann.errors


def test_two_people_play_again(server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    bea = make_player("Bea", viewport=PHONE, has_touch=True, is_mobile=True)
    urls = watch_urls(ann)
    bea_urls = watch_urls(bea)
    a = new_player(server, ann, "Ann")
    b = new_player(server, bea, "Bea")
    res = server.api("POST", "/api/tables", {
        "rules": "arena", "overrides": OUT_RULES, "seed": 3, "deals": [out_deck()],
        "seats": [{"kind": "human"}, {"kind": "human"}]}, key=a["key"])
    old = res["table"]["id"]
    sit_at(server, ann, old, res["seat"], res["token"], a["id"])
    bea.page.goto(server.link(res["share_url"]))
    assert bea.page.input_value("#join-nickname") == "Bea"  # her player's name
    bea.page.click("#join")
    bea.page.wait_for_selector("#seats")
    assert server.api("GET", f"/api/tables/{old}")["seats"][1]["player"] == b["id"]
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    ann_goes_out(ann, (bea,))
    for p in (ann, bea):
        close_hand_end(p)
        p.page.wait_for_selector("#standings .standing")
        p.page.wait_for_selector("#rematch")

    ann.shot("standings", full_page=False)
    # Ann asks first: a new table, she is its host, in the same seat
    ann.page.click("#rematch")
    ann.page.wait_for_url(lambda u: "/t/" in u and old not in u)
    new = ann.page.url.rsplit("/", 1)[1]
    ann.page.wait_for_selector("#seats li:has-text('Ann') .badge:has-text('you')")
    # Bea sees the offer on her finished table and joins: her reserved seat
    bea.page.wait_for_selector("#rematch-banner:has-text('Ann wants a rematch')")
    in_view(bea, "#rematch-join")
    bea.shot("rematch-offer-phone", full_page=False)
    bea.page.click("#rematch-join")
    bea.page.wait_for_url(f"**/t/{new}")
    bea.page.wait_for_selector("#seats li:has-text('Bea') .badge:has-text('you')")
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    seats = server.api("GET", f"/api/tables/{new}")["seats"]
    assert [s["player"] for s in seats] == [a["id"], b["id"]]
    # the old table leads to the new one
    ann.page.goto(server.base + f"/t/{old}")
    ann.page.wait_for_selector(f"#rematch-banner a[href='/t/{new}']")
    # Ann (the host) starts the rematch as usual
    ann.page.goto(server.base + f"/t/{new}")
    ann.page.click("#start")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand .card")
    no_key_in(urls + bea_urls, a["key"], b["key"])
    assert not ann.errors and not bea.errors, ann.errors + bea.errors


def test_leave_the_game_marks_the_seat(server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    bea = make_player("Bea", viewport=PHONE, has_touch=True, is_mobile=True)
    res = server.api("POST", "/api/tables", {
        "nickname": "Ann", "rules": "arena", "overrides": {"hands": [1]}, "seed": 7,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}]})
    table = res["table"]["id"]
    sit_at(server, ann, table, res["seat"], res["token"], None)
    join_by_link(bea, server.link(res["share_url"]))
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    bea.page.wait_for_selector("#hand .card")

    # Bea leaves from the menu, after a confirmation that says she will be placed last
    bea.page.click("#menu-button")
    bea.page.click("#leave-game")
    bea.page.wait_for_selector("#leave-dialog:has-text('placed last')")
    in_view(bea, "#leave-confirm")
    bea.shot("leave-phone", full_page=False)
    bea.page.click("#leave-confirm")
    bea.page.wait_for_selector("#leave-dialog", state="detached")
    bea.page.wait_for_selector(".player[data-seat='1'] .badge.left")
    bea.page.wait_for_selector("#status:has-text('You left the game')")
    # everyone sees her seat marked; a bot plays it
    ann.page.wait_for_selector(".player[data-seat='1'] .badge.left")
    ann.shot("left", full_page=False)
    # ... and after a reload too
    bea.page.reload()
    bea.page.wait_for_selector("#status:has-text('You left the game')")
    assert bea.page.locator("#prompt .actions button[data-act]").count() == 0
    # she watches: her seat stays left (a hello with its token would have sat her again)
    bea.page.wait_for_timeout(300)
    assert server.api("GET", f"/api/tables/{table}")["seats"][1]["left"] is True
    assert ann.page.locator(".player[data-seat='1'] .badge.left").count() == 1
    assert not ann.errors and not bea.errors, ann.errors + bea.errors
