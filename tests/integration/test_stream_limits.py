"""The event stream has limits sized for a season (it had none: every refused claim added an event
forever), refuses rather than drops when full (nothing is lost: events wait in the outboxes), an older stream
without limits is brought up to date at start, and the fill is a metric with an alert before it bites. The feed
stream sourced from it holds the feed's subjects alone, in the events' order, with limits of its own: full, it
waits and goes on where it stopped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import nats
import pytest
import yaml
from nats.js import api as jsapi

from turf_common.bus import make_broker
from turf_common.bus.broker import jetstream
from turf_common.bus.streams import EVENT_SUBJECTS, ensure_feed_stream, ensure_stream, feed_stream, stream_fill
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


async def _read_all(js: Any, stream: str) -> list[tuple[int, str, bytes]]:
    """Every message of ``stream`` as (sequence, subject, data), oldest first."""
    sub = await js.subscribe("", stream=stream, ordered_consumer=True,
                             config=jsapi.ConsumerConfig(deliver_policy=jsapi.DeliverPolicy.ALL))
    out = []
    try:
        while True:
            m = await sub.next_msg(timeout=2)
            out.append((m.metadata.sequence.stream, m.subject, m.data))
            if m.metadata.num_pending == 0:
                return out
    finally:
        await sub.unsubscribe()


async def _settled(js: Any, stream: str, count: int) -> None:
    for _ in range(100):
        if (await js.stream_info(stream)).state.messages >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{stream} never held {count} messages")


def test_the_feed_stream_holds_the_feed_subjects_alone_in_order_with_its_own_limits(nats_url: str) -> None:
    """``ensure_feed_stream``: no subjects of its own, one source (the event stream) filtered to the feed's subjects;
    an event of another subject never reaches it, the feed's keep the events' order and get sequences 1, 2, …;
    a changed subject list or limit is brought onto it."""
    feed, public = feed_stream("TSRC"), ["territory.changed", "score.updated"]

    async def go() -> None:
        nc = await nats.connect(servers=[nats_url])
        js = nc.jetstream()
        try:
            async with make_broker(nats_url, "limits-test") as broker:
                await ensure_stream(broker, "TSRC", max_bytes=64 * 1024**2)
                await ensure_feed_stream(broker, "TSRC", public, max_bytes=32 * 1024**2)
                c = (await js.stream_info(feed)).config
                assert feed == "TSRC_FEED" and not c.subjects
                assert (c.max_bytes, c.discard, c.max_msg_size) == (32 * 1024**2, jsapi.DiscardPolicy.NEW, 1024**2)
                assert [(s.name, s.filter_subject, [(t.src, t.dest) for t in s.subject_transforms or []])
                        for s in c.sources or []] == [("TSRC", None, [(p, "") for p in public])]
                sent = ["claim.accepted", "territory.changed", "flag.raised", "score.updated", "card.drawn",
                        "territory.changed", "claim.rejected", "score.updated"]
                for i, subject in enumerate(sent):
                    await js.publish(subject, f"{i}".encode())
                await _settled(js, feed, 4)
                await asyncio.sleep(0.2)   # anything more would have come by now
                got = await _read_all(js, feed)
                assert [(seq, subj, data) for seq, subj, data in got] == [
                    (1, "territory.changed", b"1"), (2, "score.updated", b"3"), (3, "territory.changed", b"5"),
                    (4, "score.updated", b"7")]
                # brought up to date: another subject (from now on) and another limit
                await ensure_feed_stream(broker, "TSRC", [*public, "card.drawn"], max_bytes=16 * 1024**2)
                c = (await js.stream_info(feed)).config
                assert c.max_bytes == 16 * 1024**2
                assert {t.src for t in (c.sources or [])[0].subject_transforms or []} == {*public, "card.drawn"}
                await js.publish("card.drawn", b"8")
                await _settled(js, feed, 5)
                assert (await _read_all(js, feed))[4:] == [(5, "card.drawn", b"8")]   # none again, nor the old draw
                # and a later change of its limit alone goes on too (the source keeps its start)
                await ensure_feed_stream(broker, "TSRC", [*public, "card.drawn"], max_bytes=24 * 1024**2)
                await js.publish("score.updated", b"9")
                await _settled(js, feed, 6)
                await asyncio.sleep(0.2)
                assert (await _read_all(js, feed))[4:] == [(5, "card.drawn", b"8"), (6, "score.updated", b"9")]
        finally:
            for name in (feed, "TSRC"):   # its subjects are the next test's
                await js.delete_stream(name)
            await nc.close()

    asyncio.run(go())


def test_a_full_feed_stream_waits_and_goes_on_where_it_stopped(nats_url: str) -> None:
    """DiscardNew on the feed stream: full, it keeps its first events and takes no more (the event stream goes on);
    given room (a larger limit at the next set-up), it copies the rest, none skipped, in order."""
    feed = feed_stream("TFULL")

    async def go() -> None:
        nc = await nats.connect(servers=[nats_url])
        js = nc.jetstream()
        try:
            async with make_broker(nats_url, "limits-test") as broker:
                await ensure_stream(broker, "TFULL", max_bytes=64 * 1024**2)
                await ensure_feed_stream(broker, "TFULL", ["territory.changed"], max_bytes=64 * 1024)
                for i in range(100):   # ~100 kB into 64 kB
                    await js.publish("territory.changed", f"{i:04d}".encode() + b"x" * 1000)
                await _settled(js, "TFULL", 100)
                await asyncio.sleep(0.5)
                held = (await js.stream_info(feed)).state
                assert 0 < held.messages < 100 and held.first_seq == 1
                assert 0.8 < await stream_fill(broker, feed) <= 1.0
                await ensure_feed_stream(broker, "TFULL", ["territory.changed"], max_bytes=1024**2)
                await _settled(js, feed, 100)
                got = await _read_all(js, feed)
                assert [(seq, data[:4]) for seq, _, data in got] == [(i + 1, f"{i:04d}".encode()) for i in range(100)]
        finally:
            for name in (feed, "TFULL"):
                await js.delete_stream(name)
            await nc.close()

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
    assert metrics.STREAM_FILL._labelnames == ("stream",)   # the event stream and its feed stream, each alerted
    assert Settings().stream_max_bytes == 8 * 1024**3   # a season of ~1,000 players twice over
