"""The claims service's day memory hears events from the stream on plain subscriptions (every replica hears every
claim). A published event's only answer must be the stream's acknowledgement: a subscriber that answered it too
(FastStream answers a message with a reply subject by default, with an empty body) raced that acknowledgement, and
a publisher that got the empty answer first failed to decode it (an organizer's correction answered 500, an outbox
flush was deferred while the barrier saw the stream idle)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import nats
import pytest
from nats.aio.msg import Msg

from turf_claims import bootstrap, entrypoints
from turf_claims.testing import MemoryClaimsStore
from turf_common.bus import ensure_stream, jetstream, make_broker
from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.rules import gametime
from turf_common.testing import FakeClock, RecordingPublisher
from turfwar.embedded import Server, start_nats

pytestmark = pytest.mark.timeout(120)
AT = datetime(2026, 10, 5, 11, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_nats(Path(tmp_path_factory.mktemp("nats")))
    yield srv
    srv.stop()


async def answers(url: str, subject: str, body: bytes) -> list[bytes]:
    """Every answer to ``body`` published on ``subject`` with a reply subject, within half a second."""
    nc = await nats.connect(url)
    got: list[bytes] = []

    async def heard(m: Msg) -> None:
        got.append(m.data)

    try:
        inbox = nc.new_inbox()
        await nc.subscribe(inbox, cb=heard)
        await nc.publish(subject, body, reply=inbox)
        await asyncio.sleep(0.5)
    finally:
        await nc.close()
    return got


async def test_an_event_the_day_memory_hears_is_answered_by_the_stream_alone(nats_server: Server) -> None:
    stream = "M" + uuid.uuid4().hex[:8].upper()
    store = MemoryClaimsStore()
    season = gametime.load_season()
    h = bootstrap.handlers(store, FakeClock(AT), RecordingPublisher(store.take_staged), season, {"hoboken": "Hoboken"})
    broker = make_broker(nats_server.url, "claims-" + uuid.uuid4().hex[:6], graceful_timeout=5.0)
    await broker.connect()
    await ensure_stream(broker, stream, max_bytes=64 * 1024**2)
    broker.include_router(entrypoints.router(h, stream))
    await broker.start()
    try:
        changed = TerritoryChanged(occurred_at=AT, territory_id="hoboken", owner_id="ann", previous_owner_id=None,
                                   progress=1, fortified=False, version=1, cause="correction")
        # territory.changed is heard to keep owners; correction.applied stops memory for the day (R28)
        for subject in (subjects.TERRITORY_CHANGED, subjects.CORRECTION_APPLIED):
            got = await answers(nats_server.url, subject, changed.model_dump_json().encode())
            assert len(got) == 1, got
            assert json.loads(got[0])["stream"] == stream   # the stream's acknowledgement, nothing else
    finally:
        await jetstream(broker).delete_stream(stream)
        await broker.stop()
