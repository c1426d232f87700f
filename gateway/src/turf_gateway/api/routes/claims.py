"""GPS claims (R6–R10): check and submit. The gateway locates the fix on the board (the index geo-verify serves),
then claims decides."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from turf_common.contracts import subjects
from turf_common.contracts.claims import Fix, SubmitClaim
from turf_common.contracts.geo import Located
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CurrentPlayer, PlayerOnly, State
from turf_gateway.api.types import FixIsoTime
from turf_gateway.commands import ask
from turf_gateway.idempotency import same_body_or_refuse
from turf_gateway.ratelimit import client_ip

router = APIRouter(tags=["claims"])

# strict: "40.7" (a string) is malformed input, not a coordinate (R7)
Lat = Annotated[float, Field(strict=True, ge=-90, le=90, allow_inf_nan=False, description="WGS84 degrees")]
Lon = Annotated[float, Field(strict=True, ge=-180, le=180, allow_inf_nan=False, description="WGS84 degrees")]
# any finite accuracy >= 0 is valid input, however large (R7, amended): above the season's maximum it is refused
# inaccurate_fix (409), not malformed
Accuracy = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False, description="metres")]


class ClaimBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lat: Lat
    lon: Lon
    accuracy_m: Accuracy
    fix_time: FixIsoTime


def locate(state: Any, lat: float, lon: float) -> Located:
    """Where a fix lies (R7): the territory and the distance to its nearest shared border, from the board index this
    gateway loaded at start — the one geo-verify answers ``geo.locate`` from (issue 21: a NATS round trip and two
    process hops less per claim, for a lookup of some microseconds; geo-verify still serves other clients)."""
    loc = state.board.locate(lat, lon)
    name = state.board.territories[loc.territory_id].name if loc.territory_id else None
    return Located(territory_id=loc.territory_id, territory_name=name, border_distance_m=loc.border_distance_m)


async def _command(state: Any, caller: Any, body: ClaimBody, key: str | None) -> SubmitClaim:
    located = locate(state, body.lat, body.lon)
    return SubmitClaim(player_id=caller.id, player_status=caller.status,
                       fix=Fix(lat=body.lat, lon=body.lon, accuracy_m=body.accuracy_m, fix_time=body.fix_time),
                       located=located, idempotency_key=key)


@router.post("/claims/check", response_model=S.ClaimCheck)
async def check_claim(body: ClaimBody, caller: CurrentPlayer, state: State, request: Request) -> dict[str, Any]:
    """Would a claim here succeed now? ``{territory, allowed, reason, message}``; changes no game state. The fix
    joins the caller's trail (R7.1), so checks are rate-limited per player and per client address like claims
    (``checks_player``, ``checks_ip``: 429 ``rate_limited`` with ``Retry-After``)."""
    await state.limiter.hit("checks_player", caller.id, ("checks_ip", client_ip(request)))
    out = await ask(state, subjects.CLAIMS_CHECK, await _command(state, caller, body, None), timeout=10)
    ter = out["territory"]
    return {"territory": {k: ter[k] for k in ("id", "name", "owner_id")} if ter else None,
            "allowed": out["allowed"], "reason": out["reason"], "message": out["message"]}


class ClaimOut(BaseModel):
    """An accepted claim (API.md): the territory's state after it."""

    claim_id: str
    territory_id: str
    kind: str = Field(description="take, steal, reinforce or war_reclaim")
    owner_id: str
    progress: int = Field(ge=1, le=3)
    fortified: bool


@router.post("/claims", status_code=201, responses={201: {"model": ClaimOut, "description": "Claimed"}})
async def submit_claim(body: ClaimBody, caller: PlayerOnly, state: State, request: Request,
                       idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> JSONResponse:
    """Claim the territory at the fix. 201 ``{claim_id, territory_id, kind, owner_id, progress, fortified}``;
    409 with the rule code of R3/R7/R8 when refused. A repeated ``Idempotency-Key`` returns the first answer;
    with another body it is refused 422 ``invalid_input`` (issue 15). 403 ``forbidden`` for the organizer, who is
    not a player (R27)."""
    await state.limiter.hit("claims_player", caller.id, ("claims_ip", client_ip(request)))
    if idempotency_key is not None:
        await same_body_or_refuse(state.limiter.redis, state.settings.redis_prefix, "claims", caller.id,
                                  idempotency_key, body.model_dump(mode="json"))
    out = await ask(state, subjects.CLAIMS_SUBMIT, await _command(state, caller, body, idempotency_key), timeout=10)
    return JSONResponse({k: out[k] for k in ("claim_id", "territory_id", "kind", "owner_id", "progress",
                                             "fortified")}, status_code=201)
