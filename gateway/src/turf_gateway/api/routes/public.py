"""Public reads: board, territories, leaderboard, clock, results (the use cases:
:class:`turf_gateway.handlers.public.Public`)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from turf_gateway.api import schemas as S
from turf_gateway.api.deps import PublicCase

router = APIRouter(tags=["public"])


class GeoJSONResponse(JSONResponse):
    """JSON under GeoJSON's media type (RFC 7946), so the OpenAPI document declares the board's schema under it."""

    media_type = "application/geo+json"


@router.get("/board", response_class=GeoJSONResponse, responses={
    200: {"model": S.Board, "description": "The board, a GeoJSON FeatureCollection"},
    304: {"description": "Not modified since the ETag sent in If-None-Match"}})
async def board(request: Request, public: PublicCase,
                format: Literal["geojson", "topojson"] = "geojson") -> Response:
    """GeoJSON FeatureCollection of every territory (display-simplified), with owner and fortification.
    One body per ownership version (board_cache.py), gzip when the client accepts it; ``ETag`` over the
    content, 304 for a client that has it. ``?format=topojson``: the same towns and properties as a TopoJSON
    topology (one GeometryCollection ``board``; shared borders once, delta-encoded integer coordinates), about half
    the gzipped bytes: what the pages read."""
    topo = format == "topojson"
    body = await (public.board_topo_body() if topo else public.board_body())
    if request.headers.get("if-none-match") == body.etag:
        return Response(status_code=304, headers={"ETag": body.etag})
    headers = {"ETag": body.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    media = "application/json" if topo else "application/geo+json"
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(body.gz, media_type=media, headers=headers | {"Content-Encoding": "gzip"})
    return Response(body.raw, media_type=media, headers=headers)


@router.get("/territories/{territory_id}", response_model=S.TerritoryDetail)
async def territory(territory_id: str, public: PublicCase) -> dict[str, Any]:
    return await public.territory(territory_id)


@router.get("/leaderboard", response_model=S.Leaderboard)
async def leaderboard(public: PublicCase) -> dict[str, Any]:
    return await public.leaderboard()


@router.get("/clock", response_model=S.Clock)
async def clock(public: PublicCase) -> dict[str, Any]:
    return await public.clock_now()


@router.get("/results", response_model=S.Results)
async def results(public: PublicCase) -> S.Results:
    """R25/R26 final standings with prizes, once the season has closed; 409 ``season_not_closed`` before."""
    return await public.results()
