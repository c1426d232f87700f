"""The operator's routes, outside the API: Prometheus metrics, liveness, readiness, and the play page at ``/``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel

from turf_gateway.adapters.readiness import CheckResult
from turf_gateway.api import errors
from turf_gateway.api.deps import State
from turf_gateway.api.middleware import security
from turf_gateway.api.pages import page_response

router = APIRouter()
STATIC = Path(__file__).resolve().parents[2] / "static"


@router.get("/metrics", include_in_schema=False)
async def prometheus(request: Request) -> Response:
    """Prometheus metrics, for clients on this machine only (the request counts, handler timings and
    queue depths tell an outsider when and how the game is played); 404 for anyone else."""
    if not security.loopback_client(request.client):
        raise errors.ApiError("not_found", "Not found.")
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


class Health(BaseModel):
    ok: bool


class Ready(BaseModel):
    ok: bool
    checks: dict[str, CheckResult]


@router.get("/health", include_in_schema=False, response_model=Health)
async def health() -> Health:
    return Health(ok=True)


@router.get("/ready", include_in_schema=False, response_model=Ready, response_model_exclude_none=True)
async def ready(state: State) -> Ready | JSONResponse:
    """200 ``{ok: true, checks}`` when NATS, PostgreSQL and Redis answer; else 503 ``unavailable`` with the
    same checks (which server is down, never its address or credentials)."""
    checks = await state.readiness.check()
    if all(c.ok for c in checks.values()):
        return Ready(ok=True, checks=checks)
    down = ", ".join(name for name, c in checks.items() if not c.ok)
    return JSONResponse({"reason": "unavailable", "message": f"This gateway cannot reach {down}.",
                         "checks": {n: c.model_dump(exclude_none=True) for n, c in checks.items()}},
                        status_code=503)


@router.get("/", include_in_schema=False)
async def index(request: Request) -> Response:
    # revalidated at every visit, as every page (pages.page_response): a page kept by heuristic freshness would name
    # the bundles and stylesheets of a build the gateway no longer serves under their hashes
    return page_response(STATIC / "index.html", request)
