"""A finished game's review in the browser: from the game-over screen's "Review" to the review
page, which shows the server's review of the person's seat (figures, chart, decisions), jumps to
a decision's position with the seat's hand and the moves marked on the cards, and asks each
mistake as a question before its verdict; on a phone in the dark theme too, with no sideways
scrolling.

Domain words: decision (an action of the seat, by its index in the record), position (the
replay's step before the decision's action), label (inaccuracy, mistake, blunder), candidate
(a move the server weighed at a decision), puzzle (a mistake or blunder asked as a question).
"""

from __future__ import annotations

import json
import time
from typing import Any

from .conftest import Player, Server
from .test_browser_assets import REPORT_VIOLATIONS

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
CARDS = "els => els.map(e => e.dataset.card)"


def _finished_seated(server: Server, ann: Player) -> tuple[str, dict[str, Any]]:
    """A two-hand game of bots with Ann's seat played by its turn timer, her seat's token kept
    in her browser; and its replay."""
    res = server.api("POST", "/api/tables", {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1, 2]}, "seed": 21,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"},
                  {"kind": "bot", "level": "basic"}], "turn_timer": 0.01})
    table = str(res["table"]["id"])
    server.api("POST", f"/api/tables/{table}/start", {"token": res["token"]})
    end = time.monotonic() + 90
    while server.api("GET", f"/api/tables/{table}")["status"] != "over":
        assert time.monotonic() < end, "the bots did not finish the game"
        time.sleep(0.2)
    ann.page.goto(server.base + "/")
    ann.page.evaluate("([t, v]) => localStorage.setItem('liverpool:' + t, JSON.stringify(v))",
                      [table, {"seat": 0, "token": res["token"]}])
    return table, server.api("GET", f"/api/tables/{table}/replay")


def _before(replay: dict[str, Any], index: int) -> dict[str, Any]:
    """The step just before action ``index`` (each deal is a step of its own)."""
    after = [i for i, s in enumerate(replay["steps"]) if s["kind"] != "deal"][index]
    step: dict[str, Any] = replay["steps"][after - 1]
    return step


def _marked(page: Any, cls: str) -> dict[str, list[str]]:
    return {"hand": page.eval_on_selector_all(f"#review-hand .card.{cls}", CARDS),
            "pile": page.eval_on_selector_all(f"#review-position .review-center .card.{cls}",
                                              CARDS)}


def _expected_marks(action: dict[str, Any], step: dict[str, Any]) -> dict[str, list[str]]:
    if action["type"] in ("discard", "lay_off", "swap_joker", "borrow"):
        return {"hand": [action["card"]], "pile": []}
    if action["type"] == "go_down":
        return {"hand": sorted(c for m in action["melds"] for c in m), "pile": []}
    if action["type"] in ("take_discard", "buy", "call"):
        return {"hand": [], "pile": [step["discard"]]}
    return {"hand": [], "pile": []}


SEAT = 1  # the random bot's


def test_from_the_game_over_screen_to_the_review(server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    # the page keeps the Content-Security-Policy (no inline style: the chart too)
    ann.context.add_init_script(REPORT_VIOLATIONS)
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text)
            if "Content Security Policy" in m.text else None)
    table, replay = _finished_seated(server, ann)
    page.goto(server.base + f"/t/{table}")
    page.wait_for_selector("#standings #review-link")
    # what the person missed (the turn timer played her seat, the last hand's end) first
    for button in ("#away-ok", "#hand-end-close"):
        if page.locator(button).count():
            page.click(button)
    page.click("#review-link")
    page.wait_for_url(f"**/review/{table}?seat=0")
    page.wait_for_selector("#review-svg", timeout=120_000)
    # the random bot's seat: its review surely has labelled decisions (a well played seat's
    # may have none, as it should)
    page.goto(server.base + f"/review/{table}?seat={SEAT}")
    page.wait_for_selector("#review-svg", timeout=120_000)
    review = server.api("GET", f"/api/tables/{table}/review?seat={SEAT}")["review"]["seats"][0]
    decisions = review["decisions"]
    labelled = [d for d in decisions if d["label"]]
    assert labelled, "this game's review has no labelled decision to test with"

    # the figures, the chart with a mark per labelled decision, the list with their badges
    assert page.inner_text("#review-accuracy") == str(review["accuracy"])
    assert page.locator("#review-svg circle").count() == len(decisions)
    assert page.eval_on_selector_all("#review-svg circle.mark", "es => es.map(e => "
                                     "Number(e.dataset.index))") == [d["index"] for d in labelled]
    assert page.eval_on_selector_all("#review-decisions li", "es => es.map(e => "
                                     "Number(e.dataset.index))") == [d["index"] for d in decisions]
    badges = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
    for d in labelled:
        li = f"#review-decisions li[data-index='{d['index']}']"
        assert page.inner_text(f"{li} .review-badge") == badges[d["label"]]

    # a click on a mark: the position before it, the seat's hand, the moves on the cards
    d = labelled[0]
    page.click(f"#review-svg circle.mark[data-index='{d['index']}']")
    page.wait_for_selector(f"#review-position[data-index='{d['index']}']")
    step = _before(replay, d["index"])
    assert page.eval_on_selector_all("#review-hand .card", CARDS) == step["hands"][SEAT]
    for cls, action in (("played", d["action"]), ("better", d["best"])):
        got = _marked(page, cls)
        assert {"hand": sorted(got["hand"]), "pile": got["pile"]} == \
            _expected_marks(action, step), (cls, action)
    assert d["why"] and page.inner_text("#review-why")
    ann.shot("review", full_page=False)
    # and from the list, the next one
    other = decisions[-1]
    page.click(f"#review-decisions li[data-index='{other['index']}'] button")
    page.wait_for_selector(f"#review-position[data-index='{other['index']}']")
    assert page.eval_on_selector_all("#review-hand .card", CARDS) == \
        _before(replay, other["index"])["hands"][SEAT]

    # learn from your mistakes: asked first, then the verdict
    puzzles = [x for x in decisions if x["label"] in ("mistake", "blunder")]
    assert puzzles
    page.click("#learn-start")
    for k, p in enumerate(puzzles[:2]):
        page.wait_for_selector(f"#review-learn[data-index='{p['index']}']")
        assert page.locator("#learn-verdict").count() == 0  # no verdict before an answer
        choices = page.eval_on_selector_all(".learn-choice", "es => es.map(e => e.dataset.action)")
        assert sorted(choices) == sorted(json.dumps(c["action"], separators=(",", ":"))
                                         for c in p["candidates"])
        assert page.eval_on_selector_all("#review-learn .review-hand .card", CARDS) == \
            _before(replay, p["index"])["hands"][SEAT]
        # first what was played (a mistake: not the best), then the best
        pick = p["action"] if k == 0 else p["best"]
        page.locator(".learn-choice").nth(
            choices.index(json.dumps(pick, separators=(",", ":")))).click()
        verdict = page.locator("#learn-verdict")
        if k == 0:
            assert verdict.get_attribute("data-right") == "no"
            assert "Not the best" in verdict.inner_text() and "Better:" in verdict.inner_text()
        else:
            assert verdict.get_attribute("data-right") == "yes"
            assert verdict.inner_text().startswith("Right:")
        assert page.locator(".learn-choice.best").count() >= 1
        assert page.locator(".learn-choice:enabled").count() == 0
        page.click("#learn-next")
    assert not ann.errors, ann.errors
    assert violations == [], violations

    # on a phone in the dark theme: the same review (kept: it is shown at once), no sideways
    # scrolling, the chart inside the screen
    bea = make_player("Bea", viewport=PHONE, color_scheme="dark", has_touch=True,
                      is_mobile=True)
    bea.page.goto(server.base + f"/review/{table}?seat={SEAT}")
    bea.page.wait_for_selector("#review-svg")
    assert bea.page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    box = bea.page.locator("#review-svg").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    bea.page.click(f"#review-decisions li[data-index='{d['index']}'] button")
    bea.page.wait_for_selector("#review-position #review-hand .card")
    assert bea.page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    bea.shot("review-phone-dark", full_page=False)
    assert not bea.errors, bea.errors
