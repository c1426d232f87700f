"""The clock state's store contract: the same cases on the memory fake (turf_clock.testing.MemoryStore)
and on NATS KV (adapters/kv.py, a bucket of its own per case on an embedded NATS server), the entry every service's
game clock reads (R1)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import nats
import pytest

from tests.support.servers import nats_server
from turf_clock.adapters.kv import KvClockStore
from turf_clock.ports import ClockStore
from turf_clock.testing import MemoryStore
from turf_common.contracts.clock import ClockState

GAME = datetime(2026, 10, 5, 10, tzinfo=UTC)
REAL = datetime(2026, 12, 5, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with nats_server(tmp_path_factory, "clock-kv-contract") as url:
        yield url


@pytest.fixture(params=["memory", "nats"])
async def store(request: pytest.FixtureRequest, nats_url: str) -> AsyncIterator[ClockStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    bucket = f"contract_{uuid.uuid4().hex[:8]}"
    yield KvClockStore(await js.create_key_value(bucket=bucket))
    await js.delete_key_value(bucket)
    await nc.close()


async def test_r1_before_the_first_save_there_is_no_state(store: ClockStore) -> None:
    assert await store.load() is None


async def test_r1_a_saved_state_is_loaded_as_it_was_saved(store: ClockStore) -> None:
    state = ClockState(mode="manual", factor=0.0, game_anchor=GAME, real_anchor=REAL)
    await store.save(state)
    assert await store.load() == state


async def test_r1_the_last_save_wins(store: ClockStore) -> None:
    await store.save(ClockState(mode="manual", factor=0.0, game_anchor=GAME, real_anchor=REAL))
    moved = ClockState(mode="accelerated", factor=60.0, game_anchor=GAME, real_anchor=REAL)
    await store.save(moved)
    assert await store.load() == moved
