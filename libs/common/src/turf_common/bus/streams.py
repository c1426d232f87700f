"""Stream set-up: the one event stream and the game clock's KV bucket, made or brought up to date at start."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import nats
import structlog
from faststream.nats import NatsBroker
from nats.js import api as jsapi
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError

from turf_common.bus.broker import jetstream

log = structlog.get_logger(__name__)

E = TypeVar("E")

#: Subjects captured by the event stream. Commands stay out of it.
EVENT_SUBJECTS = [
    "claim.>", "territory.>", "score.>", "card.>", "trade.>", "season.>", "correction.>", "player.>", "flag.>",
    "protection.>", "notification.>", "announcement.>",
    # clock events by name: "clock.>" would also capture the clock.set command and answer it with a PubAck
    "clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed", "clock.season_ended",
]
CLOCK_BUCKET = "clock"  # suffix; the bucket is "<stream>_clock" so two stacks on one NATS stay apart


async def _patiently(what: str, call: Callable[[], Awaitable[E]], patience: float) -> E:
    """``call()``, retried for ``patience`` seconds while a forming cluster has no JetStream leader yet."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        try:
            return await call()
        except (nats.errors.TimeoutError, TimeoutError, ServiceUnavailableError):
            if loop.time() > deadline:
                raise
            log.info("jetstream_not_ready_retrying", what=what)
            await asyncio.sleep(1.0)


async def ensure_stream(broker: NatsBroker, stream: str, replicas: int = 1, patience: float = 60.0) -> None:
    """Create the event stream, or bring its subjects up to date (``replicas``: 3 on a cluster)."""
    js = jetstream(broker)
    cfg = jsapi.StreamConfig(
        name=stream, subjects=EVENT_SUBJECTS, storage=jsapi.StorageType.FILE,
        retention=jsapi.RetentionPolicy.LIMITS, duplicate_window=600.0, max_age=0, num_replicas=replicas,
    )

    async def once() -> None:
        try:
            info = await js.stream_info(stream)
            if set(info.config.subjects or []) != set(EVENT_SUBJECTS):
                await js.update_stream(cfg)
        except NotFoundError:
            with contextlib.suppress(BadRequestError):  # a sibling service created it meanwhile
                await js.add_stream(cfg)
            await js.stream_info(stream)

    await _patiently("stream " + stream, once, patience)


async def clock_kv(broker: NatsBroker, stream: str, replicas: int = 1) -> Any:
    """The game clock's KV bucket (``<stream>_clock``), created on first use."""
    js = jetstream(broker)
    bucket = f"{stream}_{CLOCK_BUCKET}"

    async def once() -> Any:
        try:
            return await js.key_value(bucket)
        except NotFoundError:
            with contextlib.suppress(BadRequestError):
                return await js.create_key_value(bucket=bucket, history=5, replicas=replicas)
            return await js.key_value(bucket)

    return await _patiently("bucket " + bucket, once, 60.0)
