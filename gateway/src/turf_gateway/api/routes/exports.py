"""The organizer's desk reads (issue 20): the claim log (``GET /admin/claims``: the dashboard's claims today, the
claim picker) and CSV exports of players, claims and results (``GET /admin/export/{table}.csv``), for the league's
spreadsheets. Organizer only; times in the season's zone, as on every other route."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Iterable
from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field

from turf_common.contracts import subjects
from turf_common.contracts.claims import CLAIMS_PAGE, ClaimRecord, ClaimsListReply, ClaimsListRequest
from turf_gateway.api.deps import Organizer, State
from turf_gateway.api.routes.admin import list_players
from turf_gateway.api.routes.public import leaderboard_body
from turf_gateway.errors import ApiError

router = APIRouter(prefix="/admin", tags=["organizer"])


class LoggedClaim(BaseModel):
    id: str
    at: str
    game_day: date
    player_id: str
    display_name: str
    territory_id: str
    territory_name: str
    kind: str = Field(description="take, steal, reinforce or war_reclaim")
    normal: bool = Field(description="false for an R17 extra or R19 replacement claim")
    previous_owner_id: str | None
    undone_by: str | None = Field(description="war, mulligan or correction when reversed (R14, R19, R28)")
    flags: list[str]


class ClaimLog(BaseModel):
    claims: list[LoggedClaim]
    truncated: bool = Field(description="true when more claims matched than the limit")


async def claim_pages(state: Any, day: date | None, player_id: str | None,
                      want: int | None = None) -> AsyncIterator[list[ClaimRecord]]:
    """The claim log (of ``day``, of ``player_id``) as claims answers it, a page at a time, oldest first (issue 29:
    the whole log in one reply outgrew the bus's payload limit), until its last page or until ``want`` claims
    were read."""
    after, got = None, 0
    while True:
        size = CLAIMS_PAGE if want is None else min(CLAIMS_PAGE, want - got)
        rep = await state.services.ask(subjects.CLAIMS_LIST, ClaimsListRequest(
            game_day=day, player_id=player_id, after=after, limit=size), ClaimsListReply, timeout=30)
        yield rep.claims
        got += len(rep.claims)
        if rep.next is None or (want is not None and got >= want):
            return
        after = rep.next


async def named_claims(state: Any, claims: list[ClaimRecord]) -> list[LoggedClaim]:
    """Claims as the organizer reads them: the player's display name, the town's name, times in the season's zone."""
    names = await state.player_store.display_names(list({c.player_id for c in claims}))
    board = state.board.territories
    return [LoggedClaim(
        id=c.id, at=c.at.astimezone(state.season.tz).isoformat(), game_day=c.game_day, player_id=c.player_id,
        display_name=names.get(c.player_id, ""), territory_id=c.territory_id,
        territory_name=board[c.territory_id].name if c.territory_id in board else c.territory_id, kind=c.kind,
        normal=c.normal, previous_owner_id=c.previous_owner_id, undone_by=c.undone_by, flags=c.flags)
        for c in claims]


async def claim_log(state: Any, day: date | None, player_id: str | None, limit: int) -> ClaimLog:
    """The first ``limit`` claims, ``truncated`` when more matched (one claim more is read to know it)."""
    claims: list[ClaimRecord] = []
    async for page in claim_pages(state, day, player_id, limit + 1):
        claims += page
    return ClaimLog(truncated=len(claims) > limit, claims=await named_claims(state, claims[:limit]))


@router.get("/claims", response_model=ClaimLog)
async def claims(org: Organizer, state: State, day: Annotated[date | None, Query(description="a game date")] = None,
                 player_id: Annotated[str | None, Query(max_length=64)] = None,
                 limit: Annotated[int, Query(ge=1, le=10_000)] = 2000) -> ClaimLog:
    """The claim log, oldest first: every claim of ``day`` (a game date, e.g. 2026-10-05) and/or of
    ``player_id``, with names; ``truncated`` when more than ``limit`` matched."""
    return await claim_log(state, day, player_id, limit)


def _csv(rows: Iterable[dict[str, Any]], columns: list[str], filename: str) -> Response:
    return Response(_csv_text(rows, columns, header=True), media_type=CSV, headers=_csv_headers(filename))


def _csv_text(rows: Iterable[dict[str, Any]], columns: list[str], header: bool = False) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\r\n")
    if header:
        w.writeheader()
    for row in rows:
        w.writerow({k: _cell(row.get(k)) for k in columns})
    return buf.getvalue()


CSV = "text/csv; charset=utf-8"


def _csv_headers(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"}


async def _claims_csv(state: Any) -> Response:
    """``claims.csv``, the whole log, streamed a page of claims at a time (issue 29: neither one reply of the bus
    nor the gateway's memory holds it all). The first page is read before the answer starts, so a claims service
    that does not answer is a 503; one that stops answering later cuts the body off mid-transfer (the client sees
    an incomplete download, never a short file that looks whole)."""
    pages = claim_pages(state, None, None)
    first = await anext(pages)

    async def body() -> AsyncIterator[str]:
        yield _csv_text((c.model_dump(mode="json") for c in await named_claims(state, first)), CLAIM_COLUMNS,
                        header=True)
        async for page in pages:
            yield _csv_text((c.model_dump(mode="json") for c in await named_claims(state, page)), CLAIM_COLUMNS)

    return StreamingResponse(body(), media_type=CSV, headers=_csv_headers("claims.csv"))


def _cell(v: Any) -> Any:
    if isinstance(v, list):
        return " ".join(map(str, v))
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@"):
        return "'" + v   # a spreadsheet would run a cell starting so as a formula (CSV injection by a player's name)
    return "" if v is None else v


PLAYER_COLUMNS = ["id", "name", "display_name", "email", "discord", "home_address", "status", "status_reason",
                  "created_at", "same_address_as"]
CLAIM_COLUMNS = ["id", "at", "game_day", "player_id", "display_name", "territory_id", "territory_name", "kind",
                 "normal", "previous_owner_id", "undone_by", "flags"]
RESULT_COLUMNS = ["place", "player_id", "display_name", "base", "outposts", "bonuses", "total", "prize", "final"]


@router.get("/export/{table}.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}, "description": "A CSV file with a header row"}})
async def export(table: Literal["players", "claims", "results"], org: Organizer, state: State) -> Response:
    """``players.csv`` (private fields: keep it private), ``claims.csv`` (the whole log) or ``results.csv`` (the
    final standings with prizes once the season is closed, the current standings before, ``final`` saying which)."""
    if table == "players":
        return _csv((await list_players(org, state)).model_dump(mode="json")["players"], PLAYER_COLUMNS, "players.csv")
    if table == "claims":
        return await _claims_csv(state)
    return _csv(await _results_rows(state), RESULT_COLUMNS, "results.csv")


async def _results_rows(state: Any) -> list[dict[str, Any]]:
    from turf_gateway.api.routes.public import results

    try:
        final = await results(state)
    except ApiError as e:
        if e.reason != "season_not_closed":
            raise
        lb = await leaderboard_body(state)
        return [{"place": s["rank"], **s, "prize": None, "final": False} for s in lb["standings"]]
    outposts = {s["player_id"]: s["outposts"] for s in (await leaderboard_body(state))["standings"]}
    return [{**s, "outposts": outposts.get(s["player_id"]), "final": True}
            for s in final.model_dump(mode="json")["standings"]]

