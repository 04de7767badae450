"""Routes of a finished game's review: ``POST /api/tables/{table}/review`` starts or joins the
review of one seat, ``GET`` tells how it goes and, once done, gives it (docs/web-protocol.md).

Domain words: *review* (what the expert's search thinks of each decision of one seat,
``reviews.py`` makes it), *seat* (the reviewed one: any seat of a finished game, asked by anybody
who may see its replay), *new review* (one neither made nor being made: the only kind the
review limits count).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from .context import ServerContext, context_of
from .guard import client_of
from .limits import TABLE_ID, ApiError
from .routes_lobby import read_body
from .routes_tables import table_owner
from .table import TableOwner

router = APIRouter()


@router.post("/api/tables/{table_id}/review")
async def start_review(table_id: str, request: Request) -> JSONResponse:
    context = context_of(request)
    seat = _seat_of_body(await read_body(request, context.limits))
    owner = await _finished(context, table_id)
    record = owner.record()
    _check_seat(seat, len(record.get("players", ())))
    reviews = context.reviews
    key = reviews.key(table_id, seat)
    known = await reviews.known(key)
    if known is not None and known["status"] != "failed":
        return _answer(known)
    reviews.refuse_if_full()  # before the limits: a refusal for the server's sake costs nothing
    client = client_of(request.scope)
    player = await context.player_of(request, client)
    counted = [("review", client)] + ([] if player is None else [("review_player", player.id)])
    for what, who in counted:  # a refusal by one limit costs nothing of the other
        if await context.rates.exhausted(what, who):
            await context.rates.check(what, who)  # refused, with the wait
    for what, who in counted:
        await context.rates.check(what, who)
    return _answer(reviews.job_answer(reviews.start(key, record)))


@router.get("/api/tables/{table_id}/review")
async def get_review(table_id: str, request: Request) -> JSONResponse:
    context = context_of(request)
    seat = _seat_of_query(request.query_params.get("seat"))
    reviews = context.reviews
    if TABLE_ID.fullmatch(table_id):
        known = await reviews.known(reviews.key(table_id, seat))
        if known is not None:
            return _answer(known)
    owner = await _finished(context, table_id)  # says why there is none
    _check_seat(seat, len(owner.record().get("players", ())))
    raise ApiError(404, "no_review", "nobody asked for this seat's review yet: POST to this "
                                     "address to ask for it")


def _answer(known: dict[str, Any]) -> JSONResponse:
    return JSONResponse(known, status_code=200 if known["status"] in ("done", "failed") else 202)


async def _finished(context: ServerContext, table_id: str) -> TableOwner:
    """A finished table's owner, else 404 or 403."""
    owner = await table_owner(context, table_id)
    if owner.status != "over":
        raise ApiError(403, "not_over", "a game is reviewed once it is over")
    return owner


def _seat_of_body(body: dict[str, Any]) -> int:
    seat = body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ApiError(400, "bad_request", "seat: the number of the seat to review", "seat")
    return seat


def _seat_of_query(text: str | None) -> int:
    if text is None or not text.isdigit() or len(text) > 3:
        raise ApiError(400, "bad_request", "seat: the number of the seat to review "
                                           "(?seat=N)", "seat")
    return int(text)


def _check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise ApiError(400, "bad_request", f"seat: this game has seats 0 to {players - 1}",
                       "seat")
