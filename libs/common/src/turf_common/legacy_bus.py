"""NATS adapter shared by every service: request/reply for commands, JetStream for events.

* Commands (``claims.submit``, ``geo.locate``, ``clock.set`` …) are core-NATS request/reply in a queue group
  named after the service, so replicas share the load.
* Events (``claim.accepted`` …) live in one JetStream stream. They are published from a service's outbox with
  ``Nats-Msg-Id`` = event id, so the stream drops a re-publish inside its duplicate window; consumers are durable
  pull consumers that ack only after their own commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import nats
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js import api as jsapi
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError
from pydantic import BaseModel

from turf_common import metrics, tracing
from turf_common.contracts.base import Refusal

log = structlog.get_logger(__name__)

T = TypeVar("T", bound=BaseModel)

#: Subjects captured by the event stream. Commands stay out of it.
EVENT_SUBJECTS = [
    "claim.>", "territory.>", "score.>", "card.>", "trade.>", "season.>", "correction.>", "player.>", "flag.>",
    "protection.>",
    # clock events by name: "clock.>" would also capture the clock.set command and answer it with a PubAck
    "clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed", "clock.season_ended",
]
CLOCK_BUCKET = "clock"  # suffix; the bucket is "<stream>_clock" so two stacks on one NATS stay apart


def server_list(url: str) -> list[str]:
    """``TURF_NATS_URL`` may name several servers of one cluster, comma-separated."""
    return [u.strip() for u in url.split(",") if u.strip()]


class BusError(RuntimeError):
    """A command could not be delivered or answered (no responder, timeout)."""


@dataclass(frozen=True)
class Delivery:
    subject: str
    data: bytes
    stream_seq: int
    num_delivered: int


class Bus:
    def __init__(self, nc: NATS, js: JetStreamContext, stream: str, replicas: int = 1) -> None:
        self.nc = nc
        self.js = js
        self.stream = stream
        self.replicas = replicas  # JetStream replicas of the stream and the clock bucket (3 on a cluster)
        self._tasks: list[asyncio.Task[None]] = []

    @classmethod
    async def connect(cls, url: str, name: str, stream: str = "TURF", replicas: int = 1) -> Bus:
        """``url`` may list several servers, comma-separated (a cluster); the client fails over between them."""
        nc = await nats.connect(servers=server_list(url), name=name, max_reconnect_attempts=-1,
                                reconnect_time_wait=0.5, connect_timeout=5)
        return cls(nc, nc.jetstream(timeout=10), stream, replicas)

    async def ensure_stream(self, patience: float = 60.0) -> None:
        """Create the event stream, or bring its subjects up to date. On a cluster that is still electing its
        JetStream leader the API times out for a while: keep trying for ``patience`` seconds."""
        cfg = jsapi.StreamConfig(
            name=self.stream, subjects=EVENT_SUBJECTS, storage=jsapi.StorageType.FILE,
            retention=jsapi.RetentionPolicy.LIMITS, duplicate_window=600.0, max_age=0, num_replicas=self.replicas,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while True:
            try:
                try:
                    info = await self.js.stream_info(self.stream)
                    if set(info.config.subjects or []) != set(EVENT_SUBJECTS):
                        await self.js.update_stream(cfg)
                except NotFoundError:
                    with contextlib.suppress(BadRequestError):  # a sibling service created it meanwhile
                        await self.js.add_stream(cfg)
                    await self.js.stream_info(self.stream)
                return
            except (nats.errors.TimeoutError, TimeoutError, ServiceUnavailableError):
                if loop.time() > deadline:
                    raise
                log.info("stream_not_ready_retrying", stream=self.stream)
                await asyncio.sleep(1.0)

    # ---- commands -------------------------------------------------------------------------------
    async def request(self, subject: str, msg: BaseModel, reply_model: type[T], timeout: float = 5.0) -> T:
        return reply_model.model_validate_json(await self.request_raw(subject, msg.model_dump_json().encode(), timeout))

    async def request_raw(self, subject: str, data: bytes, timeout: float = 5.0) -> bytes:
        """Send a command with the current trace context; the raw reply. Raises BusError when unanswered."""
        try:
            resp = await self.nc.request(subject, data, timeout=timeout, headers=tracing.outgoing_headers() or None)
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError) as e:
            raise BusError(f"{subject}: {type(e).__name__}") from e
        return bytes(resp.data)

    async def serve(self, subject: str, queue: str, handler: Callable[[bytes], Awaitable[BaseModel]]) -> None:
        """Answer ``subject`` with ``handler``'s model. Each request runs in its own task, so a slow
        decision on one territory does not hold up the others; a handler crash answers ``unavailable``."""

        async def on_msg(m: Msg) -> None:
            async def run() -> None:
                started = time.perf_counter()
                try:
                    with tracing.span(subject, m.headers):
                        out = await handler(m.data)
                    body = out.model_dump_json().encode()
                except Exception:
                    metrics.HANDLER_ERRORS.labels(metrics.SERVICE["name"], subject).inc()
                    log.exception("handler_failed", subject=subject)
                    body = Refusal(reason="unavailable", message="The service failed; try again.") \
                        .model_dump_json().encode()
                if m.reply:
                    await m.respond(body)
                metrics.HANDLER_SECONDS.labels(metrics.SERVICE["name"], subject).observe(time.perf_counter() - started)

            t = asyncio.create_task(run())
            self._tasks.append(t)
            t.add_done_callback(lambda x: self._tasks.remove(x) if x in self._tasks else None)

        await self.nc.subscribe(subject, queue=queue, cb=on_msg)

    # ---- events ---------------------------------------------------------------------------------
    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> jsapi.PubAck:
        headers = {"Nats-Msg-Id": msg_id}
        tp = traceparent or tracing.current_traceparent()
        if tp:
            headers["traceparent"] = tp
        return await self.js.publish(subject, data, stream=self.stream, headers=headers)

    async def consume(self, durable: str, subjects: list[str],
                      handler: Callable[[Delivery], Awaitable[None]], batch: int = 64) -> None:
        """Start a durable pull consumer and a task that hands each message to ``handler`` in stream
        order, acking after it returns. A raising handler gets the message again after a short delay."""
        cfg = jsapi.ConsumerConfig(
            durable_name=durable, filter_subjects=subjects, ack_policy=jsapi.AckPolicy.EXPLICIT,
            deliver_policy=jsapi.DeliverPolicy.ALL, ack_wait=30.0, max_ack_pending=1000,
        )
        try:
            await self.js.add_consumer(self.stream, cfg)
        except Exception:
            log.info("consumer_exists", durable=durable)
        sub = await self.js.pull_subscribe_bind(durable=durable, stream=self.stream)

        async def loop() -> None:
            while True:
                try:
                    msgs = await sub.fetch(batch, timeout=1.0)
                except (nats.errors.TimeoutError, TimeoutError):  # fetch raises either when nothing came
                    continue
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("fetch_failed", durable=durable, exc_info=True)
                    await asyncio.sleep(0.5)
                    continue
                for m in msgs:
                    md = m.metadata
                    d = Delivery(m.subject, m.data, md.sequence.stream, md.num_delivered)
                    svc = metrics.SERVICE["name"]
                    if d.num_delivered > 1:
                        metrics.REDELIVERIES.labels(svc, durable).inc()
                    started = time.perf_counter()
                    try:
                        with tracing.span(m.subject, m.headers):
                            await handler(d)
                        metrics.EVENTS_HANDLED.labels(svc, durable).inc()
                        metrics.HANDLER_SECONDS.labels(svc, m.subject).observe(time.perf_counter() - started)
                    except Exception:
                        metrics.HANDLER_ERRORS.labels(svc, m.subject).inc()
                        log.exception("event_handler_failed", subject=m.subject, seq=d.stream_seq)
                        await m.nak(delay=1.0)
                        break  # keep order: refetch from the failed one
                    # a plain ack, not ack_sync: no round trip per event. If the ack is lost the event comes again,
                    # and every handler is idempotent (inbox, versions); wait_idle still counts it as pending.
                    await m.ack()

        self._tasks.append(asyncio.create_task(loop()))

    async def consumers_idle(self) -> bool:
        """True when every durable consumer of the stream has nothing pending and nothing un-acked."""
        infos = await self.js.consumers_info(self.stream)
        return all(ci.num_pending == 0 and ci.num_ack_pending == 0 for ci in infos)

    async def wait_idle(self, timeout: float = 30.0) -> None:
        """Block until :meth:`consumers_idle` holds twice in a row (a handler may publish follow-up events
        just before it acks), or raise BusError after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        streak = 0
        while True:
            if await self.consumers_idle():
                streak += 1
                if streak >= 2:
                    return
            else:
                streak = 0
            if loop.time() > deadline:
                raise BusError("consumers did not catch up in time")
            await asyncio.sleep(0.02)

    # ---- key/value: the game clock ------------------------------------------------------------
    async def clock_kv(self) -> Any:
        bucket = f"{self.stream}_{CLOCK_BUCKET}"
        for attempt in range(60):   # as for the stream: a forming cluster answers late
            try:
                try:
                    return await self.js.key_value(bucket)
                except NotFoundError:
                    return await self.js.create_key_value(bucket=bucket, history=5, replicas=self.replicas)
            except (nats.errors.TimeoutError, TimeoutError, ServiceUnavailableError, BadRequestError):
                if attempt == 59:
                    raise
                await asyncio.sleep(1.0)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        try:
            await asyncio.wait_for(self.nc.drain(), 3)
        except Exception:
            with contextlib.suppress(Exception):
                await self.nc.close()
