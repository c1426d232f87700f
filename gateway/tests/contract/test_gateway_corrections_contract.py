"""The organizer's corrections log (R28), one contract for the memory fake and PostgreSQL (see
conftest.py): a request is recorded before its service is asked, an ``Idempotency-Key`` finds the first request's
command id, and a settlement (refuse or log) holds the request so that a concurrent one waits and then
finds it settled."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from gateway_backends import TZ, Backend

from turf_common.contracts import subjects
from turf_gateway.ports import Asked, CorrectionLog, NewPlayer, Record, StatusChange

AT = datetime(2026, 10, 6, 9, 0, tzinfo=TZ)          # game time, in the season's zone
AT_UTC = datetime(2026, 10, 6, 13, 0, tzinfo=UTC)
SET_OWNER = {"action": "set_owner", "territory_id": "t1", "player_id": "ann", "reason": "GPS drift",
             "note": "private"}


async def opened(log: CorrectionLog, key: str | None = None, by: str = "org",
                 request: dict[str, object] | None = None, post_season: bool = False) -> str:
    return await log.open_request(by=by, key=key, at=AT, post_season=post_season, action="set_owner",
                                  request=request or SET_OWNER)


async def logged(log: CorrectionLog, cid: str, before: object = None) -> dict[str, object]:
    async with log.settling(cid) as req:
        return await req.log(by="org", action="set_owner", reason="GPS drift", before=before,
                             after={"owner": "ann"}, territory_id="t1", player_id="ann")


async def test_r28_a_request_is_recorded_asked_and_each_without_a_key_is_new(corrections: CorrectionLog) -> None:
    one, two = await opened(corrections), await opened(corrections)
    assert one != two and len(one) == 32
    assert await corrections.asked(one) == Asked(one, AT, False, SET_OWNER, "asked", None)
    assert (await corrections.asked(one)).at.utcoffset() == timedelta(0)     # kept in UTC
    assert await corrections.records() == []


async def test_a_key_already_used_by_the_organizer_finds_the_first_request(
        corrections: CorrectionLog) -> None:
    first = await opened(corrections, key="k1")
    assert await opened(corrections, key="k1", request={"action": "set_owner", "reason": "other"},
                        post_season=True) == first
    assert await corrections.asked(first) == Asked(first, AT, False, SET_OWNER, "asked", None)   # the first body
    assert await opened(corrections, key="k1", by="org2") != first      # a key is one organizer's
    assert await opened(corrections, key="k2") != first


async def test_r28_a_refusal_is_remembered_and_nothing_logged(backend: Backend) -> None:
    log = backend.corrections
    cid = await opened(log, key="k1")
    async with log.settling(cid) as req:
        assert req.asked == Asked(cid, AT, False, SET_OWNER, "asked", None)
        await req.refuse("invalid_target", "Ann is not verified.")
    refusal = {"reason": "invalid_target", "message": "Ann is not verified."}
    assert await log.asked(cid) == Asked(cid, AT, False, SET_OWNER, "refused", refusal)
    async with log.settling(cid) as req:                   # a repeat of the key finds the refusal
        assert (req.asked.state, req.asked.refusal) == ("refused", refusal)
    assert await log.records() == [] and await backend.staged() == []


async def test_r28_a_logged_correction_is_its_record_and_its_public_event(backend: Backend) -> None:
    log = backend.corrections
    cid = await opened(log, post_season=True)
    view = {"id": cid, "at": "2026-10-06T09:00:00-04:00", "action": "set_owner", "by": "org", "reason": "GPS drift",
            "before": {"owner": None, "pair": [1, 2]}, "after": {"owner": "ann"}, "post_season": True}
    assert await logged(log, cid, before={"owner": None, "pair": (1, 2)}) == view   # JSON: a tuple comes back a list
    assert await log.asked(cid) == Asked(cid, AT, True, SET_OWNER, "logged", None)
    assert await log.records() == [Record(cid, AT_UTC, "set_owner", "org", "GPS drift", SET_OWNER, "t1", "ann",
                                          {"owner": None, "pair": [1, 2]}, {"owner": "ann"}, True)]
    async with log.settling(cid) as req:                   # a repeat of the key answers the first record
        assert req.asked.state == "logged"
        assert await req.record() == view
    [(subject, event)] = await backend.staged()
    assert subject == subjects.CORRECTION_APPLIED
    assert {k: event[k] for k in ("correction_id", "action", "territory_id", "player_id", "reason",
                                  "post_season")} == {"correction_id": cid, "action": "set_owner",
                                                      "territory_id": "t1", "player_id": "ann",
                                                      "reason": "GPS drift", "post_season": True}
    assert datetime.fromisoformat(event["at"]) == AT and "note" not in event and "before" not in event


async def test_r28_a_settlement_that_raises_leaves_the_request_asked(backend: Backend) -> None:
    log = backend.corrections
    cid = await opened(log)
    with pytest.raises(RuntimeError):
        async with log.settling(cid) as req:
            await req.log(by="org", action="set_owner", reason="x", before=None, after=None, territory_id="t1",
                          player_id=None)
            raise RuntimeError("the answer could not be sent")
    assert (await log.asked(cid)).state == "asked"
    assert await log.records() == [] and await backend.staged() == []


async def test_r28_the_log_is_in_the_order_records_were_written(backend: Backend) -> None:
    log = backend.corrections
    first, second = await opened(log), await opened(log)
    await logged(log, second)
    ann = await backend.players.create(NewPlayer("Ann", "ann@example.com", "ann_d", "ann street 1", "hash"))
    await backend.players.change_status(StatusChange(ann, "disqualified", "org", "spoofing", None, AT, False))
    await logged(log, first)
    records = await log.records()
    assert [(r.id, r.action) for r in records] == [(second, "set_owner"), (records[1].id, "disqualify"),
                                                   (first, "set_owner")]
    assert records[1].player_id == ann


async def test_r28_a_concurrent_settlement_waits_and_finds_the_request_settled(corrections: CorrectionLog) -> None:
    cid = await opened(corrections)
    order: list[str] = []
    inside = asyncio.Event()

    async def first() -> None:
        async with corrections.settling(cid) as req:
            order.append("first in")
            inside.set()
            await asyncio.sleep(0.3)       # the second has asked for the request meanwhile and must wait
            await req.log(by="org", action="set_owner", reason="x", before=None, after=None, territory_id="t1",
                          player_id=None)
            order.append("first out")

    async def second() -> str:
        await inside.wait()
        async with corrections.settling(cid) as req:
            order.append("second in")
            return req.asked.state

    _, state = await asyncio.gather(first(), second())
    assert order == ["first in", "first out", "second in"]
    assert state == "logged"
    assert len(await corrections.records()) == 1
