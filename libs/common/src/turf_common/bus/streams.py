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
    "mode.>",   # issue 32: Team Turf and King of the Hill (the commands are modes.*, outside the stream)
    # clock events by name: "clock.>" would also capture the clock.set command and answer it with a PubAck
    "clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed", "clock.season_ended",
]
CLOCK_BUCKET = "clock"  # suffix; the bucket is "<stream>_clock" so two stacks on one NATS stay apart
#: issue 29: the stream had no limits and every refused claim adds an event. Its byte limit is the setting
#: ``TURF_STREAM_MAX_BYTES`` (sized there for a season). Full, the stream refuses new events (DiscardNew) rather than
#: dropping the season's first ones: they wait in the outboxes, nothing is lost, and ``turf_stream_fill_ratio`` with
#: the alert in deploy/prometheus/alerts.yaml warns at 80 % long before.
STREAM_MAX_MSG_SIZE = 1024 * 1024   # NATS's default max_payload: no event is larger


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


async def ensure_stream(broker: NatsBroker, stream: str, replicas: int = 1, patience: float = 60.0, *,
                        max_bytes: int) -> None:
    """Create the event stream, or bring its subjects and limits up to date (``replicas``: 3 on a cluster;
    ``max_bytes``: the setting ``stream_max_bytes``, which every process of a deployment shares)."""
    js = jetstream(broker)
    cfg = jsapi.StreamConfig(
        name=stream, subjects=EVENT_SUBJECTS, storage=jsapi.StorageType.FILE,
        retention=jsapi.RetentionPolicy.LIMITS, duplicate_window=600.0, max_age=0, num_replicas=replicas,
        max_bytes=max_bytes, max_msg_size=STREAM_MAX_MSG_SIZE, discard=jsapi.DiscardPolicy.NEW,
    )

    async def once() -> None:
        try:
            c = (await js.stream_info(stream)).config
            if (set(c.subjects or []) != set(EVENT_SUBJECTS) or c.max_bytes != max_bytes
                    or c.max_msg_size != STREAM_MAX_MSG_SIZE or c.discard != jsapi.DiscardPolicy.NEW):
                await js.update_stream(cfg)
        except NotFoundError:
            with contextlib.suppress(BadRequestError):  # a sibling service created it meanwhile
                await js.add_stream(cfg)
            await js.stream_info(stream)

    await _patiently("stream " + stream, once, patience)


async def ensure_clock_kv(broker: NatsBroker, stream: str, replicas: int = 1) -> Any:
    """The set-up's part (issue 29): the game clock's KV bucket (``<stream>_clock``), created when missing."""
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


async def clock_kv(broker: NatsBroker, stream: str, patience: float = 600.0) -> Any:
    """The game clock's KV bucket (``<stream>_clock``). Issue 29: a service only looks it up (its NATS user may not
    create streams); the bus set-up makes it last, after the stream and every durable consumer, so a service that
    finds it finds the whole bus ready. Missing, it is waited for up to ``patience`` seconds (a deployment's set-up
    job may still run)."""
    js = jetstream(broker)
    bucket = f"{stream}_{CLOCK_BUCKET}"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        try:
            return await _patiently("bucket " + bucket, lambda: js.key_value(bucket), 60.0)
        except NotFoundError:
            if loop.time() > deadline:
                raise
            log.info("bus_not_set_up_waiting", bucket=bucket)
            await asyncio.sleep(1.0)


async def stream_fill(broker: NatsBroker, stream: str) -> float:
    """The share of the stream's byte limit in use (0 for a stream without one)."""
    info = await jetstream(broker).stream_info(stream)
    limit = info.config.max_bytes or -1
    return 0.0 if limit <= 0 else info.state.bytes / limit


async def watch_stream_fill(broker: NatsBroker, stream: str, every: float = 30.0) -> None:
    """Keep ``turf_stream_fill_ratio`` current, forever (one process does it: the clock)."""
    from turf_common import metrics

    while True:
        try:
            fill = await stream_fill(broker, stream)
        except Exception as e:   # NATS away: the gauge keeps its last value, the next round tries again
            log.warning("stream_fill_unread", error=f"{type(e).__name__}: {e}")
        else:
            metrics.STREAM_FILL.set(fill)
            if fill >= 0.8:
                log.error("stream_nearly_full", stream=stream, fill=round(fill, 3))
        await asyncio.sleep(every)
