"""The clock service without servers: its use cases on an in-memory KV entry and outbox (through bootstrap), and the
``clock.set`` subscriber on FastStream's TestNatsBroker. Season: the packaged 2026 season (America/New_York,
Mon–Sat 06:00–22:00, 2026-10-05 … 2026-10-24)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from faststream.nats import TestNatsBroker

from turf_clock import bootstrap, entrypoints
from turf_clock.handlers import ClockHandlers, initial_state
from turf_clock.testing import MemoryOutbox, MemoryStore
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Refusal, decode_reply
from turf_common.contracts.clock import ClockBoundaryEvent, ClockSet, ClockState, SeasonCalendar, SetClock, SetSeasons
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook

ET = ZoneInfo("America/New_York")
SEASON = gametime.load_season(None)
REAL = datetime(2030, 1, 1, tzinfo=UTC)   # the wall clock, frozen


def et(y: int, mo: int, d: int, h: int, mi: int = 0, s: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, s, tzinfo=ET)


def clock(state: ClockState, real_now: datetime = REAL) -> tuple[ClockHandlers, MemoryStore, MemoryOutbox]:
    store, outbox = MemoryStore(), MemoryOutbox()
    return bootstrap.handlers(store, outbox, outbox, SEASON, state, real_now=lambda: real_now), store, outbox


def manual_at(at: datetime) -> ClockState:
    return ClockState(mode="manual", factor=0.0, game_anchor=at, real_anchor=REAL)


async def started_manual(at: datetime) -> tuple[ClockHandlers, MemoryStore, MemoryOutbox]:
    """A manual clock at ``at`` after start-up (every boundary up to ``at`` emitted)."""
    h, store, outbox = clock(manual_at(at))
    await h.start()
    return h, store, outbox


def published_since(outbox: MemoryOutbox, n: int) -> list[tuple[str, ClockBoundaryEvent]]:
    out = []
    for subject, ev in outbox.published[n:]:
        assert isinstance(ev, ClockBoundaryEvent)
        out.append((subject, ev))
    return out


# ---- use cases --------------------------------------------------------------------------------------------------
async def test_R5_start_up_emits_the_first_opening_as_season_then_week_then_day_started() -> None:
    h, store, outbox = await started_manual(et(2026, 10, 5, 12))
    assert store.state == h.state
    evs = published_since(outbox, 0)
    assert [s for s, _ in evs] == [subjects.CLOCK_SEASON_STARTED, subjects.CLOCK_WEEK_STARTED,
                                   subjects.CLOCK_DAY_STARTED]
    assert {(e.at, e.game_day, e.game_day_number, e.week, e.season_id) for _, e in evs} == {
        (et(2026, 10, 5, 6), date(2026, 10, 5), 1, 1, "2026")}
    assert [e.event_id for _, e in evs] == ["2026:season_started:2026-10-05", "2026:week_started:2026-10-05",
                                            "2026:day_started:2026-10-05"]


async def test_R1_R2_R3_a_manual_move_across_the_night_closes_the_day_then_starts_the_next() -> None:
    h, store, outbox = await started_manual(et(2026, 10, 5, 12))
    n = len(outbox.published)
    reply = await h.set(SetClock(now=et(2026, 10, 6, 7)))
    assert reply == ClockSet(now=et(2026, 10, 6, 7), events=["day_closed:2026-10-05", "day_started:2026-10-06"])
    # answered after the events were committed and published, in boundary order
    (s1, closed), (s2, opened) = published_since(outbox, n)
    assert (s1, closed.type, closed.game_day, closed.game_day_number, closed.week) == (
        subjects.CLOCK_DAY_CLOSED, "clock.day_closed", date(2026, 10, 5), 1, 1)
    assert (s2, opened.type, opened.game_day, opened.game_day_number, opened.week) == (
        subjects.CLOCK_DAY_STARTED, "clock.day_started", date(2026, 10, 6), 2, 1)
    # R3: the day closes at 22:00 and opens at 06:00, local time of the season's zone (R1: EDT, UTC−4)
    assert closed.at == et(2026, 10, 5, 22) and opened.at == et(2026, 10, 6, 6)
    assert closed.at.utcoffset() == timedelta(hours=-4) and closed.occurred_at == closed.at
    assert store.state is not None and store.state.game_anchor == et(2026, 10, 6, 7)
    assert h.now() == et(2026, 10, 6, 7)


async def test_R2_a_move_over_sunday_starts_week_two_and_game_day_7_on_monday_at_the_opening_instant() -> None:
    h, _, outbox = await started_manual(et(2026, 10, 10, 23))
    n = len(outbox.published)
    reply = await h.set(SetClock(now=et(2026, 10, 12, 6)))   # exactly the opening: included
    assert reply == ClockSet(now=et(2026, 10, 12, 6), events=["week_started:2026-10-12", "day_started:2026-10-12"])
    assert [(s, e.game_day, e.game_day_number, e.week) for s, e in published_since(outbox, n)] == [
        (subjects.CLOCK_WEEK_STARTED, date(2026, 10, 12), 7, 2),
        (subjects.CLOCK_DAY_STARTED, date(2026, 10, 12), 7, 2)]


async def test_R25_the_last_close_is_day_closed_then_season_ended() -> None:
    h, _, outbox = await started_manual(et(2026, 10, 24, 12))
    reply = await h.set(SetClock(now=et(2026, 10, 25, 9)))
    assert isinstance(reply, ClockSet) and reply.events == ["day_closed:2026-10-24", "season_ended:2026-10-24"]
    assert [e.game_day_number for _, e in published_since(outbox, len(outbox.published) - 2)] == [18, 18]


async def test_a_move_backwards_is_refused_clock_backwards_and_changes_nothing() -> None:
    h, store, outbox = await started_manual(et(2026, 10, 6, 12))
    before = (h.state, store.state, list(outbox.rows), outbox.cursor)
    reply = await h.set(SetClock(now=et(2026, 10, 6, 11, 59)))
    assert reply == Refusal(reason="clock_backwards", message="The game clock only moves forward.")
    assert (h.state, store.state, outbox.rows, outbox.cursor) == before


async def test_a_repeated_move_is_harmless_it_emits_nothing_twice() -> None:
    h, _, outbox = await started_manual(et(2026, 10, 5, 12))
    first = await h.set(SetClock(now=et(2026, 10, 6, 7)))
    n = len(outbox.published)
    again = await h.set(SetClock(now=et(2026, 10, 6, 7)))
    assert isinstance(first, ClockSet) and first.events
    assert again == ClockSet(now=et(2026, 10, 6, 7), events=[])
    assert len(outbox.rows) == n and h.now() == et(2026, 10, 6, 7)


async def test_only_a_manual_clock_can_be_moved() -> None:
    h, _, outbox = clock(ClockState(mode="accelerated", factor=60.0, game_anchor=et(2026, 10, 5, 12),
                                    real_anchor=REAL))
    reply = await h.set(SetClock(now=et(2026, 10, 7, 12)))
    assert reply == Refusal(reason="conflict", message="The clock is not in manual mode.")
    assert outbox.rows == []


async def test_start_up_publishes_what_a_crash_left_in_the_outbox_before_emitting() -> None:
    h, _, outbox = clock(manual_at(et(2026, 10, 5, 5)))   # before the season opens: nothing to emit
    # a committed row a crash kept from being published
    outbox.rows.append((subjects.CLOCK_DAY_STARTED, Event(event_id="left-over", occurred_at=REAL)))
    await h.start()
    assert [ev.event_id for _, ev in outbox.published] == ["left-over"]


def test_the_stored_state_wins_when_the_mode_is_unchanged_else_the_settings_do() -> None:
    stored = ClockState(mode="manual", factor=0.0, game_anchor=et(2026, 10, 9, 8), real_anchor=REAL, revision=4)
    assert initial_state(stored, "manual", 0.0, et(2026, 10, 5, 5), SEASON, REAL + timedelta(days=1)) is stored
    fresh = initial_state(stored, "accelerated", 600.0, et(2026, 10, 5, 5), SEASON, REAL)
    assert fresh == ClockState(mode="accelerated", factor=600.0, game_anchor=et(2026, 10, 5, 5), real_anchor=REAL)
    assert initial_state(None, "manual", 0.0, None, SEASON, REAL).game_anchor == \
        gametime.default_clock_start(SEASON)
    assert initial_state(stored, "real", 1.0, et(2026, 10, 5, 5), SEASON, REAL).game_anchor == REAL


async def test_an_accelerated_tick_emits_what_game_time_passed_and_sleeps_until_the_next_boundary() -> None:
    state = ClockState(mode="accelerated", factor=600.0, game_anchor=et(2026, 10, 5, 5, 59, 30), real_anchor=REAL)
    h, _, outbox = clock(state, real_now=REAL)
    assert await h.tick() == pytest.approx(0.05)   # 30 game seconds to the opening at 600×
    assert outbox.published == []
    h.real_now = lambda: REAL + timedelta(seconds=0.1)   # 60 game seconds later: 06:00:30
    assert await h.tick() == 1.0
    assert [s for s, _ in outbox.published] == [subjects.CLOCK_SEASON_STARTED, subjects.CLOCK_WEEK_STARTED,
                                               subjects.CLOCK_DAY_STARTED]


async def test_the_tick_loop_survives_a_failed_tick_and_emits_on_the_next() -> None:
    state = ClockState(mode="accelerated", factor=600.0, game_anchor=et(2026, 10, 5, 6, 0, 30), real_anchor=REAL)
    h, _, outbox = clock(state)
    ticks = iter(range(100))
    h.real_now = lambda: REAL + timedelta(seconds=0.01 * next(ticks))   # 6 game seconds per tick
    outbox.fail_flushes = 1
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)
        if len(waits) == 2:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await h.tick_forever(sleep)
    assert waits == [1.0, 1.0]
    # the first tick committed the boundaries but could not publish them; the second tick's flush did (the
    # relay's sweep would have too)
    assert [s for s, _ in outbox.published] == [subjects.CLOCK_SEASON_STARTED, subjects.CLOCK_WEEK_STARTED,
                                               subjects.CLOCK_DAY_STARTED]


# ---- the subscriber ---------------------------------------------------------------------------------------------
def broker_for(h: ClockHandlers) -> TestNatsBroker:
    broker = make_broker("nats://test", "clock")
    broker.include_router(entrypoints.router(h, "TURF"))
    return TestNatsBroker(broker)


async def test_clock_set_subscriber_replies_with_the_move_and_its_events() -> None:
    h, _, _ = await started_manual(et(2026, 10, 5, 12))
    async with broker_for(h) as br:
        resp = await br.request(SetClock(now=et(2026, 10, 6, 7)), subjects.CLOCK_SET)
        assert decode_reply(resp.body, ClockSet) == ClockSet(
            now=et(2026, 10, 6, 7), events=["day_closed:2026-10-05", "day_started:2026-10-06"])
        resp = await br.request(SetClock(now=et(2026, 10, 6, 6)), subjects.CLOCK_SET)
        assert decode_reply(resp.body, ClockSet) == Refusal(
            reason="clock_backwards", message="The game clock only moves forward.")


async def test_clock_set_with_a_naive_time_is_refused_as_invalid_input() -> None:
    h, _, outbox = await started_manual(et(2026, 10, 5, 12))
    n = len(outbox.rows)
    async with broker_for(h) as br:
        resp = await br.request({"now": "2026-10-06T07:00:00"}, subjects.CLOCK_SET)
        assert decode_reply(resp.body, ClockSet) == Refusal(
            reason="invalid_input", message="The command does not fit its contract.")
    assert len(outbox.rows) == n and h.now() == et(2026, 10, 5, 12)


# ---- seasons after seasons (R31) ------------------------------------------------------------------------------------
def _calendar(cfg: gametime.SeasonConfig, commitment: str = "c" * 64) -> SeasonCalendar:
    return SeasonCalendar(config=cfg.to_dict(), seed_commitment=commitment)


SEASON_2027 = replace(SEASON, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23))


async def test_r31_a_season_told_to_the_clock_is_stored_for_every_process_and_its_boundaries_follow_the_last() -> None:
    h, store, outbox = await started_manual(et(2026, 10, 24, 21))
    told = await h.set_seasons(SetSeasons(seasons=[_calendar(SEASON), _calendar(SEASON_2027)]))
    assert told.seasons == ["2026", "2027"] and told.events == []
    book = SeasonBook(SEASON)
    assert book.apply(store.seasons) and [c.season_id for c in book.configs] == ["2026", "2027"]
    n = len(outbox.published)
    moved = await h.set(SetClock(now=et(2027, 10, 4, 6)))
    assert isinstance(moved, ClockSet)
    ids = [ev.event_id for _, ev in published_since(outbox, n)]
    assert ids == ["2026:day_closed:2026-10-24", "2026:season_ended:2026-10-24", "2027:season_started:2027-10-04",
                   "2027:week_started:2027-10-04", "2027:day_started:2027-10-04"]


async def test_r31_a_restarted_clock_reads_the_catalog_it_stored_and_ticks_toward_the_next_season() -> None:
    h, store, outbox = await started_manual(et(2026, 10, 24, 21))
    await h.set_seasons(SetSeasons(seasons=[_calendar(SEASON), _calendar(SEASON_2027)]))
    again = bootstrap.handlers(store, outbox, outbox, SEASON, h.state, real_now=lambda: REAL)
    await again.start()
    assert [c.season_id for c in again.book.configs] == ["2026", "2027"]
    names = await again.emit_upto(et(2027, 10, 4, 6))
    assert names[-1] == "day_started:2027-10-04" and "season_started:2027-10-04" in names
