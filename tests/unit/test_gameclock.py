"""The watched game clock (claims service): answers from memory, kept current by the KV entry's writes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from turf_common.contracts.clock import ClockState
from turf_common.gameclock import WatchedGameClock

T0 = datetime(2026, 10, 5, 11, 0, tzinfo=UTC)


def manual(at: datetime, revision: int = 0) -> bytes:
    return ClockState(mode="manual", factor=0, game_anchor=at, real_anchor=T0,
                      revision=revision).model_dump_json().encode()


class FakeKV:
    _pre = "$KV.TURF_clock."

    def __init__(self, value: bytes | None) -> None:
        self.value = value
        self.gets = 0
        self.hold: asyncio.Event | None = None

    async def get(self, key: str) -> Any:
        self.gets += 1
        value = self.value
        if self.hold is not None:
            await self.hold.wait()
        if value is None:
            raise KeyError(key)
        return SimpleNamespace(value=value)


class FakeBus:
    stream = "TURF"

    def __init__(self, kv: FakeKV) -> None:
        self.kv = kv
        self.subjects: list[str] = []
        self.cb: Any = None
        self.nc = SimpleNamespace(subscribe=self._subscribe)

    async def clock_kv(self) -> FakeKV:
        return self.kv

    async def _subscribe(self, subject: str, cb: Any) -> Any:
        self.subjects.append(subject)
        self.cb = cb
        return SimpleNamespace(unsubscribe=self._unsubscribe)

    async def _unsubscribe(self) -> None:
        self.cb = None

    async def push(self, data: bytes, headers: dict[str, str] | None = None) -> None:
        await self.cb(SimpleNamespace(data=data, headers=headers))


@contextlib.asynccontextmanager
async def watched(stored: bytes | None) -> AsyncIterator[tuple[WatchedGameClock, FakeKV, FakeBus]]:
    """A started clock over a fake KV holding ``stored`` (no periodic re-read: tests call it), closed after."""
    kv = FakeKV(stored)
    bus = FakeBus(kv)
    clock = WatchedGameClock(bus, refresh=3600)  # type: ignore[arg-type]
    await clock.start()
    try:
        yield clock, kv, bus
    finally:
        await clock.close()


async def test_reads_from_memory_and_sees_each_write_at_once() -> None:
    async with watched(manual(T0)) as (clock, kv, bus):
        assert bus.subjects == ["$KV.TURF_clock.state"]
        assert await clock.now() == T0 and await clock.now() == T0
        assert kv.gets == 1  # the first read at start, none per call
        later = T0 + timedelta(hours=1)
        await bus.push(manual(later, 1))
        assert await clock.now() == later
        await bus.push(b"", {"KV-Operation": "DEL"})  # a delete keeps the last state
        assert await clock.now() == later


async def test_a_write_during_a_reread_wins_over_the_reread() -> None:
    async with watched(manual(T0)) as (clock, kv, bus):
        kv.hold = asyncio.Event()
        reread = asyncio.create_task(clock._reread())  # reads the old value, then waits
        await asyncio.sleep(0)
        later = T0 + timedelta(minutes=1)
        await bus.push(manual(later, 1))
        kv.hold.set()
        await reread
        assert await clock.now() == later


async def test_without_a_stored_state_every_read_asks_and_raises_until_one_exists() -> None:
    async with watched(None) as (clock, kv, _bus):
        with pytest.raises(KeyError):
            await clock.now()
        kv.value = manual(T0)
        assert await clock.now() == T0


async def test_a_reread_never_goes_back_to_an_older_manual_move() -> None:
    """A pushed move reaches this process before the stream answers reads with it: a re-read that still gets the
    previous entry must not undo the move (the entry's revision only grows)."""
    async with watched(manual(T0, 1)) as (clock, kv, bus):
        later = T0 + timedelta(hours=2)
        await bus.push(manual(later, 2))
        await clock._reread()            # the stream still holds revision 1
        assert await clock.now() == later
        kv.value = manual(later + timedelta(hours=1), 3)
        await clock._reread()            # a newer entry (a push missed in a reconnect) is taken
        assert await clock.now() == later + timedelta(hours=1)
