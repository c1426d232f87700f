"""A table of commands served by one loop (turf_common.bus.serve) answers as a hand-written subscriber does: the
body decoded and validated as the row's contract, the use case's answer sent back; a row that takes no contract
calls its use case with None, whatever the body."""

from __future__ import annotations

from typing import Any

from faststream.nats import NatsRouter, TestNatsBroker
from pydantic import BaseModel

from turf_common.bus import Command, make_broker, serve
from turf_common.contracts.base import Refusal


class Ask(BaseModel):
    n: int


class Answer(BaseModel):
    doubled: int


class Uses:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def double(self, q: Ask) -> Answer:
        self.seen.append(q)
        return Answer(doubled=2 * q.n)

    async def tally(self, q: None) -> Answer:
        self.seen.append(q)
        return Answer(doubled=len(self.seen))


async def test_each_row_answers_with_its_use_case_on_its_contract() -> None:
    uses = Uses()
    r = NatsRouter()
    serve(r, uses, "test", [Command("t.double", Ask, Answer | Refusal, lambda h, q: h.double(q), workers=2),
                            Command("t.tally", None, Answer, lambda h, q: h.tally(q))])
    broker = make_broker("nats://localhost:4222", "test", observe=False)
    broker.include_router(r)
    async with TestNatsBroker(broker) as br:
        assert await (await br.request(Ask(n=21), "t.double")).decode() == {"doubled": 42}
        refused: Any = await (await br.request({"n": "many"}, "t.double")).decode()
        assert refused["reason"] == "invalid_input"
        assert await (await br.request(b"not json", "t.tally")).decode() == {"doubled": 2}
    assert uses.seen == [Ask(n=21), None]
