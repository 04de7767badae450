"""The replay page shows the steps the server built with the engine (``GET
/api/tables/{table}/replay``): the deal of each hand, each action, every hand face up, the hand
ends and the score sheet; it steps forwards, back and by hand.

Domain words: step, deal, hand end, score sheet.
"""

from __future__ import annotations

from typing import Any

from .cardtext import entry_text
from .conftest import Server, finished_game

HAND_CARDS = ("els => els.map(h => [...h.querySelectorAll('.card')]"
              ".map(c => c.dataset.card))")


def test_replay_steps_through_the_servers_steps(server: Server, make_player: Any) -> None:
    table, replay = finished_game(server)
    steps = replay["steps"]
    ann = make_player("Ann")
    page = ann.page
    page.goto(server.base + f"/replay/{table}")
    page.wait_for_selector("#replay-slider")

    def shown() -> dict[str, Any]:
        return {"text": page.inner_text("#replay-step"),
                "kind": page.get_attribute("#replay-step", "data-kind"),
                "hands": page.eval_on_selector_all(".replay-hand", HAND_CARDS),
                "melds": page.locator("#replay-melds .meld").count(),
                "pos": page.inner_text("#replay-pos")}

    def at(i: int) -> None:
        got = shown()
        s = steps[i]
        # the step's words are its events, each drawn from its own fields
        said = [e for e in s["events"] if e["text"]]
        line = f"Hand {s['hand']}: " + ". ".join(entry_text(e) for e in said)
        assert got == {"text": line, "kind": s["kind"],
                       "hands": s["hands"], "melds": len(s["melds"]),
                       "pos": f"{i} / {len(steps) - 1}"}, i
        types = page.eval_on_selector_all("#replay-step .entry",
                                          "es => es.map(e => e.dataset.type)")
        assert types == [e["type"] for e in said], i

    at(0)
    assert steps[0]["kind"] == "deal"
    page.click("#replay-next")
    at(1)
    page.click("#replay-next")
    page.click("#replay-prev")
    at(1)
    # by hand: the second deal, back to the first, then to the end
    second = next(i for i, s in enumerate(steps) if i and s["kind"] == "deal")
    page.click("#replay-next-hand")
    at(second)
    page.click("#replay-next")
    page.click("#replay-prev-hand")
    at(second)
    page.click("#replay-prev-hand")
    at(0)
    page.keyboard.press("PageDown")
    at(second)
    # the step that ended the first hand shows the hands as they were scored
    page.click("#replay-prev")
    at(second - 1)
    assert steps[second - 1]["kind"] == "hand_end"
    assert page.locator(".points").count() == len(replay["players"])
    page.click("#replay-last")
    at(len(steps) - 1)
    assert "Game over" in page.inner_text("#replay-step")
    assert page.locator("#replay-melds .meld").count() > 0
    # the score sheet is the game's
    rows = page.eval_on_selector_all(
        "#replay-scores tbody tr", "rows => rows.map(r => [...r.cells].slice(1)"
        ".map(c => Number(c.textContent)))")
    assert rows == replay["scores"]
    # the list of every step jumps to the one clicked
    page.locator(".replay-actions li").nth(5).click()
    at(5)
    page.keyboard.press("ArrowRight")
    at(6)
    assert not ann.errors
