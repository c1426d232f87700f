"""Public reads: board, territories, leaderboard, clock."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from shapely.geometry import mapping

from turf_common.contracts import subjects
from turf_common.contracts.claims import StateReply, StateRequest
from turf_common.contracts.scoring import FinalResults, Leaderboard, LeaderboardRequest, ResultsRequest
from turf_common.rules import gametime
from turf_common.rules.cards import seed_commitment
from turf_common.settings import parse_clock_mode
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import State
from turf_gateway.errors import ApiError
from turf_gateway.paging import read_pages

router = APIRouter(tags=["public"])


async def ownership(state: Any, territory_id: str | None = None) -> dict[str, dict[str, Any]]:
    rep = await state.services.ask(subjects.CLAIMS_STATE, StateRequest(territory_id=territory_id), StateReply)
    return {x.id: {"owner_id": x.owner_id, "progress": x.progress, "fortified": x.fortified}
            for x in rep.territories}


def display_features(state: Any) -> list[dict[str, Any]]:
    cached = getattr(state, "_display_cache", None)
    if cached is None:
        cached = json.loads(state.board.display_geojson_path().read_text())["features"]
        state._display_cache = cached
    return cached  # type: ignore[no-any-return]


class GeoJSONResponse(JSONResponse):
    """JSON under GeoJSON's media type (RFC 7946), so the OpenAPI document declares the board's schema under it."""

    media_type = "application/geo+json"


@router.get("/board", response_class=GeoJSONResponse, responses={
    200: {"model": S.Board, "description": "The board, a GeoJSON FeatureCollection"},
    304: {"description": "Not modified since the ETag sent in If-None-Match"}})
async def board(request: Request, state: State) -> Response:
    """GeoJSON FeatureCollection of every territory (display-simplified), with owner and fortification.
    Issue 19: one body per ownership version (board_cache.py), gzip when the client accepts it; ``ETag`` over the
    content, 304 for a client that has it."""
    version = state.feed.board_version
    cached = state.feed.board_cache.fresh(version)
    if cached is not None and request.headers.get("if-none-match") == cached.etag:
        return Response(status_code=304, headers={"ETag": cached.etag})
    body = cached or await state.feed.board_cache.get(version, lambda: board_json(state))
    if request.headers.get("if-none-match") == body.etag:
        return Response(status_code=304, headers={"ETag": body.etag})
    headers = {"ETag": body.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(body.gz, media_type="application/geo+json", headers=headers | {"Content-Encoding": "gzip"})
    return Response(body.raw, media_type="application/geo+json", headers=headers)


async def board_json(state: Any) -> bytes:
    """The board's FeatureCollection as JSON bytes, with the ownership the claims service has now."""
    own = await ownership(state)
    feats = []
    for f in display_features(state):
        tid = f["properties"]["id"]
        props = state.board.feature_properties(tid) | own.get(tid, {"owner_id": None, "progress": 0,
                                                                     "fortified": False})
        feats.append({"type": "Feature", "id": tid, "properties": props, "geometry": f["geometry"]})
    return json.dumps({"type": "FeatureCollection", "features": feats}, separators=(",", ":")).encode()


@router.get("/territories/{territory_id}", response_model=S.TerritoryDetail)
async def territory(territory_id: str, state: State) -> dict[str, Any]:
    ter = state.board.territories.get(territory_id)
    if ter is None:
        raise ApiError("not_found", "No territory with that id.")
    own = (await ownership(state, territory_id)).get(territory_id, {"owner_id": None, "progress": 0,
                                                                     "fortified": False})
    return state.board.feature_properties(territory_id) | own | {
        "neighbours": sorted(state.board.neighbours(territory_id)), "geometry": mapping(ter.geometry)}


async def leaderboard_body(state: Any) -> dict[str, Any]:
    """The named leaderboard from scoring. Concurrent callers (a burst of spectators connecting, each wanting a
    snapshot) share one request in flight instead of each asking scoring for a full ranking."""
    # Shared only while no score.updated has come since it was sent: a caller must never get a leaderboard older
    # than a delta it has missed (a spectator joins the hub before asking, so later deltas reach it anyway).
    inflight = state.feed.leaderboard_inflight
    if inflight is None or inflight[0] != state.feed.score_updates or inflight[1].done():
        fut = asyncio.ensure_future(_fetch_leaderboard(state))
        state.feed.leaderboard_inflight = inflight = (state.feed.score_updates, fut)
    return await asyncio.shield(inflight[1])


async def _fetch_leaderboard(state: Any) -> dict[str, Any]:
    """Issue 29: read a page at a time (one page, one request, up to 1,000 players), every page cut from the one
    ranking scoring made for the first (turf_gateway.paging)."""
    pages = await read_pages(state.services, subjects.SCORING_LEADERBOARD, lambda after: LeaderboardRequest(
        after=after), Leaderboard)
    lb = pages[0] if len(pages) == 1 else pages[0].model_copy(update={
        "standings": [s for p in pages for s in p.standings], "next": None})
    return await named_leaderboard(state, lb)


async def named_changes(state: Any, changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The standings of a ``score.updated`` delta as spectators see them: with display names, without ranks
    (clients re-rank: R25 competition ranking by total, ties by player id)."""
    names = await state.player_store.display_names([c["player_id"] for c in changes])
    return [{"player_id": c["player_id"], "display_name": names.get(c["player_id"], ""), "base": c["base"],
             "outposts": c["outposts"], "bonuses": c["bonuses"], "total": c["total"]} for c in changes]


async def named_leaderboard(state: Any, lb: Leaderboard) -> dict[str, Any]:
    names = await state.player_store.display_names([s.player_id for s in lb.standings])
    return {
        "standings": [{"rank": s.rank, "player_id": s.player_id, "display_name": names.get(s.player_id, ""),
                       "base": s.base, "outposts": s.outposts, "bonuses": s.bonuses, "total": s.total}
                      for s in lb.standings],
        "side_quests": {q: {"leaders": r.leaders, "value": r.value} for q, r in lb.side_quests.items()},
    }


@router.get("/leaderboard", response_model=S.Leaderboard)
async def leaderboard(state: State) -> dict[str, Any]:
    return await leaderboard_body(state)


def clock_body(state: Any, now: datetime) -> dict[str, Any]:
    cfg = state.season
    day = gametime.game_day_at(cfg, now)
    nc = gametime.next_change(cfg, now)
    return {"now": now.astimezone(cfg.tz).isoformat(), "open": gametime.is_open(cfg, now),
            # beyond API.md's fields: real, accelerated or manual (only a manual clock can be moved)
            "mode": parse_clock_mode(state.settings.clock)[0],
            "game_day": gametime.game_day_number(cfg, day) if day else None,
            "season_state": gametime.season_state(cfg, now),
            "next_change": nc.isoformat() if nc else None,
            # R12.1: the SHA-256 commitment of TURF_SEED, public from the first start on, before registration and
            # the first draw (the seed itself is revealed at season end)
            "seed_commitment": seed_commitment(state.settings.seed)}


@router.get("/clock", response_model=S.Clock)
async def clock(state: State) -> dict[str, Any]:
    return clock_body(state, await state.clock.now())


@router.get("/results", response_model=S.Results)
async def results(state: State) -> S.Results:
    """R25/R26 final standings with prizes, once the season has closed; 409 ``season_not_closed`` before."""
    # issue 29: read a page at a time, as the leaderboard
    pages = await read_pages(state.services, subjects.SCORING_RESULTS, lambda after: ResultsRequest(after=after),
                             FinalResults, 10)
    standings = [s for p in pages for s in p.standings]
    names = await state.player_store.display_names([s.player_id for s in standings])
    return S.Results(final=True, standings=[S.FinalStanding(
        place=s.place, player_id=s.player_id, display_name=names.get(s.player_id, ""), base=s.base,
        bonuses=s.bonuses, total=s.total, prize=s.prize) for s in standings])
