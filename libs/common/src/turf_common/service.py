"""The common life of a service process, on FastStream: connect, wait for the bus set-up, wire the service,
serve health, run until SIGTERM/SIGINT, stop gracefully."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import structlog
from faststream import FastStream
from faststream.nats import NatsBroker, NatsRouter

from turf_common import metrics, tracing
from turf_common.bus import clock_kv, make_broker, quiet_faststream
from turf_common.contracts import subjects
from turf_common.contracts.base import Health
from turf_common.logs import configure
from turf_common.settings import Settings

log = structlog.get_logger(__name__)


@dataclass
class Wired:
    """What a service's bootstrap hands its app: the subscribers (a router), the loops that run beside them
    (outbox sweep, saga recovery), and what to close once the broker has stopped."""

    router: NatsRouter
    loops: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    close: Callable[[], Awaitable[None]] | None = None
    #: what the health answer adds for the organizer's `turfwar status` (notify: mail not configured, R30)
    health: dict[str, str] = field(default_factory=dict)


Wire = Callable[[NatsBroker], Awaitable[Wired]]


def health_router(name: str, detail: dict[str, str] | None = None) -> NatsRouter:
    """``svc.<name>.health``: answered while the process serves (``turfwar status``, the stack's start-up wait), with
    ``detail``: what the organizer should know of it although it serves."""
    r = NatsRouter()

    @r.subscriber(subjects.health(name), queue=name, title=subjects.health(name))
    async def health() -> Health:
        return Health(service=name, detail=detail or {})

    return r


def service_app(name: str, settings: Settings, wire: Wire) -> FastStream:
    """The FastStream app of one service. Start: connect, wait for the bus set-up, ``wire(broker)`` (migrations,
    adapters, subscribers), answer ``svc.<name>.health``, start the loops. Stop (SIGTERM/SIGINT): the loops end,
    subscribers stop taking messages and in-flight handlers finish (their outbox flushes included), the connection
    drains, then ``close`` (engines, Redis)."""
    if not settings.nats_url:
        raise SystemExit("TURF_NATS_URL is not set; start the stack with `turfwar up`")
    configure(name, settings.log_level)   # before FastStream's first line ("app starting"), so that it is JSON
    broker = make_broker(settings.nats_url, name)
    app = FastStream(broker)
    running: list[asyncio.Task[None]] = []
    wired: list[Wired] = []

    @app.on_startup
    async def connect() -> None:
        quiet_faststream()
        metrics.serve(name, settings.metrics_port, settings.metrics_host)
        tracing.setup(name)
        await broker.connect()
        # no service may declare the stream or its consumers; this waits for the bus set-up (turfwar
        # bussetup), which makes the clock's bucket last
        await clock_kv(broker, settings.stream)
        w = await wire(broker)
        wired.append(w)
        broker.include_router(w.router)
        broker.include_router(health_router(name, w.health))

    @app.after_startup
    async def started() -> None:
        running.extend(asyncio.create_task(loop()) for loop in wired[0].loops)
        # the board, graph and index live as long as the process: keep full collections from rescanning them
        gc.collect()
        gc.freeze()
        log.info("service_started", service=name)

    @app.on_shutdown
    async def stopping() -> None:
        log.info("service_stopping", service=name)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    @app.after_shutdown
    async def closed() -> None:
        if wired and wired[0].close is not None:
            await wired[0].close()

    return app


def run_app(app: FastStream) -> None:
    """A service's ``main()``: the app on uvloop (libuv's event loop; the gateway's uvicorn uses it too)."""
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(app.run())
