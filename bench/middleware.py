"""CPU per request through a command subscriber on embedded NATS, by observation middleware: none, ours
(``turf_common.bus.Observed``), FastStream's ``NatsPrometheusMiddleware``, ``NatsTelemetryMiddleware``, and both.
Requester and subscriber share this process, so the difference between rows is the middleware's cost.
``python -m bench.middleware [requests] [rounds]``: the best of ``rounds`` per variant, variants interleaved."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from faststream import ExceptionMiddleware
from faststream.nats import NatsBroker, NatsRouter
from faststream.nats.opentelemetry import NatsTelemetryMiddleware
from faststream.nats.prometheus import NatsPrometheusMiddleware
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client import CollectorRegistry
from pydantic import ValidationError

from turf_common.bus.broker import _invalid, _unavailable, inbox_prefix
from turf_common.bus.fixes import apply_fixes
from turf_common.bus.observed import Observed
from turfwar.embedded import start_nats


def middlewares(variant: str, registry: CollectorRegistry) -> list[Any]:
    prom = NatsPrometheusMiddleware(registry=registry, app_name="bench", metrics_prefix="turf")
    otel = NatsTelemetryMiddleware(tracer_provider=trace.get_tracer_provider())
    return {"none": [], "observed": [Observed], "faststream-prometheus": [prom],
            "faststream-otel": [otel], "faststream-both": [prom, otel]}[variant]


async def run(url: str, variant: str, requests: int) -> tuple[float, int]:
    """(CPU ms per request, metric series made by the run)."""
    registry = CollectorRegistry()
    apply_fixes()   # as make_broker does; its replies middleware too, then the variant's
    replies = ExceptionMiddleware(publish_handlers={ValidationError: _invalid, Exception: _unavailable})
    broker = NatsBroker(url, name="bench-" + variant, logger=None, inbox_prefix=inbox_prefix("bench-" + variant),
                        middlewares=[replies, *middlewares(variant, registry)])
    router = NatsRouter()

    @router.subscriber("bench.work", queue="w", max_workers=16)
    async def work(n: int) -> int:
        return n

    broker.include_router(router)
    await broker.start()
    try:
        async def burst(count: int) -> None:
            for start in range(0, count, 20):
                await asyncio.gather(*(broker.request(n, "bench.work", timeout=5) for n in range(start, start + 20)))

        await burst(200)
        cpu = time.process_time()
        await burst(requests)
        cpu = time.process_time() - cpu
    finally:
        await broker.stop()
    series = sum(len(m.samples) for m in registry.collect())
    return cpu * 1000 / requests, series


async def main(requests: int, rounds: int) -> None:
    trace.set_tracer_provider(TracerProvider())   # spans made, none exported (as in a stack without OTLP)
    srv = start_nats(Path(tempfile.mkdtemp()))
    variants = ["none", "observed", "faststream-prometheus", "faststream-otel", "faststream-both"]
    best: dict[str, float] = {}
    series: dict[str, int] = {}
    try:
        for _ in range(rounds):
            for v in variants:
                ms, s = await run(srv.url, v, requests)
                best[v] = min(best.get(v, ms), ms)
                series[v] = s
    finally:
        srv.stop()
    for v in variants:
        print(f"{v:24s} {best[v]:.3f} ms CPU/request  (+{best[v] - best['none']:.3f})  "
              f"faststream prometheus samples after the run: {series[v]}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000, int(sys.argv[2]) if len(sys.argv) > 2 else 3))
