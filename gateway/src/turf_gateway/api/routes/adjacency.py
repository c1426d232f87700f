"""``GET /adjacency`` (public, beyond API.md): the board's adjacency graph (R22, with the organizer's overrides) as one
small cacheable body, so a page works out clusters without downloading each territory's full geometry
(``GET /territories/{id}``) just for its ``neighbours``."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from turf_gateway.api.deps import State

router = APIRouter(tags=["public"])


class Adjacency(BaseModel):
    neighbours: dict[str, list[str]] = Field(description="territory id → the ids of its neighbours, sorted (R22)")


def adjacency_body(state: Any) -> tuple[bytes, str]:
    """The body and its ETag, built once: the board does not change while a gateway runs."""
    cached = getattr(state, "_adjacency_cache", None)
    if cached is None:
        graph = {tid: sorted(state.board.neighbours(tid)) for tid in sorted(state.board.territories)}
        body = json.dumps({"neighbours": graph}, separators=(",", ":")).encode()
        cached = (body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
        state._adjacency_cache = cached
    return cached  # type: ignore[no-any-return]


@router.get("/adjacency", response_model=Adjacency, responses={304: {"description": "Not modified (ETag)"}})
async def adjacency(request: Request, state: State) -> Response:
    body, etag = adjacency_body(state)
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(body, media_type="application/json", headers={"ETag": etag, "Cache-Control": "no-cache"})
