"""``GET /adjacency`` (public, beyond API.md): the board's adjacency graph (R22, with the organizer's overrides) as one
small cacheable body, so a page works out clusters without downloading each territory's full geometry
(``GET /territories/{id}``) just for its ``neighbours``."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from turf_gateway.api.deps import PublicCase

router = APIRouter(tags=["public"])


class Adjacency(BaseModel):
    neighbours: dict[str, list[str]] = Field(description="territory id → the ids of its neighbours, sorted (R22)")


@router.get("/adjacency", response_model=Adjacency, responses={304: {"description": "Not modified (ETag)"}})
async def adjacency(request: Request, public: PublicCase) -> Response:
    body, etag = public.adjacency()
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(body, media_type="application/json", headers={"ETag": etag, "Cache-Control": "no-cache"})
