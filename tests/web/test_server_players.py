"""Players who come back, over the HTTP API: a player made without a password and known by
their key, a finished game remembered once with its standings, ratings and statistics, the
player page's privacy, the leaderboard, recovery codes, forgetting, rematch, and leaving a game.

Domain words: key (a device's secret, ``Authorization: Bearer KEY``), standings (a finished
table's rows: place, points, rating change), rematch (the same rules and seats again).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from liverpool.ratings import BOT_RATINGS, Entry, Rating, rate
from liverpool.standings import standings_of_record
from liverpool.web.limits import ApiError

from .conftest import Served, serve


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def new_player(srv: Served, name: str) -> dict[str, Any]:
    r = await srv.http.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    assert set(out) == {"id", "key", "name"} and out["name"] == name
    return out


async def wait_over(srv: Served, tid: str) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    end = loop.time() + 300
    while True:
        summary: dict[str, Any] = (await srv.http.get(f"/api/tables/{tid}")).json()
        if summary["status"] == "over":
            return summary
        assert loop.time() < end, "the game did not end"
        await asyncio.sleep(0.05)


async def played_game(srv: Served, key: str | None, seed: int = 5, players: int = 3,
                      level: str = "basic", preset: str = "standard") -> tuple[str, dict[str, Any],
                                                                             dict[str, Any]]:
    """A two-hand game: the player's seat is played by its turn timer, bots in the others."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": level}] * (players - 1)
    headers = auth(key) if key else {}
    r = await srv.http.post("/api/tables", headers=headers, json={
        "seats": seats, "rules": preset, "overrides": {"hands": [1, 2]}, "seed": seed,
        "turn_timer": 0.01, **({} if key else {"nickname": "Guest"})})
    assert r.status_code == 201, r.text
    t = r.json()
    tid = t["table"]["id"]
    assert (await srv.http.post(f"/api/tables/{tid}/start",
                                json={"token": t["token"]})).status_code == 200
    summary = await wait_over(srv, tid)
    rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
    return tid, summary, rec


@pytest.mark.asyncio
async def test_a_finished_game_is_remembered_once_with_the_models_own_rating(
        db_url: str) -> None:
    async with serve(db_url, grace=60) as srv:
        ann = await new_player(srv, "Ann")
        tid, summary, rec = await played_game(srv, ann["key"])
        assert summary["seats"][0]["player"] == ann["id"] and summary["seats"][0]["name"] == "Ann"
        # the standings are the record's, replayed
        _, standings = standings_of_record(rec)
        rows = summary["standings"]
        assert [(r["place"], r["points"]) for r in rows] == [(s.place, s.points)
                                                             for s in standings]
        # the rating is the model's: a newcomer against two basic bots of fixed rating
        basic = BOT_RATINGS["level:5"]
        want = rate([Entry(Rating(), standings[0].place),
                     Entry(basic, standings[1].place, True),
                     Entry(basic, standings[2].place, True)])
        mine = rows[0]["rating"]
        assert mine["before"]["mu"] == pytest.approx(1500.0)
        assert mine["after"]["mu"] == pytest.approx(want[0].mu, abs=1e-3)
        assert mine["after"]["sigma"] == pytest.approx(want[0].sigma, abs=1e-3)
        assert mine["change"] == want[0].shown - 1500
        assert rows[1]["rating"]["after"]["mu"] == basic.mu and rows[1]["rating"]["change"] == 0
        # recorded once: asking the table to record again changes nothing
        owner = srv.app.state.registry.owners[tid]
        assert await owner.core.record_results()
        me = (await srv.http.get("/api/players/me", headers=auth(ann["key"]))).json()
        assert me["games"] == 1 and me["me"] is True
        assert me["rating"]["mu"] == pytest.approx(want[0].mu, abs=1e-3)
        stats = me["stats"]["standard"]
        assert stats["games"] == 1 and stats["hands"] == 2
        assert stats["wins"] == (1 if standings[0].place == 1 else 0)
        assert [c["hands"] for c in stats["contracts"]] == [1, 1]
        assert len(me["rating_history"]) == 1
        page = (await srv.http.get(f"/api/players/{ann['id']}/games",
                                   headers=auth(ann["key"]))).json()
        assert page["total"] == 1 and page["games"][0]["table"] == tid
        assert page["games"][0]["place"] == standings[0].place
        assert [s["name"] for s in page["games"][0]["seats"]] == rec["players"]


@pytest.mark.asyncio
async def test_the_key_never_rides_in_a_url_and_a_bad_key_changes_nothing(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        r = await srv.http.post("/api/tables", headers=auth("not-a-key"),
                                json={"nickname": "Ann", "seats": [{"kind": "human"}] * 2})
        assert r.status_code == 401 and r.json()["error"] == "bad_key"
        assert not srv.app.state.registry.owners
        r = await srv.http.get("/api/players/me", headers={"Authorization": "Basic abc"})
        assert r.status_code == 401
        r = await srv.http.get("/api/players/me")
        assert r.status_code == 401 and r.json()["error"] == "no_key"


@pytest.mark.asyncio
async def test_a_page_shows_only_what_its_player_chose(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        ann = await new_player(srv, "Ann")
        await played_game(srv, ann["key"])
        seen = (await srv.http.get(f"/api/players/{ann['id']}")).json()
        assert seen["name"] == "Ann" and seen["rating"] is None and seen["stats"] is None
        assert seen["games"] is None and seen["rating_history"] is None
        r = await srv.http.get(f"/api/players/{ann['id']}/games")
        assert r.status_code == 403 and r.json()["error"] == "private"
        board = (await srv.http.get("/api/ratings")).json()
        assert board["players"] == [] and board["total"] == 0
        assert {b["level"] for b in board["bots"]} == set(BOT_RATINGS)
        # listed: on the leaderboard with the rating, the games still private
        r = await srv.http.patch("/api/players/me", headers=auth(ann["key"]),
                                 json={"listed": True})
        assert r.status_code == 200 and r.json()["listed"] is True
        board = (await srv.http.get("/api/ratings")).json()
        assert [p["id"] for p in board["players"]] == [ann["id"]]
        assert board["players"][0]["games"] == 1
        assert (await srv.http.get("/api/ratings?preset=arena")).json()["players"] == []
        seen = (await srv.http.get(f"/api/players/{ann['id']}")).json()
        assert seen["rating"] is not None and seen["stats"] is None
        # public: the games and the statistics
        await srv.http.patch("/api/players/me", headers=auth(ann["key"]),
                             json={"public": True})
        seen = (await srv.http.get(f"/api/players/{ann['id']}")).json()
        assert seen["stats"]["standard"]["games"] == 1
        assert (await srv.http.get(f"/api/players/{ann['id']}/games")).json()["total"] == 1
        for bad in ({"listed": "yes"}, {"admin": True}, {"name": "\u202eevil"}):
            r = await srv.http.patch("/api/players/me", headers=auth(ann["key"]), json=bad)
            assert r.status_code == 400, bad


@pytest.mark.asyncio
async def test_a_recovery_code_gives_another_device_its_own_key(sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        ann = await new_player(srv, "Ann")
        code = (await srv.http.post("/api/players/me/recovery", json={},
                                    headers=auth(ann["key"]))).json()["code"]
        assert len(code.replace("-", "")) == 28
        typed = code.lower().replace("-", " ")  # as a person may type it
        other = (await srv.http.post("/api/players/recover", json={"code": typed})).json()
        assert other["id"] == ann["id"] and other["key"] != ann["key"]
        for key in (ann["key"], other["key"]):  # both devices are the player
            me = (await srv.http.get("/api/players/me", headers=auth(key))).json()
            assert me["id"] == ann["id"]
        r = await srv.http.post("/api/players/recover", json={"code": "0000-" * 6 + "0000"})
        assert r.status_code == 403
        # a new code replaces the old one
        await srv.http.post("/api/players/me/recovery", json={}, headers=auth(ann["key"]))
        r = await srv.http.post("/api/players/recover", json={"code": code})
        assert r.status_code == 403


@pytest.mark.asyncio
async def test_a_forgotten_player_leaves_their_games_to_a_former_player(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        ann = await new_player(srv, "Ann")
        bea = await new_player(srv, "Bea")
        await srv.http.patch("/api/players/me", headers=auth(bea["key"]), json={"public": True})
        # Ann and Bea at one table: Ann hosts, Bea joins with her key
        r = await srv.http.post("/api/tables", headers=auth(ann["key"]), json={
            "seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "level": "random"}],
            "overrides": {"hands": [1]}, "seed": 3, "turn_timer": 0.01, "public": True})
        t = r.json()
        tid = t["table"]["id"]
        j = await srv.http.post(f"/api/tables/{tid}/join", headers=auth(bea["key"]), json={})
        assert j.status_code == 200, j.text
        again = await srv.http.post(f"/api/tables/{tid}/join", headers=auth(bea["key"]),
                                    json={})
        assert again.status_code == 409 and again.json()["error"] == "seated"
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        await wait_over(srv, tid)
        r = await srv.http.request("DELETE", "/api/players/me", headers=auth(ann["key"]),
                                   json={})
        assert r.json() == {"forgotten": True}
        assert (await srv.http.get("/api/players/me", headers=auth(ann["key"]))).status_code \
            == 401
        gone = (await srv.http.get(f"/api/players/{ann['id']}")).json()
        assert gone["name"] == "a former player" and gone["rating"] is None
        assert gone["forgotten"] is True
        page = (await srv.http.get(f"/api/players/{bea['id']}/games")).json()
        names = [s["name"] for s in page["games"][0]["seats"]]
        assert names[0] == "a former player" and names[1] == "Bea"
        assert page["games"][0]["seats"][0]["player"] is None
        # the table, read again from the store, shows her seat under that name too
        registry = srv.app.state.registry
        await registry.owners.pop(tid).stop()
        rec = (await srv.http.get(f"/api/tables/{tid}/record")).json()
        assert rec["players"][:2] == ["a former player", "Bea"]
        summary = (await srv.http.get(f"/api/tables/{tid}")).json()
        assert summary["seats"][0]["name"] == "a former player"
        assert summary["standings"][0]["name"] == "a former player"


@pytest.mark.asyncio
async def test_many_players_from_one_address_are_refused(sqlite_url: str) -> None:
    import dataclasses

    from liverpool.web.limits import Limits

    from .conftest import RELAXED
    limits = dataclasses.replace(RELAXED, player_rate="3/hour", players_per_client=100)
    async with serve(sqlite_url, limits=limits) as srv:
        for i in range(3):
            await new_player(srv, f"P{i}")
        r = await srv.http.post("/api/players", json={"name": "P4"})
        assert r.status_code == 429
    limits = dataclasses.replace(RELAXED, players_per_client=2)
    async with serve(sqlite_url, limits=limits) as srv:  # counted in the database: a restart
        r = await srv.http.post("/api/players", json={"name": "P5"})
        assert r.status_code == 429 and "a day from one address" in r.json()["message"]
    # many addresses of one network (a /24) count together
    limits = dataclasses.replace(RELAXED, players_per_network=2)
    async with serve(sqlite_url, limits=limits) as srv:
        people = srv.app.state.context.settings.people
        for i in range(2):
            await people.create(f"Q{i}", f"10.1.2.{i + 1}")
        with pytest.raises(ApiError) as refused:
            await people.create("Q9", "10.1.2.200")
        assert refused.value.status == 429 and "network" in refused.value.message
        await people.create("R1", "10.1.3.1")  # another network
    assert Limits().players_per_client > 0


@pytest.mark.asyncio
async def test_unknown_keys_are_limited_per_address(sqlite_url: str) -> None:
    import dataclasses

    from .conftest import RELAXED
    async with serve(sqlite_url, limits=dataclasses.replace(RELAXED, bad_key_rate="3/hour")
                     ) as srv:
        ann = await new_player(srv, "Ann")
        for i in range(3):
            r = await srv.http.get("/api/players/me", headers=auth(f"guess{i}"))
            assert r.status_code == 401
        r = await srv.http.get("/api/players/me", headers=auth("guess9"))
        assert r.status_code == 429
        # even the right key waits: guesses cannot be told from a real key by their answers
        r = await srv.http.get("/api/players/me", headers=auth(ann["key"]))
        assert r.status_code == 429


@pytest.mark.asyncio
async def test_rematch_seats_the_people_again_and_the_old_table_leads_there(
        db_url: str) -> None:
    async with serve(db_url, grace=60) as srv:
        ann = await new_player(srv, "Ann")
        r = await srv.http.post("/api/tables", headers=auth(ann["key"]), json={
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}, {"kind": "human"}],
            "overrides": {"hands": [1]}, "seed": 4, "turn_timer": 0.01})
        t = r.json()
        tid = t["table"]["id"]
        srv.secrets[tid] = t["join_secret"]
        bea = (await srv.join(tid, "Bea")).json()  # a guest
        r = await srv.http.post(f"/api/tables/{tid}/rematch", json={"token": t["token"]})
        assert r.status_code == 409 and r.json()["error"] == "not_over"
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        await wait_over(srv, tid)
        # Bea asks first: she hosts the rematch (seat 0); the seats keep their order
        r = await srv.http.post(f"/api/tables/{tid}/rematch", json={"token": bea["token"]})
        assert r.status_code == 200, r.text
        made = r.json()
        new = made["table"]
        assert made["seat"] == 0 and new["status"] == "open" and new["rematch_of"] == tid
        assert [s["kind"] for s in new["seats"]] == ["human", "human", "bot"]
        assert new["seats"][0]["name"] == "Bea" and new["rules"] == "standard"
        assert new["public"] is False
        assert (await srv.http.get(f"/api/tables/{tid}")).json()["rematch"] == new["id"]
        # Ann (by her key alone) is seated in the seat kept for her: after Bea, as before
        r = await srv.http.post(f"/api/tables/{tid}/rematch", headers=auth(ann["key"]),
                                json={})
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == 1 and r.json()["table"]["id"] == new["id"]
        seats = (await srv.http.get(f"/api/tables/{new['id']}")).json()["seats"]
        assert seats[1]["name"] == "Ann" and seats[1]["player"] == ann["id"]
        # somebody who was not at the table gets nothing
        r = await srv.http.post(f"/api/tables/{tid}/rematch", json={"token": "x" * 30})
        assert r.status_code == 403
        # a second ask of Ann's is refused: she is seated
        r = await srv.http.post(f"/api/tables/{tid}/rematch", headers=auth(ann["key"]),
                                json={})
        assert r.status_code == 409
        # the rematch starts as any table does, bots in the seats nobody took
        r = await srv.http.post(f"/api/tables/{new['id']}/start", json={"token": made["token"]})
        assert r.status_code == 200


@pytest.mark.asyncio
async def test_a_player_who_leaves_is_placed_last(sqlite_url: str) -> None:
    async with serve(sqlite_url, grace=60) as srv:
        ann = await new_player(srv, "Ann")
        r = await srv.http.post("/api/tables", headers=auth(ann["key"]), json={
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"},
                      {"kind": "bot", "level": "random"}],
            "overrides": {"hands": [1, 2]}, "seed": 8})
        t = r.json()
        tid = t["table"]["id"]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        c = await srv.client(tid, None, hello=False)
        await c.send({"type": "hello", "token": None, "player_key": ann["key"], "version": -1})
        welcome = await c.until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] == 0  # found by the key alone
        await c.send({"type": "leave"})
        await c.until(lambda m: m["type"] == "lobby" and m["table"]["seats"][0]["left"])
        await c.close()
        # for good: neither the seat's token nor the player's key gives the seat back
        for hello in ({"token": t["token"]}, {"token": None, "player_key": ann["key"]}):
            again = await srv.client(tid, None, hello=False)
            await again.send({"type": "hello", "version": -1, **hello})
            welcome = await again.until(lambda m: m["type"] == "welcome")
            assert welcome["seat"] is None and welcome["table"]["seats"][0]["covered"]
            await again.close()
        summary = await wait_over(srv, tid)
        row = summary["standings"][0]
        assert row["left"] is True and row["place"] == 3
        assert row["rating"]["change"] < 0


@pytest.mark.asyncio
async def test_a_socket_gone_while_its_key_is_looked_up_holds_no_seat(
        sqlite_url: str) -> None:
    async with serve(sqlite_url, grace=0.3) as srv:
        ann = await new_player(srv, "Ann")
        r = await srv.http.post("/api/tables", headers=auth(ann["key"]), json={
            "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 2})
        t = r.json()
        tid = t["table"]["id"]
        await srv.http.post(f"/api/tables/{tid}/start", json={"token": t["token"]})
        people = srv.app.state.context.settings.people
        looked_up = people.of_hello

        async def slow(key: str) -> Any:
            await asyncio.sleep(0.5)  # the socket closes meanwhile
            return await looked_up(key)
        people.of_hello = slow
        c = await srv.client(tid, None, hello=False)
        await c.send({"type": "hello", "token": None, "player_key": ann["key"], "version": -1})
        await c.close()
        await asyncio.sleep(1.2)
        seat = (await srv.http.get(f"/api/tables/{tid}")).json()["seats"][0]
        # nobody holds the seat: its grace ran out and a bot covers it
        assert seat["connected"] is False and seat["covered"] is True


@pytest.mark.asyncio
async def test_what_an_attacker_sends_to_the_players_routes_is_refused_cleanly(
        sqlite_url: str) -> None:
    async with serve(sqlite_url) as srv:
        ann = await new_player(srv, "Ann")
        h = auth(ann["key"])
        cases: list[tuple[str, str, Any, dict[str, str], int]] = [
            ("POST", "/api/players", {"name": "Bot 3"}, {}, 400),
            ("POST", "/api/players", {"name": "x" * 500}, {}, 400),
            ("POST", "/api/players", {"name": ["Ann"]}, {}, 400),
            ("POST", "/api/players", {}, {}, 400),
            ("PATCH", "/api/players/me", {"name": "Bot 3"}, h, 400),
            ("PATCH", "/api/players/me", {"public": 1}, h, 400),
            ("POST", "/api/players/recover", {"code": 12}, {}, 400),
            ("POST", "/api/players/recover", {"code": "x" * 10_000}, {}, 400),
            ("GET", "/api/players/" + "a" * 5000, None, {}, 404),
            ("GET", f"/api/players/{ann['id']}/games?offset={10**30}", None, h, 200),
            ("GET", f"/api/players/{ann['id']}/games?limit=-5", None, h, 200),
            ("GET", "/api/ratings?offset=99999999999999999999999", None, {}, 200),
            ("GET", "/api/ratings?preset=nope", None, {}, 400),
            ("GET", "/api/players/me", None, {"Authorization": "Bearer " + "k" * 5000}, 401),
            ("POST", "/api/tables/nope/rematch", {}, {}, 404),
        ]
        for method, path, body, headers, status in cases:
            r = await srv.http.request(method, path, json=body, headers=headers)
            assert r.status_code == status, (method, path[:60], r.text)
            assert r.headers["content-type"].startswith("application/json")
        # nothing changed: one player, named Ann
        me = (await srv.http.get("/api/players/me", headers=h)).json()
        assert me["name"] == "Ann" and me["public"] is False
