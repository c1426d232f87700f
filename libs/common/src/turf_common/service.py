"""The common life of a service process: connect, migrate, serve health, run until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Awaitable, Callable

import structlog

from turf_common import metrics, tracing
from turf_common.bus import Bus
from turf_common.contracts import subjects
from turf_common.contracts.base import Health
from turf_common.logs import configure
from turf_common.settings import Settings

log = structlog.get_logger(__name__)


Starter = Callable[[Bus], Awaitable[Callable[[], Awaitable[None]]]]


def run(name: str, settings: Settings, start: Starter) -> None:
    """A service's ``main()``: :func:`serve_forever` on uvloop (libuv's event loop; the gateway's uvicorn uses it
    too). Every message and query of a service is socket I/O, which uvloop runs with much less Python per call."""
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(serve_forever(name, settings, start))


async def serve_forever(name: str, settings: Settings, start: Starter) -> None:
    """Connect to NATS, make sure the stream exists, call ``start(bus)`` (which subscribes and returns a
    cleanup coroutine), answer ``svc.<name>.health``, and wait for a stop signal."""
    configure(name, settings.log_level)
    metrics.serve(name, settings.metrics_port)
    tracing.setup(name)
    if not settings.nats_url:
        raise SystemExit("TURF_NATS_URL is not set; start the stack with `turfwar up`")
    bus = await Bus.connect(settings.nats_url, name=name, stream=settings.stream,
                            replicas=settings.stream_replicas)
    await bus.ensure_stream()
    cleanup = await start(bus)
    # the board, graph and index live as long as the process: keep full collections from rescanning them
    gc.collect()
    gc.freeze()

    async def health(_: bytes) -> Health:
        return Health(service=name)

    await bus.serve(subjects.health(name), queue=name, handler=health)
    log.info("service_started", service=name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("service_stopping", service=name)
    await cleanup()
    await bus.close()
