"""The clock service in its three modes, through the public API and the event stream (R1–R5)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from tests.support.bus import stream_events
from tests.support.client import Player, move_clock, organizer
from tests.support.stackfix import running_stack
from turf_common.contracts import subjects
from turfwar.stack import Stack


def test_manual_clock_moves_forward_only_and_emits_each_boundary_once(http: httpx.Client, org: Player,
                                                                     stack: Stack) -> None:
    out = move_clock(org, datetime.fromisoformat("2026-10-10T23:00:00-04:00"))  # to Saturday night, week 1
    days = [e for e in out["events"] if e.startswith("day_started")]
    assert len(days) == 6 and out["events"][-1] == "day_closed:2026-10-10"
    r = org.post("/admin/clock", {"now": "2026-10-09T12:00:00-04:00"})
    assert r.status_code == 409 and r.json()["reason"] == "clock_backwards"
    clock = http.get("/api/v1/clock").json()
    assert clock == {"now": "2026-10-10T23:00:00-04:00", "open": False, "game_day": 6, "season_state": "running",
                     "next_change": "2026-10-12T06:00:00-04:00", "seed_commitment": clock["seed_commitment"],
                     "mode": "manual", "season_id": "2026", "next_season": None}   # R31: none announced
    out = move_clock(org, datetime.fromisoformat("2026-10-12T06:00:00-04:00"))  # Sunday skipped
    assert out["events"] == ["week_started:2026-10-12", "day_started:2026-10-12"]
    started = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                        subjects.CLOCK_DAY_STARTED))
    assert [e["game_day"] for e in started] == ["2026-10-05", "2026-10-06", "2026-10-07", "2026-10-08",
                                                "2026-10-09", "2026-10-10", "2026-10-12"]
    assert [e["game_day_number"] for e in started] == [1, 2, 3, 4, 5, 6, 7]


def test_season_end_is_emitted_and_clock_reports_closed(http: httpx.Client, org: Player, stack: Stack) -> None:
    out = move_clock(org, datetime.fromisoformat("2026-10-25T09:00:00-04:00"))
    assert out["events"][-2:] == ["day_closed:2026-10-24", "season_ended:2026-10-24"]
    clock = http.get("/api/v1/clock").json()
    assert clock["season_state"] == "closed" and clock["open"] is False and clock["next_change"] is None
    assert clock["game_day"] is None


@pytest.fixture(scope="module")
def fast_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # 600× real time from 05:59:30: the day opens about 50 ms of real time after start
    with running_stack(tmp_path_factory.mktemp("fast"), TURF_CLOCK="accelerated:600",
                       TURF_CLOCK_START="2026-10-05T05:59:30-04:00") as s:
        yield s


def test_accelerated_clock_opens_the_day_by_itself(fast_stack: Stack) -> None:
    with httpx.Client(base_url=fast_stack.base_url, timeout=30) as http:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            clock = http.get("/api/v1/clock").json()
            if clock["open"]:
                break
            time.sleep(0.1)
        assert clock["open"] is True and clock["game_day"] == 1 and clock["season_state"] == "running"
        assert clock["mode"] == "accelerated"
        assert datetime.fromisoformat(clock["now"]) > datetime.fromisoformat("2026-10-05T06:00:00-04:00")
        r = organizer(http).post("/admin/clock", {"now": "2026-10-06T06:00:00-04:00"})
        assert r.status_code == 409  # only a manual clock can be moved
    started = asyncio.run(stream_events(fast_stack.env["TURF_NATS_URL"], fast_stack.env["TURF_STREAM"],
                                        subjects.CLOCK_DAY_STARTED))
    assert started and started[0]["game_day"] == "2026-10-05"

