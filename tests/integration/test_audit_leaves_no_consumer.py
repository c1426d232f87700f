"""An audit reads the whole event stream and leaves no consumer behind: one left to expire counted every later
event as pending, so the manual clock's wait for every consumer to catch up (``POST /admin/clock``) took its
inactivity threshold, 59 s, after each ``turfwar audit game``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import nats
import pytest

from tests.support.servers import nats_server
from turf_common.bus import server_list
from turf_common.bus.idle import caught_up
from turfwar.audit import read_stream

STREAM = "AUDITED"


@pytest.fixture(scope="module")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with nats_server(tmp_path_factory, "audit-consumer") as url:
        yield url


async def test_after_an_audit_a_new_event_leaves_every_consumer_caught_up(nats_url: str) -> None:
    nc = await nats.connect(servers=server_list(nats_url))
    try:
        js = nc.jetstream()
        await js.add_stream(name=STREAM, subjects=["mode.>"])
        for i in range(3):
            await js.publish("mode.turn_resolved", json.dumps({"n": i}).encode())
        events = await read_stream(nats_url, STREAM)
        assert [e["n"] for _, e in events] == [0, 1, 2]
        await js.publish("mode.turn_resolved", b'{"n": 3}')   # the clock moves on after the audit
        listing = await nc.request(f"$JS.API.CONSUMER.LIST.{STREAM}", b"", timeout=5)
        assert json.loads(listing.data)["consumers"] in ([], None) and caught_up(listing.data)
    finally:
        await nc.close()
