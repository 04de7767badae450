"""Browser tests of the `liverpool serve` front end: a real server subprocess (temp SQLite db, on
a free port) and Debian's chromium driven by Playwright.

Domain words: *player* (one browser context at the table, with its own localStorage and so its
own seat token), *gesture* (what a person does on the page: click the stock, select a card,
click a meld), *hint* (the server's suggested action, used to drive a player).

Set LIVERPOOL_TEST_BASE_URL to run the tests against a server that is already running (one
started with LIVERPOOL_ALLOW_SEED=1), and LIVERPOOL_SHOTS=DIR to keep screenshots of the pages.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from liverpool.cards import card_str, parse_card
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(os.environ.get("LIVERPOOL_SHOTS", "")) if os.environ.get("LIVERPOOL_SHOTS") else None
# LIVERPOOL_SHOTS_SCHEME=dark (or light): every page as a system set so, each screenshot's name
# then ending in "-dark" (the docs show both themes)
SCHEME = os.environ.get("LIVERPOOL_SHOTS_SCHEME") or None

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(base: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            out = log.read_text(errors="replace")
            raise RuntimeError(f"liverpool serve exited with {proc.returncode}:\n{out}")
        with contextlib.suppress(OSError, urllib.error.URLError), \
                urllib.request.urlopen(base + "/api/config", timeout=2) as r:
            if r.status == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"liverpool serve did not answer at {base} within {timeout} s")


class Server:
    """A running `liverpool serve`: its address and a small JSON client for the HTTP API."""

    def __init__(self, base: str) -> None:
        self.base = base

    def api(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        status, answer = self.call(method, path, body, key)
        if status >= 400:
            raise AssertionError(f"{method} {path} answered {status}: {answer}")
        return answer

    def call(self, method: str, path: str, body: Any = None,
             key: str | None = None) -> tuple[int, Any]:
        """The status and JSON answer of a request, refusals included (``key``: a player's,
        sent as the browser sends it, in the Authorization header)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            raw = e.read().decode(errors="replace")
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw

    def link(self, share_url: str) -> str:
        """A share link as the browser completes it: the server sends an absolute link or a
        path ("/t/ID#join=SECRET")."""
        return urllib.parse.urljoin(self.base + "/", share_url)


GRACE = 3.0  # seconds before a dropped player's seat is covered by a bot (15 s by default)

# docs/security.md's limits, relaxed: the tests play with short timers and make many tables,
# joins and connections from 127.0.0.1 (a test of a limit sets its own)
RELAXED_LIMITS = {
    "LIVERPOOL_LIMIT_MIN_TIMER": "0",
    # bots wait for no person and hands do not pause, unless a table asks (buy_window,
    # hand_pause in its config)
    "LIVERPOOL_BUY_WINDOW": "0",
    "LIVERPOOL_HAND_PAUSE": "0",
    "LIVERPOOL_LIMIT_CREATE_RATE": "1000/minute",
    "LIVERPOOL_LIMIT_JOIN_RATE": "1000/minute",
    "LIVERPOOL_LIMIT_START_RATE": "1000/minute",
    "LIVERPOOL_LIMIT_REPLAY_RATE": "1000/minute",
    "LIVERPOOL_LIMIT_REQUEST_RATE": "100000/minute",
    "LIVERPOOL_LIMIT_OPEN_TABLES_PER_CLIENT": "1000",
    "LIVERPOOL_LIMIT_WAITING_TABLES_PER_CLIENT": "1000",
    "LIVERPOOL_LIMIT_TABLES_PER_NETWORK": "1000",
    "LIVERPOOL_LIMIT_SOCKETS_PER_NETWORK": "10000",
    "LIVERPOOL_LIMIT_MESSAGE_RATE": "1000/second",
    "LIVERPOOL_LIMIT_SOCKETS_PER_CLIENT": "1000",
    # every table made through the lobby page makes a player (and tests make many)
    "LIVERPOOL_LIMIT_PLAYER_RATE": "100000/hour",
    "LIVERPOOL_LIMIT_PLAYERS_PER_CLIENT": "100000",
    "LIVERPOOL_LIMIT_PLAYERS_PER_NETWORK": "100000",
    "LIVERPOOL_LIMIT_RECOVER_RATE": "100000/hour",
    # game reviews: quick (few worlds a decision), and as many as the tests ask for
    "LIVERPOOL_LIMIT_REVIEW_WORLDS": "4",
    "LIVERPOOL_LIMIT_REVIEW_RATE": "100000/hour",
    "LIVERPOOL_LIMIT_REVIEW_PLAYER_RATE": "100000/hour",
}


def start_server(db: Path, port: int, grace: float = GRACE,
                 limits: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`liverpool serve` on loopback with a SQLite file; bots think 50 ms; seeds allowed; a
    short grace period; relaxed limits (``limits``: LIVERPOOL_LIMIT_* values to set besides)."""
    env = {**os.environ, "LIVERPOOL_ALLOW_SEED": "1", "LIVERPOOL_BOT_THINK": "0.05",
           "LIVERPOOL_GRACE": str(grace), "PYTHONUNBUFFERED": "1", **RELAXED_LIMITS,
           **(limits or {})}
    # output goes to a file beside the database: a pipe nobody reads could fill and block it
    with open(db.with_suffix(".log"), "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "liverpool.cli", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--db", f"sqlite:///{db}"],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_up(f"http://127.0.0.1:{port}", proc, db.with_suffix(".log"))
    except BaseException:
        stop_server(proc)
        raise
    return proc


def stop_server(proc: subprocess.Popen[bytes], kill: bool = False) -> None:
    if kill:
        proc.kill()
    else:
        proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    given = os.environ.get("LIVERPOOL_TEST_BASE_URL")
    if given:
        yield Server(given.rstrip("/"))
        return
    port = free_port()
    proc = start_server(tmp_path_factory.mktemp("web") / "tables.db", port)
    try:
        yield Server(f"http://127.0.0.1:{port}")
    finally:
        stop_server(proc)


# Module scope, not session: Playwright's sync API keeps an event loop running in the thread
# while it is started, and the server tests that share an xdist worker need the thread free.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium "
                    "(apt-get install chromium; scripts/test.sh installs it when run as root)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield b
        finally:
            b.close()


def act_key(a: dict[str, Any]) -> str:
    """An action as the page writes it in data-act: JSON, keys sorted, no spaces."""
    return json.dumps(a, sort_keys=True, separators=(",", ":"))


# the first-game guide (static/guide.js) marked done, as for someone who has seen it
GUIDE_SEEN = ("try { localStorage.setItem('liverpool:guide', JSON.stringify({done: true})); }"
              " catch (e) {}")


class Player:
    """One person at the table: a browser context (own storage, so own seat token) and page.
    The first-game guide is for people new to the page: a player has seen it already, unless
    made with ``guide=True`` (the guide's own tests)."""

    def __init__(self, browser: Any, server: Server, name: str,
                 viewport: dict[str, int] | None = None, guide: bool = False,
                 **context: Any) -> None:
        self.name = name
        self.server = server
        if SCHEME is not None:
            context.setdefault("color_scheme", SCHEME)
        self.context = browser.new_context(viewport=viewport or {"width": 1100, "height": 900},
                                           **context)
        if not guide:
            self.context.add_init_script(GUIDE_SEEN)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.share_link = ""  # the host's: the create answer's share link, made whole
        self.page.set_default_timeout(15_000)

    def close(self) -> None:
        self.context.close()

    # ---- page state (mirrored in data-* attributes of the table page) -------------------------

    def state(self) -> dict[str, str]:
        got = self.page.evaluate("""() => {
            const t = document.querySelector('.table-page');
            return t ? {...t.dataset} : {};
        }""")
        return dict(got)

    def version(self) -> int:
        return int(self.state().get("version", "-1"))

    def legal(self) -> list[str]:
        return self.state().get("legal", "").split()

    def phase(self) -> str:
        return self.state().get("phase", "")

    def hand(self) -> list[str]:
        return list(self.page.eval_on_selector_all(
            "#hand .card", "els => els.map(e => e.dataset.card)"))

    def log(self) -> list[str]:
        return list(self.page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)"))

    def shot(self, name: str, full_page: bool = True) -> None:
        """A screenshot kept under LIVERPOOL_SHOTS (the docs' images are made so); the game
        screen fills the window, so it is taken as the window shows it."""
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            tail = "-dark" if SCHEME == "dark" else ""
            self.page.screenshot(path=str(SHOTS / f"{name}{tail}.png"), full_page=full_page)

    def wait_version_after(self, before: int, timeout: float = 10.0) -> None:
        self.page.wait_for_function(
            "v => { const t = document.querySelector('.table-page');"
            " return t && Number(t.dataset.version) > v; }", arg=before, timeout=timeout * 1000)

    # ---- gestures ---------------------------------------------------------------------------

    def drag(self, index: int, onto: int) -> None:
        """Drag the hand's card at ``index`` past the card at ``onto``, with the mouse (pointer
        events, as a finger would)."""
        first = self.page.locator("#hand .card").nth(index).bounding_box()
        target = self.page.locator("#hand .card").nth(onto).bounding_box()
        assert first is not None and target is not None
        self.page.mouse.move(first["x"] + 10, first["y"] + 30)
        self.page.mouse.down()
        self.page.mouse.move(first["x"] + 40, first["y"] + 30, steps=4)
        self.page.mouse.move(target["x"] + target["width"] - 5, target["y"] + 30, steps=8)
        self.page.mouse.up()

    def hint(self) -> dict[str, Any]:
        """Ask for the hint and read the suggested action off the page."""
        self.page.click("#hint")
        el = self.page.wait_for_selector("#notice.hint[data-action]")
        assert el is not None
        return dict(json.loads(el.get_attribute("data-action") or "{}"))

    def select(self, card: str) -> None:
        """Select ``card`` in the hand (a click on a selected card would unselect it)."""
        if not self.page.locator(f"#hand .card.selected[data-card='{card}']").count():
            self.page.locator(f"#hand .card[data-card='{card}']").first.click()
        self.page.wait_for_selector(f"#hand .card.selected[data-card='{card}']")

    def perform(self, a: dict[str, Any]) -> None:
        """Do what a person would do on the page to play action ``a``; wait until it lands."""
        before = self.version()
        p = self.page
        t = a["type"]
        if t == "draw":
            p.click("#stock")
        elif t == "take_discard":
            p.click("#discard-top")
        elif t == "go_down":
            p.click("#go-down-accept")
        elif t == "discard":
            self.select(a["card"])
            p.click("#discard")
        elif t in ("lay_off", "swap_joker"):
            self.select(a["card"])
            p.click(f".meld[data-meld='{a['meld']}']")
            if p.locator("#choice").count():
                p.click(f"#choice button[data-act='{act_key(a)}']")
            elif p.locator("#staged-send").count():  # a meld's click waits for an undo
                p.click("#staged-send")
        elif t == "give":
            self.select(a["card"])
            p.click("button[data-action='give']")
        else:  # buy, pass, call, no_draw and anything else: the action's own button
            p.click(f"#prompt button[data-act='{act_key(a)}']")
        self.wait_version_after(before)


def stacked_pack(preset: str, overrides: dict[str, Any], hands: list[str], upcard: str,
                 stock_top: str = "") -> list[str]:
    """A table's ``deals`` entry: the pack dealing ``hands`` (seat 0 first, dealer seat 0),
    the ``upcard`` turned, ``stock_top`` on top of the stock, the rest in order."""
    rules = RuleSet.preset(preset, overrides)
    cards = [[parse_card(c) for c in h.split()] for h in hands]
    deck = stacked_deck(rules, len(hands), 0, cards, upcard=parse_card(upcard),
                        stock_top=[parse_card(c) for c in stock_top.split()],
                        contract_no=(rules.hands or (1,))[0])
    return [card_str(c) for c in deck]


def open_table_as_host(server: Server, host: Player, body: dict[str, Any]) -> str:
    """Create the table through the API (a seed or a stacked deck needs the API), give the
    host's browser its seat token exactly as the lobby page keeps it, and open the table.
    The share link (with a private table's join secret) is kept in ``host.share_link``."""
    res = server.api("POST", "/api/tables", body)
    table = str(res["table"]["id"])
    host.share_link = server.link(res["share_url"])
    host.page.goto(server.base + "/")
    host.page.evaluate(
        "([t, seat, token]) => localStorage.setItem('liverpool:' + t, "
        "JSON.stringify({seat, token}))", [table, res["seat"], res["token"]])
    host.page.goto(server.base + f"/t/{table}")
    host.page.wait_for_selector("#share-url")
    return table


def finished_game(server: Server, key: str | None = None) -> tuple[str, dict[str, Any]]:
    """A two-hand game of bots, played to the end (the host's seat is played by its turn
    timer), and its replay (``key``: the host seat is this player's)."""
    res = server.api("POST", "/api/tables", {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1, 2]}, "seed": 21,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                  {"kind": "bot", "level": "basic"}], "turn_timer": 0.01}, key=key)
    table = str(res["table"]["id"])
    server.api("POST", f"/api/tables/{table}/start", {"token": res["token"]})
    end = time.monotonic() + 90
    while server.api("GET", f"/api/tables/{table}")["status"] != "over":
        assert time.monotonic() < end, "the bots did not finish the game"
        time.sleep(0.2)
    return table, server.api("GET", f"/api/tables/{table}/replay")


def join_by_link(guest: Player, link: str) -> None:
    """Open a share link (a private table's carries "#join=SECRET") and join as guest.name."""
    guest.page.goto(link)
    guest.page.fill("#join-nickname", guest.name)
    guest.page.click("#join")
    guest.page.wait_for_selector("#seats")


def wait_any_turn(people: list[Player], timeout: float = 20.0) -> None:
    """Until one of ``people`` has a decision to make (or the game is over)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(p.legal() or p.phase() == "over" for p in people):
            return
        time.sleep(0.05)
    raise AssertionError(f"nobody got a decision within {timeout:.0f} s")


@pytest.fixture
def make_player(browser: Any, server: Server) -> Iterator[Any]:
    """make_player(name, viewport=None, guide=False, **context options): a new person with a
    browser context of their own (``guide``: new to the page, shown the first-game guide)."""
    made: list[Player] = []

    def make(name: str, viewport: dict[str, int] | None = None, guide: bool = False,
             **context: Any) -> Player:
        pl = Player(browser, server, name, viewport, guide, **context)
        made.append(pl)
        return pl

    yield make
    for pl in made:
        pl.close()
