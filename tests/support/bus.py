"""Talking to a running stack over NATS directly, as the services do."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import nats
from nats.js import api as jsapi

from turf_common.board import load_board
from turf_common.bus import caught_up, server_list
from turf_common.bus.idle import twice_in_a_row
from turf_common.contracts.claims import Fix, SubmitClaim

#: a point off the board (the Atlantic, off Barnegat Bay)
OFF_BOARD = (39.7, -73.9)


def inside(territory_id: str) -> tuple[float, float]:
    """A point well inside ``territory_id`` (lat, lon): its label point, which lies metres from any border (the
    claims service has geo-verify locate every fix, R7); :data:`OFF_BOARD` for an id that is no territory."""
    t = load_board().territories.get(territory_id)
    return t.label_point if t is not None else OFF_BOARD


def submit_cmd(player_id: str, territory_id: str, at: datetime, key: str | None = None) -> SubmitClaim:
    """A claims.submit command as the gateway would send it, for a fix well inside ``territory_id``."""
    lat, lon = inside(territory_id)
    return SubmitClaim(player_id=player_id, player_status="verified",
                       fix=Fix(lat=lat, lon=lon, accuracy_m=10.0, fix_time=at), idempotency_key=key)


async def request(nc: Any, subject: str, body: bytes, timeout: float = 10.0) -> dict[str, Any]:
    resp = await nc.request(subject, body, timeout=timeout)
    return json.loads(resp.data)  # type: ignore[no-any-return]


async def stream_events(nats_url: str, stream: str, subject: str, wait: float = 1.0) -> list[dict[str, Any]]:
    """Every message of ``subject`` in the stream, oldest first (an ephemeral consumer from the start)."""
    nc = await nats.connect(servers=server_list(nats_url))
    try:
        js = nc.jetstream()
        sub = await js.pull_subscribe(subject, stream=stream, config=jsapi.ConsumerConfig(
            deliver_policy=jsapi.DeliverPolicy.ALL, ack_policy=jsapi.AckPolicy.NONE))
        out: list[dict[str, Any]] = []
        while True:
            try:
                msgs = await sub.fetch(500, timeout=wait)
            except (TimeoutError, nats.errors.TimeoutError):
                break
            out.extend(json.loads(m.data) for m in msgs)
            if len(msgs) < 500:
                break
        await sub.unsubscribe()
        return out
    finally:
        await nc.close()


def consumed(nats_url: str, stream: str, timeout: float = 30.0) -> None:
    """A barrier, instead of "nothing more arrives within N s": returns once every durable consumer of
    ``stream`` has taken and acknowledged every event published so far, twice in a row (a handler may publish a
    follow-up just before it acks), as :func:`turf_common.bus.wait_idle` does. Each service commits what an event
    causes before it acks, so whatever the events so far would cause (a duplicate included) is in place. Ephemeral
    consumers (a test's own reads) are not waited for. Raises TimeoutError after ``timeout`` s."""
    import asyncio

    async def go() -> None:
        nc = await nats.connect(servers=server_list(nats_url))

        async def durables_caught_up() -> bool:
            try:
                return caught_up((await nc.request(f"$JS.API.CONSUMER.LIST.{stream}", b"", timeout=5)).data,
                                 durable_only=True)
            except (TimeoutError, nats.errors.TimeoutError, nats.errors.NoRespondersError):
                return False

        try:
            if not await twice_in_a_row(durables_caught_up, timeout):
                raise TimeoutError(f"the consumers of {stream} did not catch up in {timeout:.0f} s")
        finally:
            await nc.close()

    asyncio.run(go())
