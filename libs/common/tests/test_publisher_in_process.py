"""The stream publisher and a message id another publisher is still storing (JetStream's 409, err_code 10158, on a
clustered stream): the publish is asked again until the stream has the message, so the use case that committed
it answers as done (R25: scoring's answer to the organizer's verify and its copy of the event publish one id)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from nats.js.errors import APIError

from turf_common.bus import publisher
from turf_common.bus.publisher import IN_PROCESS_TRIES, EventPublisher

REAL_SLEEP = asyncio.sleep


def no_wait(seconds: float) -> Any:
    return REAL_SLEEP(0)


class Stream:
    """A JetStream context that answers 'in process' ``refusals`` times, then stores."""

    def __init__(self, refusals: int, err_code: int = publisher.IN_PROCESS) -> None:
        self.refusals, self.err_code, self.asked, self.stored = refusals, err_code, 0, []

    async def publish(self, subject: str, data: bytes, stream: str, headers: dict[str, str]) -> Any:
        self.asked += 1
        if self.refusals:
            self.refusals -= 1
            raise APIError(code=409, err_code=self.err_code, description="duplicate message id is in process")
        self.stored.append(headers["Nats-Msg-Id"])
        return {"stream": stream, "duplicate": False}

    async def publish_async(self, subject: str, data: bytes, stream: str, headers: dict[str, str]) -> Any:
        fut = asyncio.get_running_loop().create_future()
        try:
            fut.set_result(await self.publish(subject, data, stream, headers))
        except APIError as e:
            fut.set_exception(e)
        return fut


@pytest.fixture
def stream(monkeypatch: pytest.MonkeyPatch) -> Stream:
    s = Stream(refusals=2)
    monkeypatch.setattr(publisher, "jetstream", lambda broker: s)
    monkeypatch.setattr(publisher.asyncio, "sleep", no_wait)
    return s


async def test_a_publish_is_asked_again_while_another_publisher_stores_the_same_id(stream: Stream) -> None:
    await EventPublisher(None, "T").publish("score.updated", b"{}", "ev-1")   # type: ignore[arg-type]
    assert (stream.asked, stream.stored) == (3, ["ev-1"])


async def test_a_flush_of_many_falls_back_to_one_by_one_and_stores_every_row(stream: Stream) -> None:
    rows = [("score.updated", b"{}", f"ev-{n}", None) for n in range(3)]
    await EventPublisher(None, "T").publish_many(rows)   # type: ignore[arg-type]
    # the first two refused, the third stored; then each again in order (the stream drops its second ev-2, by id)
    assert stream.stored == ["ev-2", "ev-0", "ev-1", "ev-2"]


async def test_an_id_still_in_process_after_every_try_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Stream(refusals=IN_PROCESS_TRIES)
    monkeypatch.setattr(publisher, "jetstream", lambda broker: s)
    monkeypatch.setattr(publisher.asyncio, "sleep", no_wait)
    with pytest.raises(APIError):
        await EventPublisher(None, "T").publish("score.updated", b"{}", "ev-1")   # type: ignore[arg-type]
    assert s.asked == IN_PROCESS_TRIES and s.stored == []


async def test_another_refusal_is_not_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Stream(refusals=1, err_code=10060)   # a different JetStream error: raised at once
    monkeypatch.setattr(publisher, "jetstream", lambda broker: s)
    with pytest.raises(APIError):
        await EventPublisher(None, "T").publish("score.updated", b"{}", "ev-1")   # type: ignore[arg-type]
    assert s.asked == 1
