"""Routes of the pages a browser opens: the lobby ``/``, a table ``/t/{id}``, a replay
``/replay/{id}``, a game's review ``/review/{id}?seat=N``, a player's page ``/p/{player}`` and
the leaderboard ``/leaderboard``, all one page (the browser front end reads the address), and
its static files.

Domain words: *page* (``static/index.html``, the single page of the browser front end),
*fallback page* (what is served when the front end is not installed: the API still works).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"

_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Liverpool</title>
<p>The Liverpool server is running, but its browser front end is not installed
(<code>liverpool/web/static/index.html</code> is missing). The API is at <code>/api/</code>.</p>
"""

router = APIRouter(include_in_schema=False)


def _page() -> Response:
    index = STATIC / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html")
    return HTMLResponse(_FALLBACK_PAGE)


@router.get("/")
async def lobby_page() -> Response:
    return _page()


@router.get("/t/{table_id}")
async def table_page(table_id: str) -> Response:
    return _page()


@router.get("/replay/{table_id}")
async def replay_page(table_id: str) -> Response:
    return _page()


@router.get("/review/{table_id}")
async def review_page(table_id: str) -> Response:
    return _page()


@router.get("/p/{player_id}")
async def player_page(player_id: str) -> Response:
    return _page()


@router.get("/leaderboard")
async def leaderboard_page() -> Response:
    return _page()


def mount_static(app: FastAPI) -> None:
    """Serve the front end's files under ``/static`` (a mount: a router cannot carry one)."""
    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
