"""Durable consumers: pull subscribers of the event stream taking ordered batches, acked event by event once
handled (:func:`settle`) or batch by batch (:func:`settle_batch`), and the retirement of outdated consumers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Annotated, Any, TypeVar

import structlog
from faststream.middlewares import AckPolicy
from faststream.nats import JStream, PullSub
from faststream.nats.message import NatsBatchMessage
from nats.js import JetStreamContext
from nats.js import api as jsapi
from nats.js.errors import NotFoundError

from turf_common import metrics, tracing
from turf_common.bus.fixes import OWN_INBOXES, ContextNow

log = structlog.get_logger(__name__)

E = TypeVar("E")

#: A consumer takes at most this many events at once: the first to arrive, handed on as it comes, with whatever the
#: stream holds after it (turf_common.bus.fixes.one_fetch_per_round); while idle, one pull request per PULL_WAIT
#: seconds (at 0.1 s, the eight consumers of a stack cost ~10 % of a core doing nothing).
BATCH_SIZE = 64
PULL_WAIT = 5.0

#: The fetched batch itself, as a durable consumer's handler parameter (``batch: Batch``), for :func:`settle`.
Batch = Annotated[NatsBatchMessage, ContextNow("message")]


def durable(stream: str, name: str, subjects: Sequence[str], batch: int = BATCH_SIZE) -> dict[str, Any]:
    """Keyword arguments of ``router.subscriber`` for a durable pull consumer ``name`` of ``subjects``: it takes
    ordered batches (at most ``batch`` events: what is there, or the first to come within :data:`PULL_WAIT`
    seconds) from the start of the stream, to the process's own inboxes, and the handler acks explicitly with
    :func:`settle`. The consumer itself is the bus set-up's (:func:`consumer_config`): the subscriber
    binds to it (nats-py asks its info and declares nothing when it exists)::

        @router.subscriber(**durable(stream, "scoring", [subjects.TERRITORY_CHANGED, ...]))
        async def on_events(events: list[ScoringEvent], batch: Batch) -> None:
            await settle(batch, events, handlers.on_event, "scoring")
    """
    return {
        "stream": JStream(stream, declare=False),
        "durable": name,
        "config": consumer_config(name, subjects),
        "pull_sub": PullSub(batch_size=batch, timeout=PULL_WAIT, batch=True),
        "ack_policy": AckPolicy.MANUAL,
        **OWN_INBOXES,
    }


def consumer_config(name: str, subjects: Sequence[str]) -> jsapi.ConsumerConfig:
    """The configuration of durable consumer ``name``, as the bus set-up declares it (``turfwar bus-setup``,
    with the set-up user: no service may create, change or delete a consumer) and as its service binds to it
    (:func:`durable`; nats-py binds to an existing durable without declaring it)."""
    return jsapi.ConsumerConfig(
        name=name, durable_name=name, filter_subjects=list(subjects), ack_policy=jsapi.AckPolicy.EXPLICIT,
        deliver_policy=jsapi.DeliverPolicy.ALL, ack_wait=30.0, max_ack_pending=1000)


async def settle(msg: NatsBatchMessage, events: Iterable[E], handle: Callable[[E], Awaitable[None]],
                 durable_name: str, retry_delay: float = 0.2, max_delay: float = 5.0) -> None:
    """Handle a fetched batch in stream order, acking each event once ``handle`` returns (handlers are idempotent,
    so a lost ack only brings the event again). An event whose handler raises is retried here, after
    ``retry_delay`` seconds doubling up to ``max_delay``, until it succeeds; meanwhile it and the rest of the batch
    are marked in progress, so the server neither redelivers them nor hands later events to anyone: nothing after
    a failure is applied before it, and nothing waits for the 30 s ack wait. A failing event shows in the logs and
    in ``turf_handler_errors_total``; a stop (SIGTERM) ends the wait, and the unacked events come again after."""
    svc = metrics.SERVICE["name"]
    raws = list(msg.raw_message)
    for i, (raw, ev) in enumerate(zip(raws, events, strict=True)):
        delivered, seq = _delivery(raw)
        if delivered > 1:
            metrics.REDELIVERIES.labels(svc, durable_name).inc()
        attempt = 0
        while True:
            try:
                with tracing.span(raw.subject, raw.headers):
                    await handle(ev)
                break
            except Exception:
                attempt += 1
                log.exception("event_handler_failed", subject=raw.subject, seq=seq, attempt=attempt)
                metrics.HANDLER_ERRORS.labels(svc, raw.subject).inc()
                for waiting in raws[i:]:
                    await waiting.in_progress()
                await asyncio.sleep(min(retry_delay * 2 ** (attempt - 1), max_delay))
        metrics.EVENTS_HANDLED.labels(svc, durable_name).inc()
        await raw.ack()


async def settle_batch(msg: NatsBatchMessage, events: Sequence[E], handle_all: Callable[[Sequence[E]], Awaitable[None]],
                       handle: Callable[[E], Awaitable[None]], durable_name: str) -> None:
    """Handle a fetched batch as one unit of work (one transaction, one publish, one Redis round trip per
    batch instead of per event), acking every event once ``handle_all`` returns. ``handle_all`` must apply the
    events in order, either all or nothing (one transaction) or idempotently per event, like ``handle``. Should it
    raise, nothing of it counts and the batch is handled again one event at a time by :func:`settle`, so a
    failing event is retried alone, in order, and never holds back the ones before it."""
    if len(events) > 1:
        try:
            with tracing.span(f"{durable_name}.batch", None):
                await handle_all(events)
        except Exception:
            log.warning("event_batch_failed_one_at_a_time", consumer=durable_name, events=len(events),
                        exc_info=True)
        else:
            svc = metrics.SERVICE["name"]
            for raw in msg.raw_message:
                if _delivery(raw)[0] > 1:
                    metrics.REDELIVERIES.labels(svc, durable_name).inc()
                metrics.EVENTS_HANDLED.labels(svc, durable_name).inc()
                await raw.ack()
            return
    await settle(msg, events, handle, durable_name)


def _delivery(raw: Any) -> tuple[int, int | None]:
    """(times delivered, stream sequence) of a JetStream message; (1, None) for one that is not (FastStream's
    TestNatsBroker delivers plain messages, so services can unit-test their consumers without a server)."""
    try:
        md = raw.metadata
    except Exception:
        return 1, None
    return md.num_delivered, md.sequence.stream


async def retire_consumers(js: JetStreamContext, stream: str, durable: str, subjects: Sequence[str],
                           obsolete: Iterable[str] = ()) -> None:
    """Before a service's subscribers start: delete the ``obsolete`` durable consumers of its earlier versions
    (nobody consumes them any more, so they would stay pending for ever, and ``wait_idle`` counts every consumer),
    and ``durable`` itself if it was made for other ``subjects`` (a durable consumer is reused as it is, filter
    included). The recreated consumer reads its subjects from the start of the stream again; its handlers are
    idempotent (inbox), so what an earlier consumer applied is not applied twice, and what the obsolete ones had not
    reached yet is not lost."""
    for name in obsolete:
        with contextlib.suppress(NotFoundError):
            await js.delete_consumer(stream, name)
            log.info("consumer_retired", consumer=name)
    try:
        info = await js.consumer_info(stream, durable)
    except NotFoundError:
        return
    cfg = info.config
    had = set(cfg.filter_subjects or ([cfg.filter_subject] if cfg.filter_subject else []))
    if had != set(subjects):
        with contextlib.suppress(NotFoundError):
            await js.delete_consumer(stream, durable)
        log.info("consumer_recreated", consumer=durable, subjects=sorted(subjects), was=sorted(had))
