"""A reply over the server's payload limit fails loudly (a flag flood grew ``claims.flags`` past 1 MiB:
the reply was never sent, the organizer's page answered 503 for the rest of the season, and nothing was logged).
Now the requester gets a refusal at once, the service logs ``reply_too_large`` and counts it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from turf_common import metrics
from turf_common.bus import make_broker
from turfwar import embedded


@pytest.fixture(scope="module")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    srv = embedded.start_nats(Path(tmp_path_factory.mktemp("nats")))
    yield srv.url
    srv.stop()


def test_a_reply_over_the_payload_limit_is_refused_logged_and_counted(nats_url: str) -> None:
    before = metrics.REPLIES_TOO_LARGE.labels(metrics.SERVICE["name"])._value.get()

    async def go() -> tuple[dict[str, object], dict[str, object]]:
        broker = make_broker(nats_url, "reply-limit")

        @broker.subscriber("test.big")
        async def big(n: int) -> str:
            return "x" * n

        async with broker:
            await broker.start()
            small = await broker.request(10, "test.big", timeout=5)
            large = await broker.request(2_000_000, "test.big", timeout=5)   # 2 MB > 1 MiB
        return {"body": small.body.decode()}, json.loads(large.body)

    with capture_logs() as logs:
        small, large = asyncio.run(go())
    assert small == {"body": "x" * 10}
    assert large["ok"] is False and large["reason"] == "unavailable" and "page" in str(large["message"])
    assert next(e for e in logs if e["event"] == "reply_too_large")["size"] >= 2_000_000
    assert metrics.REPLIES_TOO_LARGE.labels(metrics.SERVICE["name"])._value.get() == before + 1
