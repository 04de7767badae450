"""The front end needs nothing but the server: every request a page makes goes to its own
origin (no CDN, no web font, no internet at run time), and every asset it loads is served. And
it runs under the server's Content-Security-Policy (docs/security.md) without one violation: no
inline script or style, no style attribute, no eval.

Domain words: asset (a file under liverpool/web/static), origin (scheme, host and port), CSP
violation (something the policy refused: the browser reports it in the console and as a
``securitypolicyviolation`` event).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .conftest import Player, Server, finished_game, open_table_as_host


def test_pages_load_only_from_their_own_server(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    seen: list[str] = []
    failed: list[str] = []
    ann.page.on("request", lambda r: seen.append(r.url))
    # (a request cut short by leaving the page is not a failure)
    ann.page.on("requestfailed",
                lambda r: None if "ERR_ABORTED" in (r.failure or "") else failed.append(r.url))
    ann.page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    ann.page.goto(server.base + "/")
    ann.page.wait_for_selector("#create-form")
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {},
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                  {"kind": "bot", "level": "basic"}],
        "turn_timer": None, "buy_timer": None})
    ann.page.click("#start")
    ann.page.wait_for_selector("#hand .card")
    ann.page.goto(server.base + f"/replay/{table}")  # not over yet: a clear refusal
    ann.page.wait_for_selector("text=not over yet")

    origin = urlsplit(server.base)
    assert seen
    for url in seen:
        u = urlsplit(url)
        assert u.scheme == "data" or (u.scheme == "http" and u.netloc == origin.netloc), url
    assert any(url.endswith("/static/app.js") for url in seen)
    assert any(url.endswith("/static/style.css") for url in seen)
    # the only refused request is the replay of a game that is not over
    assert all(url.endswith(f"/api/tables/{table}/replay") for url in failed), failed


# reports every violation in the console too, whatever page is open (an init script runs before
# the page's own scripts, on every page loaded)
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error("Content Security Policy violation: " + e.violatedDirective + " blocked " +
    (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});
"""


def _watch_csp(player: Player) -> list[str]:
    seen: list[str] = []
    player.context.add_init_script(REPORT_VIOLATIONS)
    player.page.on("console", lambda m: seen.append(m.text)
                   if "Content Security Policy" in m.text else None)
    return seen


def test_no_page_breaks_the_content_security_policy(server: Server, make_player: Any) -> None:
    over, _replay = finished_game(server)
    ann, bea = make_player("Ann"), make_player("Bea")
    violations = _watch_csp(ann)
    seen_bea = _watch_csp(bea)

    # the lobby, with its rule options open
    answer = ann.page.goto(server.base + "/")
    assert answer is not None
    policy = answer.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "style-src 'self'" in policy, policy
    ann.page.wait_for_selector("#create-form")
    ann.page.click(".rule-options summary")
    ann.page.wait_for_selector("#tables-pager, #tables .muted")

    # a private table: the waiting room, and the join form of someone without the link
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {},
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": 60, "buy_timer": None, "seed": 5})
    bea.page.goto(server.base + f"/t/{table}")
    bea.page.wait_for_selector("#join-private")
    bea.page.goto(ann.share_link)
    bea.page.fill("#join-nickname", "Bea")
    bea.page.click("#join")
    ann.page.wait_for_selector("#seats li:has-text('Bea')")

    # the game: cards, clocks, the score sheet, a hint, a card dragged (moved by style)
    ann.page.click("#start")
    ann.page.wait_for_selector("#hand .card")
    bea.page.wait_for_selector("#hand .card")
    ann.page.click("#scores-button")
    ann.page.wait_for_selector("#score-dialog")
    ann.page.keyboard.press("Escape")
    ann.page.wait_for_selector("#score-dialog", state="detached")
    # the rules and the keys, the four-colour deck (colours by class, never a style attribute)
    # (clicked inside the page in one step: a redraw may replace the button under a mouse click)
    ann.page.evaluate("() => document.querySelector('#preset-label').click()")
    ann.page.wait_for_selector("#rules-panel li.current")
    ann.page.keyboard.press("?")
    ann.page.wait_for_selector("#keys-help")
    # the keys as a list of keys and what each does (nested children once read as
    # "[object HTMLElement],[object HTMLElement]")
    keys = ann.page.inner_text("#keys-help")
    assert "[object" not in keys
    assert ann.page.locator("#keys-help dl.keys dt kbd").count() >= 5
    assert ann.page.locator("#keys-help dl.keys dd").count() == \
        ann.page.locator("#keys-help dl.keys dt").count()
    ann.page.keyboard.press("Escape")
    ann.page.click("#four-color")
    ann.page.wait_for_selector("body.four-color")
    ann.page.click("#four-color")
    first = ann.page.locator("#hand .card").nth(0).bounding_box()
    assert first is not None
    ann.page.mouse.move(first["x"] + 10, first["y"] + 30)
    ann.page.mouse.down()
    ann.page.mouse.move(first["x"] + 120, first["y"] + 30, steps=6)
    ann.page.mouse.up()
    for p in (ann, bea):
        if p.legal():
            p.hint()

    # a finished game's replay, stepped through
    ann.page.goto(server.base + f"/replay/{over}")
    ann.page.wait_for_selector("#replay-slider")
    ann.page.click("#replay-next")
    ann.page.click("#replay-last")
    ann.page.wait_for_selector("#replay-scores")

    assert violations == [] and seen_bea == [], violations + seen_bea
    assert not ann.errors and not bea.errors, ann.errors + bea.errors

    # and the watch works: a style attribute is refused and reported
    ann.page.evaluate("() => { const d = document.createElement('div');"
                      " d.setAttribute('style', 'color: red'); document.body.append(d); }")
    for _ in range(50):
        if violations:
            break
        ann.page.wait_for_timeout(100)
    assert violations, "a style attribute was not reported as a CSP violation"
