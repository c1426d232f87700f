"""The boundary log's contract cases (R5: every boundary emitted once, in order), on the memory fake and on
PostgreSQL (conftest.py): the cursor and the staged events commit together or not at all, and the relay publishes
what was committed, in commit order, once."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from clock_backends import Outbox

from turf_common.contracts import subjects
from turf_common.contracts.clock import ClockBoundaryEvent, DayClosed, DayStarted, SeasonStarted

T0 = datetime(2026, 10, 5, 10, tzinfo=UTC)
T1 = datetime(2026, 10, 6, 2, tzinfo=UTC)


KINDS: dict[str, type[ClockBoundaryEvent]] = {"season_started": SeasonStarted, "day_started": DayStarted,
                                              "day_closed": DayClosed}


def boundary(kind: str, day: date) -> ClockBoundaryEvent:
    return KINDS[kind](event_id=f"2026:{kind}:{day}", occurred_at=T0, at=T0, game_day=day, game_day_number=1, week=1,
                       season_id="2026")


async def test_R5_before_any_emission_the_cursor_is_unset_and_nothing_is_published(outbox: Outbox) -> None:
    async with outbox.log.transaction() as tx:
        assert await tx.emitted_upto() is None
    assert await outbox.relay.flush() == 0 and outbox.sent == []


async def test_R5_a_committed_advance_moves_the_cursor_and_publishes_its_events_in_order(outbox: Outbox) -> None:
    async with outbox.log.transaction() as tx:
        await tx.stage(subjects.CLOCK_SEASON_STARTED, boundary("season_started", date(2026, 10, 5)))
        await tx.stage(subjects.CLOCK_DAY_STARTED, boundary("day_started", date(2026, 10, 5)))
        await tx.advance(T0)
    async with outbox.log.transaction() as tx:
        assert await tx.emitted_upto() == T0
        await tx.stage(subjects.CLOCK_DAY_CLOSED, boundary("day_closed", date(2026, 10, 5)))
        await tx.advance(T1)
    assert await outbox.relay.flush() == 3
    assert outbox.sent == [(subjects.CLOCK_SEASON_STARTED, "2026:season_started:2026-10-05"),
                           (subjects.CLOCK_DAY_STARTED, "2026:day_started:2026-10-05"),
                           (subjects.CLOCK_DAY_CLOSED, "2026:day_closed:2026-10-05")]
    async with outbox.log.transaction() as tx:
        assert await tx.emitted_upto() == T1


async def test_R5_a_failed_transaction_keeps_neither_the_cursor_nor_its_events(outbox: Outbox) -> None:
    async with outbox.log.transaction() as tx:
        await tx.advance(T0)
    with pytest.raises(RuntimeError):
        async with outbox.log.transaction() as tx:
            await tx.stage(subjects.CLOCK_DAY_CLOSED, boundary("day_closed", date(2026, 10, 5)))
            await tx.advance(T1)
            raise RuntimeError("the process dies before the commit")
    async with outbox.log.transaction() as tx:
        assert await tx.emitted_upto() == T0
    assert await outbox.relay.flush() == 0 and outbox.sent == []


async def test_R5_what_was_published_is_not_published_again(outbox: Outbox) -> None:
    async with outbox.log.transaction() as tx:
        await tx.stage(subjects.CLOCK_DAY_STARTED, boundary("day_started", date(2026, 10, 5)))
        await tx.advance(T0)
    assert await outbox.relay.flush() == 1
    assert await outbox.relay.flush() == 0
    assert outbox.sent == [(subjects.CLOCK_DAY_STARTED, "2026:day_started:2026-10-05")]
