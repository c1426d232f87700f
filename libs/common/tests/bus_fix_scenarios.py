"""The defects :mod:`turf_common.bus.fixes` works around, each as a scenario against a real NATS server, run in a
fresh process with or without the fixes (``python bus_fix_scenarios.py <nats url> fixed|unfixed``): the fixes
patch FastStream's classes, so a process that has applied them cannot show the defects any more. Prints one JSON
object of observations; ``test_bus_fixes.py`` judges them."""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import json
import pstats
import sys
import time
import uuid
from typing import Any

import nats
from faststream.nats import JStream, NatsBroker, NatsRouter, PullSub
from nats.js import api as jsapi
from nats.js.client import JetStreamContext

from turf_common.bus import fixes
from turf_common.bus.broker import inbox_prefix


def broker(url: str, name: str) -> NatsBroker:
    """A bare broker with our inboxes; :func:`turf_common.bus.make_broker` would apply the fixes."""
    return NatsBroker(url, name=name, logger=None, inbox_prefix=inbox_prefix(name))


async def new_stream(js: Any) -> tuple[str, str]:
    name = "FIX" + uuid.uuid4().hex[:8].upper()
    subject = f"fix.{name.lower()}"
    await js.add_stream(jsapi.StreamConfig(name=name, subjects=[subject + ".>"], storage=jsapi.StorageType.MEMORY))
    return name, subject


async def _first_batch(url: str, name: str, idle: float | None) -> float:
    """Seconds until a batch consumer (64 at most, 1 s pull timeout) hands on its first batch, 3 at most: of 5 events
    already in the stream when it starts (``idle`` None; counted from its start), or of one event published once it
    has been idle ``idle`` seconds (counted from the publish)."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    stream, subject = await new_stream(js)
    for n in range(5 if idle is None else 0):
        await js.publish(f"{subject}.e", str(n).encode(), stream=stream)
    got = asyncio.Event()
    router = NatsRouter()

    @router.subscriber(f"{subject}.>", stream=JStream(stream, declare=False), durable=name,
                       pull_sub=PullSub(batch_size=64, timeout=1.0, batch=True))
    async def on_events(events: list[int]) -> None:
        got.set()

    br = broker(url, f"fix-{name}")
    br.include_router(router)
    began = time.perf_counter()
    await br.start()
    try:
        if idle is not None:
            await asyncio.sleep(idle)   # the consumer's pull request waits on the server
            began = time.perf_counter()
            await js.publish(f"{subject}.e", b"1", stream=stream)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(got.wait(), 3)
        return time.perf_counter() - began
    finally:
        await br.stop()
        await js.delete_stream(stream)
        await nc.close()


async def waiting_for_a_full_batch(url: str) -> float:
    """Seconds until a batch consumer hands on any of 5 events already in the stream (FastStream's loop may also die
    of nats-py's built-in TimeoutError with them in hand, and then they wait for the 30 s ack wait)."""
    return await _first_batch(url, "full", idle=None)


async def an_event_while_idle(url: str) -> float:
    """Seconds until a batch consumer, idle for 0.3 s, hands on one event published then."""
    return await _first_batch(url, "idle", idle=0.3)


async def builtin_timeouts(url: str, tries: int = 1000) -> int:
    """After how many short fetches on an empty consumer the first raises the built-in ``TimeoutError`` rather than
    ``nats.errors.TimeoutError``, nats-py's own (0: none of ``tries`` did)."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    stream, subject = await new_stream(js)
    sub = await js.pull_subscribe(f"{subject}.>", durable="empty", stream=stream)
    try:
        for i in range(tries):
            try:
                await sub.fetch(64, timeout=0.0002 + 0.0001 * (i % 20))
            except nats.errors.TimeoutError:
                pass
            except TimeoutError:
                return i + 1
        return 0
    finally:
        await js.delete_stream(stream)
        await nc.close()


async def dropped_batch(url: str) -> dict[str, int]:
    """5 events in the stream; every second ``fetch`` raises the built-in ``TimeoutError``, as nats-py's does at
    times (:func:`builtin_timeouts`). How many are handled within 1 s (the rest wait for the 30 s ack wait)."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    stream, subject = await new_stream(js)
    for n in range(5):
        await js.publish(f"{subject}.e", str(n).encode(), stream=stream)
    seen: list[int] = []
    all_seen = asyncio.Event()
    router = NatsRouter()

    @router.subscriber(f"{subject}.>", stream=JStream(stream, declare=False), durable="dropped",
                       pull_sub=PullSub(batch_size=64, timeout=0.5, batch=True))
    async def on_events(evs: list[int]) -> None:
        seen.extend(evs)
        if len(seen) >= 5:
            all_seen.set()

    real = JetStreamContext.PullSubscription.fetch
    calls = 0

    async def fetch(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls % 2 == 0:
            raise TimeoutError
        return await real(self, *args, **kwargs)

    JetStreamContext.PullSubscription.fetch = fetch  # type: ignore[method-assign]
    br = broker(url, "fix-dropped")
    br.include_router(router)
    await br.start()
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_seen.wait(), 1)
        return {"handled": len(seen), "of": 5}
    finally:
        await br.stop()
        JetStreamContext.PullSubscription.fetch = real  # type: ignore[method-assign]
        await js.delete_stream(stream)
        await nc.close()


async def pull_inboxes(url: str) -> dict[str, str]:
    """The reply subjects of the pull requests of two consumers of a broker whose inboxes are ``_INBOX.fix-inbox``:
    one with FastStream's default subscriber arguments, one with :data:`fixes.OWN_INBOXES`."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    stream, subject = await new_stream(js)
    replies: dict[str, str] = {}

    async def seen(msg: Any) -> None:
        replies.setdefault(msg.subject.rsplit(".", 1)[1], msg.reply)

    mon = await nc.subscribe(f"$JS.API.CONSUMER.MSG.NEXT.{stream}.*", cb=seen)
    router = NatsRouter()
    for durable, extra in (("default", {}), ("own", fixes.OWN_INBOXES)):
        @router.subscriber(f"{subject}.{durable}", stream=JStream(stream, declare=False), durable=durable,
                           pull_sub=PullSub(batch_size=8, timeout=0.1, batch=True), **extra)
        async def on_events(evs: list[int]) -> None:
            pass

    br = broker(url, "fix-inbox")
    br.include_router(router)
    await br.start()
    try:
        for _ in range(50):
            if len(replies) == 2:
                break
            await asyncio.sleep(0.05)
        return replies
    finally:
        await br.stop()
        await mon.unsubscribe()
        await js.delete_stream(stream)
        await nc.close()


async def worker_pool(url: str, requests: int = 160) -> dict[str, float]:
    """Requests to a command subscriber with ``max_workers=4``, 20 at a time: calls into anyio per request (under
    cProfile) and CPU per request in ms (without the profiler, both sides in this process)."""
    subject = "fix.work." + uuid.uuid4().hex[:6]
    router = NatsRouter()

    @router.subscriber(subject, queue="w", max_workers=4)
    async def work(n: int) -> int:
        return n

    br = broker(url, "fix-pool")
    br.include_router(router)
    await br.start()

    async def burst(count: int) -> None:
        for start in range(0, count, 20):
            await asyncio.gather(*(br.request(n, subject, timeout=5) for n in range(start, start + 20)))

    try:
        await burst(100)   # warm up
        prof = cProfile.Profile()
        prof.enable()
        await burst(requests)
        prof.disable()
        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        anyio_calls = sum(s[1] for (file, _, _), s in stats.items() if "/anyio/" in file)
        cpu = time.process_time()
        await burst(requests * 3)
        cpu = time.process_time() - cpu
        return {"anyio_calls_per_request": anyio_calls / requests, "cpu_ms_per_request": cpu * 1000 / requests / 3}
    finally:
        await br.stop()


async def stop_mid_burst(url: str, burst: int = 8) -> dict[str, int]:
    """``burst`` requests to a command subscriber with ``max_workers=2`` (each takes 0.3 s), the broker stopped
    (graceful) while the first two run: how many of the requests the process had taken were answered."""
    subject = "fix.stop." + uuid.uuid4().hex[:6]
    router = NatsRouter()

    @router.subscriber(subject, queue="s", max_workers=2)
    async def slow(n: int) -> int:
        await asyncio.sleep(0.3)
        return n

    br = NatsBroker(url, name="fix-stop", logger=None, inbox_prefix=inbox_prefix("fix-stop"), graceful_timeout=5)
    br.include_router(router)
    await br.start()
    nc = await nats.connect(url)
    answered = 0

    async def ask(n: int) -> None:
        nonlocal answered
        with contextlib.suppress(nats.errors.TimeoutError, nats.errors.NoRespondersError):
            await nc.request(subject, str(n).encode(), timeout=3)
            answered += 1

    try:
        asks = [asyncio.create_task(ask(n)) for n in range(burst)]
        await asyncio.sleep(0.1)   # all delivered to the process, two begun
        await br.stop()
        await asyncio.gather(*asks)
        return {"answered": answered, "of": burst}
    finally:
        await nc.close()


async def main(url: str, mode: str) -> dict[str, Any]:
    if mode == "fixed":
        fixes.apply_fixes()
    return {
        "waiting_for_a_full_batch": await waiting_for_a_full_batch(url),
        "an_event_while_idle": await an_event_while_idle(url),
        "builtin_timeouts": await builtin_timeouts(url) if mode == "unfixed" else None,   # not ours to fix
        "dropped_batch": await dropped_batch(url),
        "pull_inboxes": await pull_inboxes(url),
        "worker_pool": await worker_pool(url),
        "stop_mid_burst": await stop_mid_burst(url),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
