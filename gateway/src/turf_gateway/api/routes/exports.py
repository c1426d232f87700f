"""The organizer's desk reads: the claim log (``GET /admin/claims``: the dashboard's claims today, the
claim picker) and CSV exports of players, claims and results (``GET /admin/export/{table}.csv``), for the league's
spreadsheets. Organizer only; times in the season's zone, as on every other route (the use cases:
:class:`turf_gateway.handlers.exports.Exports`)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response, StreamingResponse

from turf_gateway.api.deps import ExportsCase, Organizer
from turf_gateway.api.schemas import ClaimLog

router = APIRouter(prefix="/admin", tags=["organizer"])

CSV = "text/csv; charset=utf-8"


def _csv_headers(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"}


@router.get("/claims", response_model=ClaimLog)
async def claims(org: Organizer, exports: ExportsCase,
                 day: Annotated[date | None, Query(description="a game date")] = None,
                 player_id: Annotated[str | None, Query(max_length=64)] = None,
                 limit: Annotated[int, Query(ge=1, le=10_000)] = 2000) -> ClaimLog:
    """The claim log, oldest first: every claim of ``day`` (a game date, e.g. 2026-10-05) and/or of
    ``player_id``, with names; ``truncated`` when more than ``limit`` matched."""
    return await exports.claim_log(day, player_id, limit)


@router.get("/export/{table}.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}, "description": "A CSV file with a header row"}})
async def export(table: Literal["players", "claims", "results"], org: Organizer, exports: ExportsCase) -> Response:
    """``players.csv`` (private fields: keep it private), ``claims.csv`` (the whole log) or ``results.csv`` (the
    final standings with prizes once the season is closed, the current standings before, ``final`` saying which)."""
    filename = f"{table}.csv"
    if table == "claims":
        # streamed: the first page is read before the answer starts (a claims service that does not answer: 503)
        return StreamingResponse(await exports.claims_csv(), media_type=CSV, headers=_csv_headers(filename))
    text = await (exports.players_csv() if table == "players" else exports.results_csv())
    return Response(text, media_type=CSV, headers=_csv_headers(filename))
