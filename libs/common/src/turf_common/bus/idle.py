"""The barrier: whether every consumer of the stream has caught up. For tests, ``simulate`` and the manual clock
only: production code never waits for the whole system."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import nats
from faststream.nats import NatsBroker

from turf_common.bus.broker import BusError
from turf_common.bus.streams import feed_stream

STREAM_NOT_FOUND = 10059   # JetStream's err_code for "stream not found"


def caught_up(listing: bytes, durable_only: bool = False) -> bool:
    """Whether a ``$JS.API.CONSUMER.LIST.<stream>`` reply shows every (durable) consumer with nothing pending and
    nothing un-acked. On a cluster a consumer whose leader is being elected (a node just died) is named under
    ``missing`` and counts as not caught up: nats-py's ``consumers_info`` drops that list, so a consumer between
    leaders looked idle (CI saw scoring's, while it had taken none of 440 claims). An error reply is not caught up.

    A missing *ephemeral* consumer does not count: an ordered consumer (the gateway's feed, one replica) that lived
    on the dead node never gets a leader again, and its owner has already made a new one (the compose e2e waited
    60 s for it). Ephemerals carry the server's generated names (8 letters and digits, mixed case); our durables
    are lower-case words (``scoring``, ``gateway-history``)."""
    resp = json.loads(listing)
    if resp.get("error") or any(not _ephemeral_name(n) for n in resp.get("missing") or []):
        return False
    return all(c["num_pending"] == 0 and c["num_ack_pending"] == 0 for c in resp.get("consumers") or []
               if not durable_only or c["config"].get("durable_name"))


def _ephemeral_name(name: str) -> bool:
    return len(name) == 8 and name.isalnum() and name.isascii() and not name.islower() and not name.isdigit()


async def consumers_idle(broker: NatsBroker, stream: str) -> bool:
    """True when every consumer of the stream has nothing pending and nothing un-acked (:func:`caught_up`), and so
    has every consumer of its feed stream (the feed log's durable), whose source is caught up with the
    event stream too (:func:`source_caught_up`: the server lists no source consumer). A stream without a feed
    stream (a test's) has only its own consumers."""
    feed = feed_stream(stream)
    try:
        listing = await broker.request(b"", f"$JS.API.CONSUMER.LIST.{stream}", timeout=5.0)
        if not caught_up(bytes(listing.body)):
            return False
        info = json.loads(bytes((await broker.request(b"", f"$JS.API.STREAM.INFO.{feed}", timeout=5.0)).body))
        if (info.get("error") or {}).get("err_code") == STREAM_NOT_FOUND:
            return True
        if not source_caught_up(info):
            return False
        listing = await broker.request(b"", f"$JS.API.CONSUMER.LIST.{feed}", timeout=5.0)
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError, TimeoutError):
        return False
    return caught_up(bytes(listing.body))


def source_caught_up(info: dict[str, Any]) -> bool:
    """Whether a ``$JS.API.STREAM.INFO`` reply shows every source of the stream with nothing left to copy (``lag``
    0). The lag is the source's pending count when it last received a message, so an event published a moment ago
    shows only once it arrives (within a millisecond here): :func:`wait_idle` asks twice, 20 ms apart."""
    return not info.get("error") and all(not s.get("lag") for s in info.get("sources") or [])


async def wait_idle(broker: NatsBroker, stream: str, timeout: float = 30.0) -> None:
    """Block until :func:`consumers_idle` holds twice in a row (a handler may publish follow-up events just
    before it acks), or raise :class:`BusError` after ``timeout`` seconds."""
    if not await twice_in_a_row(lambda: consumers_idle(broker, stream), timeout):
        raise BusError("consumers did not catch up in time")


async def twice_in_a_row(check: Callable[[], Awaitable[bool]], timeout: float) -> bool:
    """Ask ``check()`` every 20 ms until it holds twice in a row (True), or ``timeout`` seconds pass (False)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    streak = 0
    while True:
        streak = streak + 1 if await check() else 0
        if streak >= 2:
            return True
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
