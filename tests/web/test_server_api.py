"""The HTTP side: pages, configuration, the lobby's checks, and external bots the host
configured."""

from __future__ import annotations

import sys
from pathlib import Path

from liverpool.rules import PRESET_NAMES
from liverpool.web.routes_pages import STATIC

from .conftest import play_turns, serve

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "example_bot.py"


async def test_pages_and_config(sqlite_url: str) -> None:
    async with serve(sqlite_url, bot_commands={"mine": f"{sys.executable} {EXAMPLE_BOT}"}) \
            as srv:
        index = (STATIC / "index.html").read_bytes() if (STATIC / "index.html").is_file() \
            else None
        for path in ("/", "/t/abc", "/replay/abc"):
            r = await srv.http.get(path)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            if index is not None:
                assert r.content == index
        for asset in sorted(STATIC.glob("*.js"))[:2]:
            r = await srv.http.get(f"/static/{asset.name}")
            assert r.status_code == 200 and r.content == asset.read_bytes()
        cfg = (await srv.http.get("/api/config")).json()
        assert sorted(cfg["presets"]) == sorted(PRESET_NAMES)
        assert cfg["presets"]["standard"]["going_out"] == "float"
        assert cfg["levels"] == [f"level:{n}" for n in range(1, 9)] + ["mine"]
        # the ladder in words, the first names kept as aliases of levels 1, 5 and 7
        assert [(r["level"], r["alias"]) for r in cfg["ladder"] if r["alias"]] == \
            [("level:1", "random"), ("level:5", "basic"), ("level:7", "expert")]
        assert all(r["title"] and r["about"] for r in cfg["ladder"])
        # every knob has a control by type for the form, never a JSON text; the lists are held
        # to this server's bounds
        controls = {k["knob"]: k["control"] for k in cfg["knobs"]}
        assert controls["contracts"]["type"] == "rows" and controls["contracts"]["max_items"] == 12
        assert [f["max"] for f in controls["contracts"]["fields"][:2]] == [3, 3]
        assert controls["decks"]["fields"][1]["max"] == 4
        assert controls["card_points"]["type"] == "fields"
        assert controls["going_out"]["options"][0] == {"value": "discard",
                                                       "text": "By throwing away your last card"}
        # the two May I? clocks are named apart, each with a line of help
        clocks = cfg["clocks"]
        assert clocks["buy_timer"]["label"] != clocks["buy_window"]["label"]
        assert all(c["help"] for c in clocks.values())


async def test_lobby_checks_what_it_is_given(sqlite_url: str) -> None:
    async with serve(sqlite_url, allow_seed=False) as srv:
        bad = [
            ({"seats": [{"kind": "human"}] * 3}, "bad_request"),  # no nickname
            ({"nickname": "A", "seats": [{"kind": "bot", "level": "basic"}] * 3},
             "bad_request"),  # seat 0 is the host's
            ({"nickname": "A", "seats": [{"kind": "human"}] * 2}, "bad_rules"),  # standard: 3+
            ({"nickname": "A", "seats": [{"kind": "human"}] * 3, "rules": "poker"},
             "bad_rules"),
            ({"nickname": "A", "seats": [{"kind": "human"}] * 3, "overrides": {"nope": 1}},
             "bad_rules"),
            ({"nickname": "A", "seats": [{"kind": "human"}, {"kind": "bot", "level": "wizard"},
                                         {"kind": "human"}]}, "bad_request"),
            ({"nickname": "A", "seats": [{"kind": "human"}, {"kind": "bot",
                                                            "level": "cmd:rm -rf /"},
                                         {"kind": "human"}]}, "bad_request"),
            # a level off the ladder, or not written exactly as the server offers it
            *[({"nickname": "A", "seats": [{"kind": "human"}, {"kind": "bot", "level": lv},
                                           {"kind": "human"}]}, "bad_request")
              for lv in ("level:9", "level:0", "Level:3", " level:3", "level:3:4it", "basic:2it")],
            ({"nickname": "A", "seats": [{"kind": "human"}] * 3, "turn_timer": -1},
             "bad_request"),
            ({"nickname": "A", "seats": [{"kind": "human"}] * 3, "seed": 7}, "bad_request"),
        ]
        for body, code in bad:
            r = await srv.http.post("/api/tables", json=body)
            assert r.status_code == 400 and r.json()["error"] == code, (body, r.text)
            assert r.json()["message"]
        assert (await srv.http.get("/api/tables")).json()["tables"] == []


async def test_a_refused_rule_option_is_named_for_the_form_and_in_words(sqlite_url: str) -> None:
    async with serve(sqlite_url, allow_seed=False) as srv:
        seats = [{"kind": "human"}] * 3
        cases = [({"max_buys": -1}, "max_buys", "Buys per hand (empty: no limit): must be 0"),
                 ({"swap_at_go_down": 1, "joker_swap": "none"}, "swap_at_go_down",
                  "Swaps allowed just before going down: needs \u201cJokers may be swapped out "
                  "of\u201d"),
                 ({"contracts": [{"sets": 0, "runs": 0}] + [{"sets": 2, "runs": 0}] * 6},
                  "contracts",
                  "The contracts, hand by hand: contract 1 must ask for at least one meld"),
                 ({"decks": 6}, "decks", "Decks (by number of players): on this server 1 to 4")]
        for overrides, knob, words in cases:
            r = await srv.http.post("/api/tables", json={"nickname": "A", "seats": seats,
                                                         "overrides": overrides})
            body = r.json()
            assert r.status_code == 400 and body["error"] == "bad_rules", body
            assert body["knob"] == knob and body["field"] == f"overrides.{knob}"
            assert body["message"].startswith(words), body
            assert "_" not in body["message"], body
        # a clock is refused under its lobby label
        r = await srv.http.post("/api/tables", json={"nickname": "A", "seats": seats,
                                                     "buy_timer": -1})
        assert r.json()["message"].startswith("May I? time limit: ") and "knob" not in r.json()
        t = await srv.create([{"kind": "human"}, {"kind": "human"},
                              {"kind": "bot", "level": "expert:20it"}],
                             overrides={"max_buys": 2}, buy_timer=5, public=True)
        summary = t["table"]
        assert summary["overrides"] == {"max_buys": 2} and summary["buy_timer"] == 5.0
        assert t["share_url"].endswith(f"/t/{summary['id']}") and len(t["token"]) >= 22
        r = await srv.join(summary["id"], "Ann")
        assert r.json()["seat"] == 1
        listed = (await srv.http.get("/api/tables")).json()["tables"]
        assert [x["id"] for x in listed] == [summary["id"]]
        assert listed[0]["seats"][1]["name"] == "Ann (2)"  # the host is Ann too


async def test_a_configured_external_bot_plays_its_seat(sqlite_url: str) -> None:
    async with serve(sqlite_url, bot_commands={"example": f"{sys.executable} {EXAMPLE_BOT}"}) \
            as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "example"},
                              {"kind": "bot", "level": "basic"}], overrides={"hands": [1]})
        tid = t["table"]["id"]
        ann = await srv.client(tid, t["token"])
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        final = await play_turns(ann, lambda m: False, timeout=120)
        assert final["view"]["phase"] == "over"
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        assert any(a["player"] == 1 and a["type"] == "discard" for a in rec["actions"])
        await ann.close()


async def test_every_level_of_the_ladder_takes_a_seat(sqlite_url: str) -> None:
    from liverpool.bots import LEVELS, SlipBot
    from liverpool.web.botpool import is_light
    from liverpool.web.limits import Limits, builtin_bot
    limits = Limits()
    for level in (*LEVELS, "random", "basic", "expert"):
        bot = builtin_bot(level, limits)
        assert bot is not None and bot.name == level
    # a careless level is as light as the basic bot it wraps; the searching levels are not
    assert isinstance(builtin_bot("level:2", limits), SlipBot)
    assert [is_light(builtin_bot(lv, limits)) for lv in LEVELS] == [True] * 5 + [False] * 3
    assert builtin_bot("level:9", limits) is None and builtin_bot("Level:3", limits) is None
    async with serve(sqlite_url) as srv:
        t = await srv.create([{"kind": "human"}, {"kind": "bot", "level": "level:2"},
                              {"kind": "bot", "level": "level:8"}])
        levels = [s.get("level") for s in t["table"]["seats"]]
        assert levels[1:] == ["level:2", "level:8"]
        bots = (await srv.http.get("/api/ratings")).json()["bots"]
        assert {b["alias"] for b in bots} >= {"random", "basic", "expert"}
        assert all(b["title"] for b in bots)
