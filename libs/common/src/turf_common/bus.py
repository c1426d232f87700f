"""The services' messaging, on FastStream: one broker factory and the few helpers no library has.

* Commands (``claims.submit``, ``geo.locate`` …) are typed FastStream subscribers in a queue group named after the
  service, with bounded concurrency (``max_workers``); the argument is the pydantic contract, the return value the
  reply. :func:`ask` sends one and decodes the reply (or a :class:`Refusal`).
* Events live in one JetStream stream (:func:`ensure_stream`). Services publish them from their outbox with
  ``Nats-Msg-Id`` = event id (:class:`EventPublisher`), so the stream drops a re-publish inside its duplicate window.
  Consumers are durable pull subscribers taking ordered batches with explicit acks (:func:`durable`,
  :func:`settle`).
* :func:`wait_idle` (tests, ``simulate`` and the manual clock only) waits until every consumer has caught up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Annotated, Any, TypeVar

import nats
import structlog
from faststream import ExceptionMiddleware
from faststream._internal.context import Context as ContextField  # the class behind faststream.Context()
from faststream.middlewares import AckPolicy, BaseMiddleware
from faststream.nats import JStream, NatsBroker, PullSub
from faststream.nats.message import NatsBatchMessage
from nats.js import JetStreamContext
from nats.js import api as jsapi
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError
from pydantic import ValidationError

from turf_common import metrics, tracing
from turf_common.contracts.base import Message, Refusal, decode_reply

log = structlog.get_logger(__name__)

M = TypeVar("M", bound=Message)
E = TypeVar("E")

#: Subjects captured by the event stream. Commands stay out of it.
EVENT_SUBJECTS = [
    "claim.>", "territory.>", "score.>", "card.>", "trade.>", "season.>", "correction.>", "player.>", "flag.>",
    "protection.>", "notification.>", "announcement.>",
    # clock events by name: "clock.>" would also capture the clock.set command and answer it with a PubAck
    "clock.season_started", "clock.week_started", "clock.day_started", "clock.day_closed", "clock.season_ended",
]
CLOCK_BUCKET = "clock"  # suffix; the bucket is "<stream>_clock" so two stacks on one NATS stay apart
#: A consumer takes at most this many events at once: whatever the stream holds for it when it asks, or, when it
#: holds nothing, the first to arrive within PULL_WAIT seconds (one pull request per PULL_WAIT while idle). The wait
#: is short because nats-py may keep a fetch open for the rest of a batch until its timeout when an earlier pull
#: request is still pending on the server (seen: an event held 0.9 s with 5 s): PULL_WAIT bounds that delay.
BATCH_SIZE = 64
PULL_WAIT = 0.1


class _ContextNow(ContextField):
    """FastStream's ``Context`` resolved on the event loop. fast_depends runs a custom field's synchronous ``use``
    in a worker thread (anyio ``to_thread``): a thread hop for every batch, measured at 3.3 ms p50 and 11.7 ms p90
    between the fetch and the handler in scoring at a paced 5 claims/s (the thread waits for the GIL behind the
    event loop). A lookup in a dict needs no thread."""

    async def use(self, /, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().use(**kwargs)


#: The fetched batch itself, as a durable consumer's handler parameter (``batch: Batch``), for :func:`settle`.
Batch = Annotated[NatsBatchMessage, _ContextNow("message")]


def _normalise_fetch_timeouts() -> None:
    """nats-py 2.16's ``PullSubscription.fetch`` sometimes raises the built-in ``TimeoutError`` (from an
    ``asyncio.wait_for``) where it means ``nats.errors.TimeoutError``; FastStream 0.7's batch pull loop catches only
    the latter, so the loop task dies, FastStream restarts it, and the events it had already fetched in that round
    are neither handled nor acked: they come back after the 30 s ack wait, behind later ones. Raise the error
    FastStream expects (once per process; the old layer caught both)."""
    cls = JetStreamContext.PullSubscription
    if getattr(cls.fetch, "_turf_normalised", False):
        return
    fetch = cls.fetch

    async def normalised(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await fetch(self, *args, **kwargs)
        except nats.errors.TimeoutError:
            raise
        except TimeoutError as e:
            raise nats.errors.TimeoutError from e

    normalised._turf_normalised = True  # type: ignore[attr-defined]
    cls.fetch = normalised  # type: ignore[method-assign]


def _take_what_is_there() -> None:
    """FastStream 0.7's batch pull keeps fetching until the batch is full or its timeout has passed, so every event
    waits out the timeout unless 64 arrive at once: a short timeout means a pull request every few milliseconds
    while idle (CPU in every consumer and in NATS), a long one means latency. nats-py's own ``fetch`` already does
    what an ordered consumer wants — everything available now, else wait for the first — so each round here is
    one fetch, handed on as it is. Errors other than an empty wait are FastStream's own (a dropped connection: the
    unacked events come back after the ack wait)."""
    from faststream.nats.subscriber.usecases.stream_pull_subscriber import BatchPullStreamSubscriber

    if getattr(BatchPullStreamSubscriber._consume_pull, "_turf_one_fetch", False):
        return

    async def consume_pull(self: Any) -> None:
        assert self.subscription, "You should call `create_subscription` at first."
        while self.running:
            try:
                messages = await self.subscription.fetch(batch=self.pull_sub.batch_size,
                                                         timeout=self.pull_sub.timeout)
            except (nats.errors.TimeoutError, TimeoutError):
                continue
            except (nats.errors.ConnectionClosedError, ServiceUnavailableError):
                await asyncio.sleep(0.5)
                continue
            if messages and self.running:
                await self.consume(messages)

    consume_pull._turf_one_fetch = True  # type: ignore[attr-defined]
    BatchPullStreamSubscriber._consume_pull = consume_pull  # type: ignore[method-assign]


def _cheaper_max_workers() -> None:
    """FastStream 0.7 bounds a core subscriber's concurrency (``max_workers``) with an anyio memory stream, an
    anyio semaphore and a task group: 0.24 ms of CPU per request on top of the handler (measured; anyio asks which
    event loop runs at every step). An asyncio semaphore and one task per request give the same bound — the NATS
    callback waits while ``max_workers`` requests run, so the subscription's pending buffer takes the back-pressure
    — and graceful stop is unchanged: each request holds the subscriber's lock while it runs (``consume``)."""
    from faststream.nats.subscriber.usecases.core_subscriber import ConcurrentCoreSubscriber

    if getattr(ConcurrentCoreSubscriber._put_msg, "_turf_cheap", False):
        return

    def start_consume_task(self: Any) -> None:
        self._turf_slots = asyncio.Semaphore(self.max_workers)
        self._turf_running = set()

    async def put_msg(self: Any, msg: Any) -> None:
        await self._turf_slots.acquire()
        task = asyncio.create_task(self.consume(msg))
        self._turf_running.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._turf_running.discard(t)
            self._turf_slots.release()

        task.add_done_callback(done)

    put_msg._turf_cheap = True  # type: ignore[attr-defined]
    ConcurrentCoreSubscriber.start_consume_task = start_consume_task  # type: ignore[method-assign]
    ConcurrentCoreSubscriber._put_msg = put_msg  # type: ignore[method-assign]


def _own_inboxes() -> None:
    """FastStream 0.7 hands every pull subscription its default inbox prefix ``_INBOX.`` explicitly, which
    overrides the connection's ``inbox_prefix`` (:func:`make_broker`): a service user allowed only its own inboxes
    (issue 15) would be refused its consumers' deliveries. That default means "the connection's own" here."""
    pull_subscribe = JetStreamContext.pull_subscribe
    if getattr(pull_subscribe, "_turf_own_inbox", False):
        return

    async def own_inbox(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("inbox_prefix") == jsapi.INBOX_PREFIX:
            kwargs["inbox_prefix"] = None
        return await pull_subscribe(self, *args, **kwargs)

    own_inbox._turf_own_inbox = True  # type: ignore[attr-defined]
    JetStreamContext.pull_subscribe = own_inbox  # type: ignore[method-assign]


_normalise_fetch_timeouts()
_take_what_is_there()
_cheaper_max_workers()
_own_inboxes()


def server_list(url: str) -> list[str]:
    """``TURF_NATS_URL`` may name several servers of one cluster, comma-separated."""
    return [u.strip() for u in url.split(",") if u.strip()]


class BusError(RuntimeError):
    """A command could not be delivered or answered (no responder, timeout)."""


class Observed(BaseMiddleware):
    """Every handled message is timed and counted (Prometheus) and runs in a span continuing the sender's trace."""

    async def consume_scope(self, call_next: Callable[[Any], Awaitable[Any]], msg: Any) -> Any:
        raw = msg.raw_message
        first = raw[0] if isinstance(raw, list) and raw else raw
        subject = getattr(first, "subject", "") or ""
        if subject.startswith("_INBOX."):
            # a reply to our own request (the broker runs it through its middlewares too): not a handled message,
            # and its unique inbox subject would make a new metric series per request
            return await call_next(msg)
        svc = metrics.SERVICE["name"]
        started = time.perf_counter()
        try:
            with tracing.span(subject, getattr(first, "headers", None)):
                return await call_next(msg)
        except Exception:
            metrics.HANDLER_ERRORS.labels(svc, subject).inc()
            raise
        finally:
            metrics.HANDLER_SECONDS.labels(svc, subject).observe(time.perf_counter() - started)


def _invalid(exc: ValidationError) -> Refusal:
    """The reply of a command whose body does not fit its contract (a sender's bug: our services send them)."""
    log.warning("command_invalid", errors=exc.errors(include_url=False, include_input=False))
    return Refusal(reason="invalid_input", message="The command does not fit its contract.")


def _unavailable(exc: Exception) -> Refusal:
    """The reply of a command whose handler raised: the requester learns at once instead of timing out."""
    log.error("handler_failed", error=f"{type(exc).__name__}: {exc}")
    return Refusal(reason="unavailable", message="The service failed; try again.")


def make_broker(nats_url: str, name: str, graceful_timeout: float = 15.0, observe: bool = True) -> NatsBroker:
    """A broker for one process. ``nats_url`` may list a cluster's servers (comma-separated); the client fails over
    between them and reconnects forever. On stop, subscribers stop taking messages and in-flight handlers get
    ``graceful_timeout`` seconds to finish before the connection drains. Per-message access logs are off (they cost
    more than the handlers); failures are logged by the handlers' middleware. ``observe=False`` leaves out the
    per-message span and metrics (the gateway's spectator feed relays every event and serves no command).

    Credentials come in the URL (``nats://user:password@host:port``, issue 15). Replies and JetStream deliveries
    come to inboxes under ``_INBOX.<name>.``, so a server can let each service user subscribe to its own inboxes
    only (``_INBOX.>`` would let it read every other process's replies: hands, sessions' answers)."""
    replies = ExceptionMiddleware(publish_handlers={ValidationError: _invalid, Exception: _unavailable})
    middlewares: list[Any] = [replies]
    if observe:
        middlewares.append(Observed)
    return NatsBroker(
        server_list(nats_url), name=name, max_reconnect_attempts=-1, reconnect_time_wait=0.5,  # type: ignore[arg-type]
        connect_timeout=5, graceful_timeout=graceful_timeout, logger=None, middlewares=middlewares,
        inbox_prefix=inbox_prefix(name),
    )


def inbox_prefix(name: str) -> str:
    """``_INBOX.<name>`` (``name`` reduced to a subject token: letters, digits, ``-`` and ``_``)."""
    token = "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "anon"
    return f"_INBOX.{token}"


def jetstream(broker: NatsBroker) -> JetStreamContext:
    """The broker's JetStream context (stream and consumer management, KV)."""
    return broker.config.connection_state.stream  # type: ignore[no-any-return]


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


# ---- commands -----------------------------------------------------------------------------------------------------
async def ask(broker: NatsBroker, subject: str, msg: Message, reply: type[M],
              timeout: float = 5.0) -> M | Refusal:
    """Send a command with the current trace context and decode its reply: ``reply`` or the service's
    :class:`Refusal`. Raises :class:`BusError` when nobody answers in ``timeout`` seconds."""
    return decode_reply(await ask_raw(broker, subject, msg, timeout), reply)  # type: ignore[return-value]


async def ask_raw(broker: NatsBroker, subject: str, msg: Message | bytes, timeout: float = 5.0) -> bytes:
    """As :func:`ask`, the reply's JSON undecoded (the gateway forwards most replies as they are)."""
    body = msg if isinstance(msg, bytes) else msg.model_dump_json().encode()
    try:
        resp = await broker.request(body, subject, timeout=timeout, headers=tracing.outgoing_headers())
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError) as e:
        raise BusError(f"{subject}: {type(e).__name__}") from e
    return bytes(resp.body)


# ---- events -------------------------------------------------------------------------------------------------------
class EventPublisher:
    """Publishes one committed outbox row to the stream with ``Nats-Msg-Id`` = event id (the outbox relay's port).
    JetStream acknowledges each publish, so a row is marked sent only once the stream holds it."""

    def __init__(self, broker: NatsBroker, stream: str) -> None:
        self.broker, self.stream = broker, stream

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        headers = {"Nats-Msg-Id": msg_id}
        tp = traceparent or tracing.current_traceparent()
        if tp:
            headers["traceparent"] = tp
        await jetstream(self.broker).publish(subject, data, stream=self.stream, headers=headers)

    async def publish_many(self, rows: Sequence[tuple[str, bytes, str, str | None]], timeout: float = 5.0) -> None:
        """Several rows ``(subject, data, msg_id, traceparent)`` in order, their acknowledgements awaited together
        (issue 21: one round trip for an outbox flush instead of one per row). The stream stores them in the
        order sent (one connection); raises if any is not acknowledged within ``timeout`` seconds, and then the
        caller sends them all again (the stream drops what it already has, by ``Nats-Msg-Id``)."""
        js = jetstream(self.broker)
        acks = []
        for subject, data, msg_id, traceparent in rows:
            headers = {"Nats-Msg-Id": msg_id}
            tp = traceparent or tracing.current_traceparent()
            if tp:
                headers["traceparent"] = tp
            acks.append(await js.publish_async(subject, data, stream=self.stream, headers=headers))
        try:
            await asyncio.wait_for(asyncio.gather(*acks), timeout)
        except BaseException:
            for a in acks:
                a.cancel()
            raise


def durable(stream: str, name: str, subjects: Sequence[str], batch: int = BATCH_SIZE) -> dict[str, Any]:
    """Keyword arguments of ``router.subscriber`` for a durable pull consumer ``name`` of ``subjects``: it takes
    ordered batches (at most ``batch`` events: what is there, or the first to come within :data:`PULL_WAIT`
    seconds) from the start of the stream, and the
    handler acks explicitly with :func:`settle`::

        @router.subscriber(**durable(stream, "scoring", [subjects.TERRITORY_CHANGED, ...]))
        async def on_events(events: list[ScoringEvent], batch: Batch) -> None:
            await settle(batch, events, handlers.on_event, "scoring")
    """
    return {
        "stream": JStream(stream, declare=False),
        "durable": name,
        "config": jsapi.ConsumerConfig(
            durable_name=name, filter_subjects=list(subjects), ack_policy=jsapi.AckPolicy.EXPLICIT,
            deliver_policy=jsapi.DeliverPolicy.ALL, ack_wait=30.0, max_ack_pending=1000),
        "pull_sub": PullSub(batch_size=batch, timeout=PULL_WAIT, batch=True),
        "ack_policy": AckPolicy.MANUAL,
    }


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
    """Handle a fetched batch as one unit of work (issue 21: one transaction, one publish, one Redis round trip per
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


def caught_up(listing: bytes, durable_only: bool = False) -> bool:
    """Whether a ``$JS.API.CONSUMER.LIST.<stream>`` reply shows every (durable) consumer with nothing pending and
    nothing un-acked. On a cluster a consumer whose leader is being elected (a node just died) is named under
    ``missing`` and counts as not caught up: nats-py's ``consumers_info`` drops that list, so a consumer between
    leaders looked idle (CI saw scoring's, while it had taken none of 440 claims). An error reply is not caught up."""
    resp = json.loads(listing)
    if resp.get("error") or resp.get("missing"):
        return False
    return all(c["num_pending"] == 0 and c["num_ack_pending"] == 0 for c in resp.get("consumers") or []
               if not durable_only or c["config"].get("durable_name"))


async def consumers_idle(broker: NatsBroker, stream: str) -> bool:
    """True when every consumer of the stream has nothing pending and nothing un-acked (:func:`caught_up`)."""
    try:
        resp = await broker.request(b"", f"$JS.API.CONSUMER.LIST.{stream}", timeout=5.0)
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError):
        return False
    return caught_up(bytes(resp.body))


async def wait_idle(broker: NatsBroker, stream: str, timeout: float = 30.0) -> None:
    """Block until :func:`consumers_idle` holds twice in a row (a handler may publish follow-up events just
    before it acks), or raise :class:`BusError` after ``timeout`` seconds. For tests, ``simulate`` and the manual
    clock only: production code never waits for the whole system."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    streak = 0
    while True:
        if await consumers_idle(broker, stream):
            streak += 1
            if streak >= 2:
                return
        else:
            streak = 0
        if loop.time() > deadline:
            raise BusError("consumers did not catch up in time")
        await asyncio.sleep(0.02)


def quiet_faststream() -> None:
    """FastStream's own logger only for warnings (its per-message lines are off in :func:`make_broker`)."""
    logging.getLogger("faststream").setLevel(logging.WARNING)
