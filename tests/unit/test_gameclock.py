"""The watched game clock (claims service): answers from memory, kept current by ``kv.watch()`` of the KV entry."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from turf_common.contracts.clock import ClockState
from turf_common.gameclock import SteadyGameClock, WatchedGameClock

T0 = datetime(2026, 10, 5, 11, 0, tzinfo=UTC)


def manual(at: datetime, revision: int = 0) -> bytes:
    return ClockState(mode="manual", factor=0, game_anchor=at, real_anchor=T0,
                      revision=revision).model_dump_json().encode()


class FakeKV:
    """The clock bucket: ``get`` reads the stored value; ``watch`` delivers what the test pushes, in order."""

    def __init__(self, value: bytes | None) -> None:
        self.value = value
        self.gets = 0
        self.watched: list[str] = []
        self.updates: asyncio.Queue[Any] = asyncio.Queue()

    async def get(self, key: str) -> Any:
        self.gets += 1
        if self.value is None:
            raise KeyError(key)
        return SimpleNamespace(value=self.value)

    async def watch(self, key: str) -> Any:
        self.watched.append(key)
        return FakeWatcher(self.updates)

    async def push(self, value: bytes | None, operation: str | None = None) -> None:
        """A write as the watcher sees it; ``None`` is the end-of-initial-values marker."""
        await self.updates.put(None if value is None else SimpleNamespace(value=value, operation=operation))
        for _ in range(5):   # let the clock's watch task take it
            await asyncio.sleep(0)


class FakeWatcher:
    def __init__(self, updates: asyncio.Queue[Any]) -> None:
        self.updates = updates

    def __aiter__(self) -> FakeWatcher:
        return self

    async def __anext__(self) -> Any:
        return await self.updates.get()

    async def stop(self) -> None:
        return None


@contextlib.asynccontextmanager
async def watched(stored: bytes | None) -> AsyncIterator[tuple[WatchedGameClock, FakeKV]]:
    """A started clock over a fake bucket holding ``stored``, closed after."""
    kv = FakeKV(stored)

    async def open_bucket() -> FakeKV:
        return kv

    clock = WatchedGameClock(open_bucket)
    await clock.start()
    if stored is not None:
        await kv.push(stored)   # the watcher starts with the current value, then the end-of-initial marker
    await kv.push(None)
    try:
        yield clock, kv
    finally:
        await clock.close()


async def test_reads_from_memory_and_sees_each_write_at_once() -> None:
    async with watched(manual(T0)) as (clock, kv):
        assert kv.watched == ["state"]
        assert await clock.now() == T0 and await clock.now() == T0
        assert kv.gets == 0  # the watcher brought the value: no read per call
        later = T0 + timedelta(hours=1)
        await kv.push(manual(later, 1))
        assert await clock.now() == later
        await kv.push(b"", "DEL")  # a delete keeps the last state
        assert await clock.now() == later


async def test_without_a_stored_state_every_read_asks_and_raises_until_one_exists() -> None:
    async with watched(None) as (clock, kv):
        with pytest.raises(KeyError):
            await clock.now()
        kv.value = manual(T0)
        assert await clock.now() == T0


async def test_a_late_delivery_never_goes_back_to_an_older_manual_move() -> None:
    """The entry's revision only grows: an older state delivered late (a read racing the watcher) must not undo a
    move already seen."""
    async with watched(manual(T0, 2)) as (clock, kv):
        await kv.push(manual(T0 - timedelta(hours=1), 1))
        assert await clock.now() == T0
        await kv.push(manual(T0 + timedelta(hours=1), 3))
        assert await clock.now() == T0 + timedelta(hours=1)


class Ticks:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def running(factor: float) -> bytes:
    return ClockState(mode="real" if factor == 1 else "accelerated", factor=factor, game_anchor=T0,
                      real_anchor=T0).model_dump_json().encode()


async def test_a_running_clocks_state_is_read_once_and_again_after_a_while_a_manual_one_at_every_read() -> None:
    kv, ticks = FakeKV(running(60)), Ticks()

    async def open_bucket() -> FakeKV:
        return kv

    steady = SteadyGameClock(open_bucket, ticks)
    first = await steady.now()
    second = await steady.now()
    assert kv.gets == 1 and second >= first   # the same anchors: the time still moves, from the wall clock
    ticks.t = SteadyGameClock.KEEP_S + 1
    await steady.now()
    assert kv.gets == 2
    kv.value = manual(T0 + timedelta(days=1))   # a manual clock: every read asks, so a move is seen at once
    ticks.t += SteadyGameClock.KEEP_S + 1
    assert await steady.now() == T0 + timedelta(days=1)
    kv.value = manual(T0 + timedelta(days=2), revision=1)
    assert await steady.now() == T0 + timedelta(days=2) and kv.gets == 4
