"""What sourcing the feed stream adds to an event's way to the spectators. On an embedded NATS server,
an event stream and its feed stream (``ensure_feed_stream``, the gateway's feed subjects); ``N`` events
(``territory.changed``, ~330 bytes, each followed by a private ``claim.accepted``) published 4 ms apart, timed from
the publish to their delivery on an ordered consumer of the feed's subjects: first on the event stream (as before
the feed stream existed), then on the feed stream. Prints p50/p99/max in ms.

    .venv/bin/python -m bench.feed_source_latency [N]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nats
from nats.js import api

from turf_common.bus import feed_stream, make_broker
from turf_common.bus.streams import ensure_feed_stream, ensure_stream
from turf_gateway.feed.relay import feed_subjects
from turfwar import embedded

STREAM = "LAT"


async def _timed(js: Any, stream: str, n: int) -> list[float]:
    got: dict[int, float] = {}
    done = asyncio.Event()

    async def arrived(m: Any) -> None:
        got[json.loads(m.data)["i"]] = time.perf_counter()
        if len(got) >= n:
            done.set()

    sub = await js.subscribe("", stream=stream, ordered_consumer=True, cb=arrived, config=api.ConsumerConfig(
        filter_subjects=feed_subjects(), deliver_policy=api.DeliverPolicy.NEW))
    await asyncio.sleep(0.3)
    sent: dict[int, float] = {}
    for i in range(n):
        sent[i] = time.perf_counter()
        await js.publish("territory.changed", json.dumps({"i": i, "pad": "x" * 300}).encode())
        await js.publish("claim.accepted", b"{}")
        await asyncio.sleep(0.004)
    await asyncio.wait_for(done.wait(), 60)
    await sub.unsubscribe()
    return sorted((got[i] - sent[i]) * 1000 for i in range(n))


async def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        srv = embedded.start_nats(Path(d))
        try:
            async with make_broker(srv.url, "bench") as broker:
                await ensure_stream(broker, STREAM, max_bytes=256 * 1024**2)
                await ensure_feed_stream(broker, STREAM, feed_subjects(), max_bytes=128 * 1024**2)
            nc = await nats.connect(srv.url)
            js = nc.jetstream()
            for stream in (STREAM, feed_stream(STREAM)):
                lat = await _timed(js, stream, n)
                print(f"{stream}: n={n} p50={lat[n // 2]:.2f} ms p99={lat[int(n * 0.99)]:.2f} ms max={lat[-1]:.2f} ms")
            await nc.close()
        finally:
            srv.stop()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
