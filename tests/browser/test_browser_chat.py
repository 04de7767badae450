"""The table chat in the browser (chat.js): two friends talk in the waiting room and during the
game, a reaction floats by its speaker's seat, a mute hides a speaker's lines and reactions,
markup is shown as text, the unread badge counts what came out of sight, a spectator sees who
watches and speaks once the host lets spectators speak, and on a phone the chat is a drawer.

Domain words: line, reaction, mute, unread badge, watchers, spectators' chat (chat.js).
"""

from __future__ import annotations

from typing import Any

from .conftest import Player, Server, join_by_link, open_table_as_host, wait_any_turn

XSS = '<img src=x onerror="window.__xss = 1"><b>bold?</b>'


def _table(server: Server, ann: Player) -> str:
    return open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {},
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": None, "buy_timer": None})


def _say(p: Player, text: str) -> None:
    p.page.fill("#chat-input", text)
    p.page.press("#chat-input", "Enter")


def _lines(p: Player) -> list[str]:
    return list(p.page.eval_on_selector_all(
        "#chat-lines li.chat-line", "els => els.map(e => e.textContent.replace(/mute$/, ''))"))


def test_two_friends_chat_react_mute_and_see_who_watches(server: Server,
                                                         make_player: Any) -> None:
    ann, bea, cy = make_player("Ann"), make_player("Bea"), make_player("Cy")
    table = _table(server, ann)
    join_by_link(bea, ann.share_link)
    # in the waiting room: Enter sends, the other sees it
    _say(ann, "hello Bea")
    bea.page.wait_for_selector("#chat-lines li.chat-line:has-text('hello Bea')")
    assert _lines(bea) == ["Ann: hello Bea"]
    assert ann.page.input_value("#chat-input") == ""
    # markup is text: shown as typed, never made into elements
    _say(bea, XSS)
    ann.page.wait_for_selector("#chat-lines li.chat-line[data-from='s1']")
    assert _lines(ann)[-1] == f"Bea: {XSS}"
    assert ann.page.locator("#chat-lines img, #chat-lines b").count() == 0
    assert ann.page.evaluate("() => window.__xss") is None

    # the game starts: what was said is still there, in the side panel's Chat tab
    ann.page.click("#start")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand .card")
    ann.page.click("#tab-chat")
    ann.page.wait_for_selector("#side #chat-lines li.chat-line:has-text('hello Bea')")
    # Bea looks at the moves: a line out of sight is counted on the Chat tab
    assert bea.page.locator("#tab-chat.on").count() == 0
    _say(ann, "good luck")
    bea.page.wait_for_selector("#tab-chat .chat-unread:not([hidden]):has-text('1')")
    bea.page.click("#tab-chat")
    bea.page.wait_for_selector("#chat-lines li.chat-line:has-text('good luck')")
    bea.page.wait_for_selector("#tab-chat .chat-unread[hidden]", state="attached")
    # a line being typed survives the table's redraws (the bot moves meanwhile)
    bea.page.fill("#chat-input", "half a senten")
    wait_any_turn([ann, bea], 30)
    mover = ann if ann.legal() else bea
    mover.perform(mover.hint())
    assert bea.page.input_value("#chat-input") == "half a senten"
    bea.page.fill("#chat-input", "")

    # a reaction floats by the speaker's seat, and is a line of the chat
    ann.page.click("#chat-reactions button[data-reaction='gg']")
    bea.page.wait_for_selector(".reaction-float[data-seat='0']:has-text('Good game')")
    bea.page.wait_for_selector("#chat-lines li.chat-line.reaction:has-text('Ann: 🤝 Good game')")

    # Bea mutes Ann: her lines go, and her reactions no longer show (Bea's own choice)
    bea.page.hover("#chat-lines li.chat-line[data-from='s0']")
    bea.page.locator("#chat-lines li.chat-line[data-from='s0'] .chat-mute").first.click()
    assert bea.page.locator("#chat-lines li[data-from='s0']").count() == 0
    bea.page.wait_for_selector("#chat-muted button[data-from='s0']")
    ann.page.click("#chat-reactions button[data-reaction='wow']")
    _say(ann, "can you hear me")  # (Ann's 5th line: all within her burst of 5)
    ann.page.wait_for_selector("#chat-lines li:has-text('can you hear me')")
    bea.page.wait_for_timeout(300)  # (what Ann said has reached Bea's page by now, or never)
    assert bea.page.locator(".reaction-float[data-seat='0']:has-text('Wow')").count() == 0
    assert bea.page.locator("#chat-lines li[data-from='s0']").count() == 0
    assert bea.page.locator("#tab-chat .chat-unread:not([hidden])").count() == 0
    # the mute is kept for this table (a reload keeps it); Ann sees her own lines as ever
    bea.page.reload()
    bea.page.wait_for_selector("#hand .card")
    bea.page.click("#tab-chat")
    bea.page.wait_for_selector("#chat-muted button[data-from='s0']")
    assert bea.page.locator("#chat-lines li[data-from='s0']").count() == 0
    assert bea.page.locator("#chat-lines li[data-from='s1']").count() == 1

    # a spectator: everyone sees one watcher; the list names them
    cy.page.goto(server.base + f"/t/{table}?watch")
    cy.page.wait_for_selector("#board")
    for p in (ann, bea, cy):
        p.page.wait_for_selector("#watchers-count:has-text('1')")
    cy.page.click("#watchers-button")
    cy.page.wait_for_selector("#watchers-list li:has-text('guest')")
    # Cy reads the players' chat, and may not speak until the host lets spectators speak
    cy.page.click("#tab-chat")
    cy.page.wait_for_selector("#chat-lines li:has-text('hello Bea')")
    assert cy.page.locator("#chat-input").is_disabled()
    assert ann.page.locator("#chat-host").is_visible()
    assert not bea.page.locator("#chat-host").is_visible()
    # (Ann has just used her chat allowance: the host's change has its own)
    ann.page.check("#chat-spectators")
    cy.page.wait_for_selector("#chat-input:not([disabled])")
    _say(cy, "nice hand")
    # spectators' lines are shown apart from the players'
    ann.page.click("#chat-tab-spectators")
    ann.page.wait_for_selector("#chat-lines li:has-text('guest 1: nice hand')")
    ann.page.click("#chat-tab-players")
    assert "nice hand" not in " ".join(_lines(ann))
    for p in (ann, bea, cy):
        assert not p.errors, p.errors


def test_on_a_phone_the_chat_is_a_drawer_with_an_unread_badge(server: Server,
                                                              make_player: Any) -> None:
    phone = {"width": 390, "height": 844}
    ann = make_player("Ann", viewport=phone, is_mobile=True, has_touch=True)
    bea = make_player("Bea")
    _table(server, ann)
    join_by_link(bea, ann.share_link)
    ann.page.click("#start")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand .card")
    assert not ann.page.locator("#chat").is_visible()  # the drawer is closed
    bea.page.click("#tab-chat")
    _say(bea, "hi from the big screen")
    ann.page.wait_for_selector("#chat-button .chat-unread:not([hidden]):has-text('1')")
    ann.page.click("#chat-button")
    ann.page.wait_for_selector("#side.open #chat-lines li:has-text('hi from the big screen')")
    ann.page.wait_for_selector("#chat-button .chat-unread[hidden]", state="attached")
    _say(ann, "hi from the phone")
    bea.page.wait_for_selector("#chat-lines li:has-text('hi from the phone')")
    box = ann.page.locator("#chat-input").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    ann.shot("chat-phone", full_page=False)
    for p in (ann, bea):
        assert not p.errors, p.errors


def test_the_replay_shows_each_line_at_its_step(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1]}, "seed": 4,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                  {"kind": "bot", "level": "basic"}], "turn_timer": 0.01, "buy_timer": None})
    _say(ann, "good luck")
    ann.page.wait_for_selector("#chat-lines li:has-text('good luck')")
    ann.page.click("#start")
    ann.page.wait_for_selector(".table-page[data-phase='over']", timeout=90_000)
    ann.page.wait_for_selector("#hand-end")
    ann.page.keyboard.press("Escape")  # (the last hand's screen, over the table)
    ann.page.click("#tab-chat")
    _say(ann, "well played")  # once the game is over
    ann.page.wait_for_selector("#chat-lines li:has-text('well played')")
    ann.page.goto(server.base + f"/replay/{table}")
    ann.page.wait_for_selector("#replay-chat li:has-text('Ann: good luck')")
    assert ann.page.locator("#replay-chat li:has-text('well played')").count() == 0
    ann.page.click("#replay-last")
    ann.page.wait_for_selector("#replay-chat li.now:has-text('Ann: well played')")
    assert ann.page.locator("#replay-chat li:has-text('good luck')").count() == 1
    assert not ann.errors, ann.errors
