"""GPS claims (R6–R10): check and submit. The claims service decides, with geo-verify's verdict on where the fix
lies (R7) and what the player's trail shows (R7.1)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from turf_common.contracts.claims import Fix
from turf_gateway.adapters.ratelimit import client_ip
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import ClaimsCase, CurrentPlayer, PlayerOnly
from turf_gateway.api.responses import ModelResponse
from turf_gateway.api.types import FixIsoTime

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


def _fix(body: ClaimBody) -> Fix:
    return Fix(lat=body.lat, lon=body.lon, accuracy_m=body.accuracy_m, fix_time=body.fix_time)


@router.post("/claims/check", response_model=S.ClaimCheck)
async def check_claim(body: ClaimBody, caller: CurrentPlayer, claims: ClaimsCase, request: Request) -> S.ClaimCheck:
    """Would a claim here succeed now? ``{territory, allowed, reason, message}``; changes no game state. The fix
    joins the caller's trail (R7.1), so checks are rate-limited per player and per client address like claims
    (``checks_player``, ``checks_ip``: 429 ``rate_limited`` with ``Retry-After``)."""
    out = await claims.check(caller, _fix(body), client_ip(request))
    ter = out.territory
    return S.ClaimCheck(territory=S.CheckedTerritory(id=ter.id, name=ter.name, owner_id=ter.owner_id) if ter else None,
                        allowed=out.allowed, reason=out.reason, message=out.message)


@router.post("/claims", status_code=201, response_model=S.ClaimOut,
             responses={201: {"model": S.ClaimOut, "description": "Claimed"}})
async def submit_claim(body: ClaimBody, caller: PlayerOnly, claims: ClaimsCase, request: Request,
                       idempotency_key: Annotated[str | None, Header(max_length=200)] = None) -> ModelResponse:
    """Claim the territory at the fix. 201 ``{claim_id, territory_id, kind, owner_id, progress, fortified}``;
    409 with the rule code of R3/R7/R8 when refused. A repeated ``Idempotency-Key`` returns the first answer;
    with another body it is refused 422 ``invalid_input``. 403 ``forbidden`` for the organizer, who is
    not a player (R27)."""
    out = await claims.submit(caller, _fix(body), client_ip(request), idempotency_key,
                              body.model_dump(mode="json") if idempotency_key is not None else None)
    return ModelResponse(out, S.ClaimOut, 201)   # the reply's ClaimOut fields (api/responses.py: why not FastAPI's)
