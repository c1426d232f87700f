"""The claims service's game clock follows the KV entry even when its watch goes quiet: the watch's consumer can be
lost with a NATS node (a 3-node compose deployment, one node killed: every claim was refused stale_fix because
claims still saw the day before), so a direct read every POLL_S catches the moves the watch missed."""

from __future__ import annotations

import asyncio
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from turf_common.contracts.clock import ClockState
from turf_common.gameclock import WatchedGameClock

TUE, WED = (datetime.fromisoformat(f"2026-10-0{d}T07:00:00-04:00") for d in (6, 7))


def state(at: datetime, revision: int) -> ClockState:
    return ClockState(mode="manual", factor=0, game_anchor=at, real_anchor=at, revision=revision)


class DeadWatch:
    """A watch that delivered the first state, then nothing (its consumer died with its node)."""

    def __init__(self, first: ClockState) -> None:
        self.first: ClockState | None = first

    def __aiter__(self) -> DeadWatch:
        return self

    async def __anext__(self) -> Any:
        if self.first is not None:
            first, self.first = self.first, None
            return SimpleNamespace(value=first.model_dump_json().encode(), operation=None)
        await asyncio.Event().wait()   # forever

    async def stop(self) -> None:
        pass


class Bucket:
    def __init__(self, st: ClockState) -> None:
        self.st = st

    async def watch(self, key: str) -> DeadWatch:
        return DeadWatch(self.st)

    async def get(self, key: str) -> Any:
        return SimpleNamespace(value=self.st.model_dump_json().encode(), operation=None)


async def _bucket(b: Bucket) -> Bucket:
    return b


async def test_a_move_the_watch_missed_is_read_within_a_poll() -> None:
    bucket = Bucket(state(TUE, 1))
    clock = WatchedGameClock(lambda: _bucket(bucket), poll_s=0.05)
    await clock.start()
    try:
        await asyncio.sleep(0.02)
        assert await clock.now() == TUE
        bucket.st = state(WED, 2)            # the organizer moves the clock; the dead watch never says so
        await asyncio.sleep(0.2)
        assert await clock.now() == WED
        bucket.st = state(TUE, 1)            # an older revision read late never takes the clock back
        await asyncio.sleep(0.2)
        assert await clock.now() == WED
    finally:
        await clock.close()
