"""A hand played in real browsers: two friends join by the share link (a private table's, with
its join secret) and play with a bot,
including a buy ("May I?"), going down and going out, and a reload in the middle of the game.

Domain words: host (seat 0, who creates and starts the table), share link, hint-driven play
(each person does what the hint suggests, through the page's own gestures).
"""

from __future__ import annotations

import contextlib
from typing import Any

from .conftest import Server, join_by_link, open_table_as_host, wait_any_turn

SEED = 11
COUNT_IS = "n => document.querySelectorAll('#hand .card').length === n"
SCORE_ROWS = "rows => rows.map(r => [...r.cells].slice(1).map(c => Number(c.textContent)))"


def test_two_friends_and_a_bot_play_a_hand(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    bea = make_player("Bea")
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1]},
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "random"}],
        "turn_timer": None, "buy_timer": None, "seed": SEED})
    # the waiting room shows the server's share link: the table is private, so it carries the
    # join secret, and it is the link the create answer gave
    link = ann.page.input_value("#share-url")
    assert f"/t/{table}#join=" in link and link == ann.share_link

    join_by_link(bea, link)
    # the host sees the friend arrive, then starts
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand .card")
    assert len(ann.hand()) == len(bea.hand()) == 10
    assert ann.page.inner_text("#contract") == "Contract: 2 sets"
    ann.shot("game-start")

    bought = reloaded = False
    went_down: set[str] = set()
    warned = False
    for _ in range(600):
        wait_any_turn([ann, bea])
        if ann.phase() == "over":
            break
        if ann.page.locator(".player.one-card").count():
            # a seat down to one card is announced to everyone
            for p in (ann, bea):
                p.page.wait_for_selector("#one-card:has-text('one card left')")
            warned = True
        for p in (ann, bea):
            legal = p.legal()
            if not legal:
                continue
            if p is ann and not bought and "draw" in legal and p.phase() == "draw":
                # Bea says "May I?" while Ann decides; Ann draws, so Bea buys the discard
                with contextlib.suppress(Exception):
                    bea.page.wait_for_selector("#may-i", timeout=3000)
                if bea.page.locator("#may-i").count():
                    before = len(bea.hand())
                    bea.page.click("#may-i")
                    ann.page.wait_for_selector("#buy-requests:has-text('Bea')")
                    ann.shot("may-i-asked")
                    ann.perform({"type": "draw", "player": 0})
                    bea.page.wait_for_function(COUNT_IS, arg=before + 2)
                    # Bea reads her own buy in the second person, Ann in the third
                    assert any(line.startswith("You buy") for line in bea.log())
                    ann.page.wait_for_selector("#log li[data-type='bought']:has-text('Bea buys')")
                    bought = True
                    continue
            if p is ann and bought and not reloaded and p.phase() == "play":
                # a reload in the middle of the turn restores the whole table
                hand, log = sorted(ann.hand()), ann.log()
                ann.page.reload()
                ann.page.wait_for_selector("#hand .card")
                ann.page.wait_for_selector(".table-page[data-legal*='discard']")
                assert sorted(ann.hand()) == hand
                assert ann.log()[-5:] == log[-5:]
                assert ann.state()["seat"] == "0"
                reloaded = True
            a = p.hint()
            if a["type"] == "go_down":
                p.shot(f"go-down-{p.name}")
                went_down.add(p.name)
            p.perform(a)
    else:
        raise AssertionError("the hand did not end")

    for p in (ann, bea):
        p.page.wait_for_selector("#final-scores")
        # the end-of-hand screen of the last hand: everyone's cards left, then the scores
        p.page.wait_for_selector("#hand-end .end-table")
        assert p.page.locator("#hand-end tbody tr").count() == 3
    ann.shot("game-over")
    ann.page.click("#hand-end-close")
    ann.page.wait_for_selector("#hand-end", state="detached")
    rows = ann.page.eval_on_selector_all("#final-scores tbody tr", SCORE_ROWS)
    assert len(rows) == 1 and 0 in rows[0], rows  # somebody went out and scored nothing
    assert bought and reloaded and warned
    assert went_down, "neither friend went down"
    assert not ann.errors and not bea.errors, ann.errors + bea.errors

    # the finished game's replay steps through the record to the last move
    ann.page.click("#replay-link")
    ann.page.wait_for_selector("#replay-slider")
    ann.page.click("#replay-last")
    assert "goes out" in ann.page.inner_text("#replay-step")
    ann.page.wait_for_selector("#replay-scores")
    ann.shot("replay")
