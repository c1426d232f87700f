"""``GET /ready``: can this gateway serve players now? A load balancer or an orchestrator (Kubernetes'
readinessProbe, compose's healthcheck) sends traffic only to gateways that reach every server they need; ``/health``
says only that the process runs (liveness)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text

from turf_gateway.state import AppState

#: seconds each server has to answer; a probe waits at most this long in all (the checks run at once)
TIMEOUT_S = 2.0


async def _nats(state: AppState) -> None:
    nc = state.broker.config.connection_state.connection
    if nc is None or not nc.is_connected:
        raise ConnectionError("not connected")
    await nc.flush(timeout=TIMEOUT_S)   # a round trip to the server, not just our socket's state


async def _postgres(state: AppState) -> None:
    async with state.engine.connect() as conn:
        await conn.execute(text("SELECT 1"))


async def _redis(state: AppState) -> None:
    if state.limiter.redis is None:   # run without Redis (rate limits off): nothing to reach
        return
    await state.limiter.redis.ping()


CHECKS: dict[str, Callable[[AppState], Awaitable[None]]] = {"nats": _nats, "postgres": _postgres, "redis": _redis}


async def _one(check: Callable[[AppState], Awaitable[None]], state: AppState) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        await asyncio.wait_for(check(state), TIMEOUT_S)
    except Exception as e:   # any failure to reach a server is "down", whatever the driver raises
        return {"ok": False, "error": type(e).__name__}
    return {"ok": True, "ms": round((time.perf_counter() - start) * 1000, 1)}


async def readiness(state: AppState) -> dict[str, dict[str, Any]]:
    """``{server: {ok, ms} | {ok: false, error}}`` for NATS, PostgreSQL and Redis, checked concurrently."""
    results = await asyncio.gather(*(_one(c, state) for c in CHECKS.values()))
    return dict(zip(CHECKS, results, strict=True))
