"""Stream set-up: the event stream, the spectators' feed stream sourced from it and the game clock's KV
bucket, made or brought up to date at start."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Sequence
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
    "protection.>", "notification.>", "announcement.>", "medal.>",
    "mode.>",   # Team Turf and King of the Hill (the commands are modes.*, outside the stream)
    # clock events by name: "clock.>" would also capture the clock.set command and answer it with a PubAck
    "clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed", "clock.season_ended",
]
CLOCK_BUCKET = "clock"  # suffix; the bucket is "<stream>_clock" so two stacks on one NATS stay apart
#: the stream had no limits and every refused claim adds an event. Its byte limit is the setting
#: ``TURF_STREAM_MAX_BYTES`` (sized there for a season). Full, the stream refuses new events (DiscardNew) rather than
#: dropping the season's first ones: they wait in the outboxes, nothing is lost, and ``turf_stream_fill_ratio`` with
#: the alert in deploy/prometheus/alerts.yaml warns at 80 % long before.
STREAM_MAX_MSG_SIZE = 1024 * 1024   # NATS's default max_payload: no event is larger
FEED_SUFFIX = "_FEED"


def feed_stream(stream: str) -> str:
    """The name of the feed stream of the event stream ``stream`` (``TURF`` → ``TURF_FEED``)."""
    return stream + FEED_SUFFIX


def feed_max_bytes(max_bytes: int) -> int:
    """The feed stream's byte limit for an event stream of ``max_bytes``: half. The feed is a part of the
    events (a steal's ``territory.changed`` and ``score.updated``, not its ``claim.accepted``, notifications, flags,
    refused claims, clock and player events), but each sourced message carries a ``Nats-Stream-Source`` header
    naming every filter (about 300 bytes with the 15 feed subjects). NATS reserves both limits on each node's disk
    (deploy/nats: 8 + 4 GiB of a 14 GiB store)."""
    return max_bytes // 2


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


async def ensure_feed_stream(broker: NatsBroker, stream: str, subjects: Sequence[str], replicas: int = 1,
                             patience: float = 60.0, *, max_bytes: int) -> None:
    """Create the feed stream of ``stream`` (:func:`feed_stream`), or bring its filter and limits up to
    date. It has no subjects of its own (nobody publishes to it): it *sources* the event stream, filtered to exactly
    ``subjects`` (the public feed's, :func:`turf_gateway.feed.relay.feed_subjects`), through one source with one
    subject transform per subject (destination empty: the subject is kept). One source is one consumer of the event
    stream, so the feed keeps the events' order; its sequences are its own (1, 2, … for the feed's messages alone).
    The gateway's NATS user may create consumers on this stream only, so whatever filter it asks for, it reads no
    private subject (a filter cannot be checked against the permissions:
    https://github.com/nats-io/nats-server/issues/6180). A new feed stream sources the event stream from its start; a
    subject added later brings only its events from then on (the source goes on after the last event it copied, never
    copying one twice). Limits as the event stream's: ``max_bytes``
    (:func:`feed_max_bytes`); full, it takes no more (the source waits, and goes on where it stopped once there is
    room: a larger limit at the next set-up), so nothing is skipped."""
    js = jetstream(broker)
    name = feed_stream(stream)

    def config(start: int | None) -> jsapi.StreamConfig:
        source = jsapi.StreamSource(name=stream, opt_start_seq=start, subject_transforms=[
            jsapi.SubjectTransform(src=s, dest="") for s in subjects])
        return jsapi.StreamConfig(
            name=name, sources=[source], storage=jsapi.StorageType.FILE, retention=jsapi.RetentionPolicy.LIMITS,
            duplicate_window=600.0, max_age=0, num_replicas=replicas, max_bytes=max_bytes,
            max_msg_size=STREAM_MAX_MSG_SIZE, discard=jsapi.DiscardPolicy.NEW)

    def filters(c: jsapi.StreamConfig) -> list[tuple[str, set[str]]]:
        return [(src.name, {t.src for t in src.subject_transforms or []}
                 | ({src.filter_subject} if src.filter_subject else set())) for src in c.sources or []]

    async def once() -> None:
        try:
            c = (await js.stream_info(name)).config
        except NotFoundError:
            with contextlib.suppress(BadRequestError):
                await js.add_stream(config(None))   # a new feed: the event stream from its start
            await js.stream_info(name)
            return
        if filters(c) != [(stream, set(subjects))]:
            # the server takes other filters for a new source, which would copy the event stream from its start
            # again (every feed event twice, under new sequences): the new one starts after the last event copied
            # (one copied meanwhile is dropped by its Nats-Msg-Id, inside the duplicate window)
            await js.update_stream(config(await _last_sourced(broker, name) + 1))
        elif (c.subjects or c.max_bytes != max_bytes or c.max_msg_size != STREAM_MAX_MSG_SIZE
              or c.discard != jsapi.DiscardPolicy.NEW):
            await js.update_stream(config(c.sources[0].opt_start_seq if c.sources else None))

    await _patiently("stream " + name, once, patience)


async def _last_sourced(broker: NatsBroker, name: str) -> int:
    """The event stream's sequence of the last event the stream ``name`` copied from its source (``seq`` of the
    stream info's source, which nats-py leaves out); 0 before the first."""
    info = json.loads(bytes((await broker.request(b"", f"$JS.API.STREAM.INFO.{name}", timeout=5.0)).body))
    return max([int(s.get("seq") or 0) for s in info.get("sources") or []] or [0])


async def ensure_clock_kv(broker: NatsBroker, stream: str, replicas: int = 1) -> Any:
    """The set-up's part: the game clock's KV bucket (``<stream>_clock``), created when missing."""
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
    """The game clock's KV bucket (``<stream>_clock``). A service only looks it up (its NATS user may not
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
    """Keep ``turf_stream_fill_ratio`` current for the event stream and its feed stream (label
    ``stream``), forever (one process does it: the clock)."""
    from turf_common import metrics

    while True:
        for name in (stream, feed_stream(stream)):
            try:
                fill = await stream_fill(broker, name)
            except Exception as e:   # NATS away: the gauge keeps its last value, the next round tries again
                log.warning("stream_fill_unread", stream=name, error=f"{type(e).__name__}: {e}")
            else:
                metrics.STREAM_FILL.labels(name).set(fill)
                if fill >= 0.8:
                    log.error("stream_nearly_full", stream=name, fill=round(fill, 3))
        await asyncio.sleep(every)
