"""Issue 29: the event stream has limits sized for a season (it had none: every refused claim added an event
forever), refuses rather than drops when full (nothing is lost: events wait in the outboxes), an older stream
without limits is brought up to date at start, and the fill is a metric with an alert before it bites."""

from __future__ import annotations

import asyncio
from pathlib import Path

import nats
import pytest
import yaml
from nats.js import api as jsapi

from turf_common.bus import make_broker
from turf_common.bus.broker import jetstream
from turf_common.bus.streams import EVENT_SUBJECTS, ensure_stream, stream_fill
from turf_common.settings import Settings
from turfwar import embedded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    srv = embedded.start_nats(tmp_path_factory.mktemp("nats"))
    yield srv.url  # type: ignore[misc]
    srv.stop()


def test_a_new_stream_has_the_seasons_limits_and_refuses_when_full(nats_url: str) -> None:
    async def go() -> None:
        async with make_broker(nats_url, "limits-test") as broker:
            await ensure_stream(broker, "TLIMITS", max_bytes=64 * 1024)
            c = (await jetstream(broker).stream_info("TLIMITS")).config
            assert (c.max_bytes, c.discard, c.max_msg_size) == (64 * 1024, jsapi.DiscardPolicy.NEW, 1024 * 1024)
            nc = await nats.connect(servers=[nats_url])
            js = nc.jetstream()
            first = await js.publish("claim.rejected", b"x" * 1000)
            refused = 0
            for _ in range(100):   # 100 kB into 64 kB
                try:
                    await js.publish("claim.rejected", b"x" * 1000)
                except nats.js.errors.APIError:
                    refused += 1
            kept = await js.get_msg("TLIMITS", first.seq)   # the season's first events are never dropped
            await nc.close()
            assert refused > 0 and kept.data == b"x" * 1000
            assert 0.8 < await stream_fill(broker, "TLIMITS") <= 1.0
            await jetstream(broker).delete_stream("TLIMITS")   # its subjects are the next test's

    asyncio.run(go())


def test_an_older_stream_without_limits_is_brought_up_to_date(nats_url: str) -> None:
    async def go() -> None:
        nc = await nats.connect(servers=[nats_url])
        await nc.jetstream().add_stream(jsapi.StreamConfig(name="TOLD", subjects=EVENT_SUBJECTS,
                                                           storage=jsapi.StorageType.FILE))
        await nc.close()
        async with make_broker(nats_url, "limits-test") as broker:
            await ensure_stream(broker, "TOLD", max_bytes=32 * 1024**2)
            c = (await jetstream(broker).stream_info("TOLD")).config
            assert (c.max_bytes, c.discard) == (32 * 1024**2, jsapi.DiscardPolicy.NEW)

    asyncio.run(go())


def test_the_alert_fires_on_the_fill_metric_before_it_bites() -> None:
    rules = yaml.safe_load((ROOT / "deploy/prometheus/alerts.yaml").read_text())["groups"][0]["rules"]
    exprs = {r["alert"]: r["expr"] for r in rules}
    assert exprs["TurfStreamNearlyFull"] == "turf_stream_fill_ratio > 0.8"
    from turf_common import metrics

    assert metrics.STREAM_FILL._name == "turf_stream_fill_ratio"
    assert Settings().stream_max_bytes == 8 * 1024**3   # a season of ~1,000 players twice over
