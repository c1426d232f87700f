"""Our fixes to FastStream 0.7 and nats-py 2.16, in one place. :func:`apply_fixes` applies the three that replace a
method (once per process; :func:`turf_common.bus.make_broker` calls it, so every broker of ours runs with them);
:data:`OWN_INBOXES` and :class:`ContextNow` are arguments our subscribers pass instead.

Each has a test in ``libs/common/tests/test_bus_fixes.py`` that reproduces the defect without the fix, against a
real NATS server: when an upgrade mends it upstream, that test fails and says the fix can go."""

from __future__ import annotations

import asyncio
from typing import Any

import nats
import structlog
from faststream._internal.context import Context as ContextField  # the class behind faststream.Context()
from nats.js.errors import ServiceUnavailableError

log = structlog.get_logger(__name__)

_applied: list[str] = []


def apply_fixes() -> None:
    """Apply :func:`one_fetch_per_round`, :func:`bounded_workers_on_asyncio` and :func:`draining_stop`
    (idempotent)."""
    if _applied:
        return
    one_fetch_per_round()
    bounded_workers_on_asyncio()
    draining_stop()
    _applied.append("done")


def one_fetch_per_round() -> None:
    """A durable consumer's pull loop waits for the first event alone, then takes what is already there after it,
    and hands them on at once.

    Defect 1 (FastStream 0.7.8, on purpose since https://github.com/ag2ai/faststream/issues/2219): its batch pull
    loop keeps fetching until the batch is full or its timeout has passed, so events already in the stream wait
    out the timeout unless 64 are there at once.

    The wait itself is for one event (``fetch(batch=1)``, answered as it comes), so the pull timeout can be long:
    one pull request per timeout while idle. At 0.1 s, the eight consumers of a stack cost ~10 % of a core doing
    nothing (CPU in every consumer and in NATS); the first event's ``num_pending`` then says how many more are
    there, and a second fetch takes those at once (its no-wait request answers them).

    Defect 2 (nats-py 2.15 and 2.16, https://github.com/nats-io/nats.py/pull/1008, open): ``fetch`` raises the
    built-in ``TimeoutError`` instead of ``nats.errors.TimeoutError`` when its deadline runs out after the no-wait
    probe. FastStream's loop catches only the latter, so the loop task dies, FastStream restarts it, and the
    events it had fetched in that round are neither handled nor acked: they come back after the 30 s ack wait,
    behind later ones. This loop catches both, and hands on the first event when the fetch of the rest fails.
    Other errors than an empty wait are FastStream's own (a dropped connection: the unacked events come back after
    the ack wait)."""
    from faststream.nats.subscriber.usecases.stream_pull_subscriber import BatchPullStreamSubscriber

    async def take(self: Any) -> list[Any]:
        sub = self.subscription
        messages = list(await sub.fetch(batch=1, timeout=self.pull_sub.timeout))
        more = min(self.pull_sub.batch_size - 1, messages[-1].metadata.num_pending if messages else 0)
        if more > 0:
            try:
                messages += await sub.fetch(batch=more, timeout=REST_WAIT)
            except (nats.errors.TimeoutError, TimeoutError):
                pass   # another replica took them, or nats-py's built-in timeout: the first goes on alone
        return messages

    async def consume_pull(self: Any) -> None:
        assert self.subscription, "You should call `create_subscription` at first."
        while self.running:
            try:
                messages = await take(self)
            except (nats.errors.TimeoutError, TimeoutError):
                continue
            except (nats.errors.ConnectionClosedError, ServiceUnavailableError):
                await asyncio.sleep(0.5)
                continue
            if messages and self.running:
                await self.consume(messages)

    BatchPullStreamSubscriber._consume_pull = consume_pull  # type: ignore[method-assign]


#: the fetch of the events already there after the first (:func:`one_fetch_per_round`): they are in the stream, so
#: its no-wait request answers them at once; this bounds the wait when another replica took them meanwhile
REST_WAIT = 0.1


def bounded_workers_on_asyncio() -> None:
    """A command subscriber's concurrency bound (``max_workers``) on an asyncio semaphore and one task per request.

    Defect (FastStream 0.7.8 on anyio 4.16): the bound is an anyio memory stream, an anyio semaphore and a task
    group, 0.24 ms of CPU per request on top of the handler (measured; anyio asks which event loop runs at every
    step; https://github.com/agronholm/anyio/issues/1005 for its memory streams). An asyncio semaphore gives the
    same bound: the NATS callback waits while ``max_workers`` requests run, so the subscription's pending buffer
    takes the back-pressure. Graceful stop is unchanged: each request holds the subscriber's lock while it runs
    (``consume``)."""
    from faststream.nats.subscriber.usecases.core_subscriber import ConcurrentCoreSubscriber

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

    ConcurrentCoreSubscriber.start_consume_task = start_consume_task  # type: ignore[method-assign]
    ConcurrentCoreSubscriber._put_msg = put_msg  # type: ignore[method-assign]


def draining_stop() -> None:
    """A command subscriber's graceful stop answers every request the process has taken.

    Defect (FastStream 0.7.8): ``stop`` first marks the subscriber stopped, waits for the handlers that run, then
    unsubscribes. Requests already delivered to the process but waiting for a worker (in the subscription's
    pending buffer, or their task not yet begun) are then dropped unanswered: their requester (geo-verify, for a
    claim) waits out its whole timeout for a request the server handed to nobody else. Here the subscription is
    drained first (nats-py ``Subscription.drain``: the server sends no more, the delivered ones are handed to the
    handler), the requests it began are awaited, and only then does FastStream's stop run (nothing left to wait
    for). All within the broker's ``graceful_timeout``; a connection already closed has nothing to drain."""
    from faststream.nats.subscriber.usecases.core_subscriber import CoreSubscriber

    stop = CoreSubscriber.stop

    async def draining(self: Any) -> None:
        sub, timeout = self.subscription, self._outer_config.graceful_timeout
        if sub is not None and self.running:
            try:
                await asyncio.wait_for(sub.drain(), timeout)
                self.subscription = None   # drained: nats-py has removed it, nothing to unsubscribe
            except Exception as e:   # closed, draining or timed out: FastStream's stop as it was
                log.warning("subscription_not_drained", subject=sub.subject, error=f"{type(e).__name__}: {e}")
            if running := getattr(self, "_turf_running", None):
                await asyncio.wait(list(running), timeout=timeout)
        await stop(self)

    CoreSubscriber.stop = draining  # type: ignore[method-assign]


#: Subscriber arguments for a pull consumer's deliveries to come to the connection's own inboxes.
#:
#: Defect (FastStream 0.7.8): a pull subscriber passes its ``inbox_prefix`` argument, ``_INBOX.`` by default, to
#: nats-py's ``pull_subscribe`` explicitly, overriding the connection's ``inbox_prefix`` (``_INBOX.<name>``,
#: :func:`turf_common.bus.make_broker`): a service user allowed only its own inboxes would be refused
#: its consumers' deliveries. ``None`` lets nats-py 2.16 use the connection's own (it does since
#: https://github.com/nats-io/nats.py/issues/777; no FastStream report found).
OWN_INBOXES: dict[str, Any] = {"inbox_prefix": None}


class ContextNow(ContextField):
    """FastStream's ``Context`` field resolved on the event loop.

    Defect (FastStream 0.7.8 with fast_depends 3.0): fast_depends runs a custom field's synchronous ``use`` in a
    worker thread (anyio ``to_thread``): a thread hop for every batch, measured at 3.3 ms p50 and 11.7 ms p90
    between the fetch and the handler in scoring at a paced 5 claims/s (the thread waits for the GIL behind the
    event loop). A lookup in a dict needs no thread."""

    async def use(self, /, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().use(**kwargs)
