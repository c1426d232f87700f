"""``GET /ready``: can this gateway serve players now? A load balancer or an orchestrator (Kubernetes'
readinessProbe, compose's healthcheck) sends traffic only to gateways that reach every server they need; ``/health``
says only that the process runs (liveness). :class:`Readiness` runs named checks, each a round trip to one server;
:func:`checks` makes them for the gateway's connections (bootstrap wires them, a test passes its own)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

#: seconds each server has to answer; a probe waits at most this long in all (the checks run at once)
TIMEOUT_S = 2.0

Check = Callable[[], Awaitable[None]]


class CheckResult(BaseModel):
    """One server: ``ok`` with the round trip in ``ms``, or not ok with the ``error``'s type (never an address or a
    credential)."""

    ok: bool
    ms: float | None = None
    error: str | None = None


class Readiness:
    def __init__(self, checks: dict[str, Check]) -> None:
        self.checks = checks

    async def check(self) -> dict[str, CheckResult]:
        """Every server's :class:`CheckResult`, checked concurrently, by name."""
        results = await asyncio.gather(*(_one(c) for c in self.checks.values()))
        return dict(zip(self.checks, results, strict=True))


async def _one(check: Check) -> CheckResult:
    start = time.perf_counter()
    try:
        await asyncio.wait_for(check(), TIMEOUT_S)
    except Exception as e:   # any failure to reach a server is "down", whatever the driver raises
        return CheckResult(ok=False, error=type(e).__name__)
    return CheckResult(ok=True, ms=round((time.perf_counter() - start) * 1000, 1))


def checks(broker: Any, engine: AsyncEngine, redis: Any | None) -> dict[str, Check]:
    """NATS (a flush: a round trip to the server, not just our socket's state), PostgreSQL (``SELECT 1``) and Redis
    (``PING``; none configured, rate limits off: nothing to reach)."""

    async def nats() -> None:
        nc = broker.config.connection_state.connection
        if nc is None or not nc.is_connected:
            raise ConnectionError("not connected")
        await nc.flush(timeout=TIMEOUT_S)

    async def postgres() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def redis_ping() -> None:
        if redis is not None:
            await redis.ping()

    return {"nats": nats, "postgres": postgres, "redis": redis_ping}
