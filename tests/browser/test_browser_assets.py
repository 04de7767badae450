"""The front end needs nothing but the server: every request a page makes goes to its own
origin (no CDN, no web font, no internet at run time), and every asset it loads is served.

Domain words: asset (a file under liverpool/web/static), origin (scheme, host and port).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .conftest import Server, open_table_as_host


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
