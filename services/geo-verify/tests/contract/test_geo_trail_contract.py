"""The trails' contract (R7.1): the same cases on the memory fake and on Redis, where geo-verify keeps every
player's trail across restarts. A fix joins its player's trail and the trail as it was before is answered, oldest
first, from the asked instant on, at most the asked length; the player's latest fix of any time with it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.servers import redis_server
from turf_common import redisconn
from turf_common.rules.antispoof import FixRecord
from turf_geo.adapters.trail import RedisTrails
from turf_geo.ports import Trails
from turf_geo.testing import MemoryTrails

T0 = datetime(2026, 10, 5, 14, 0, 0, 123456, tzinfo=UTC)


def fix(i: int) -> FixRecord:
    return FixRecord(40.0 + i / 100, -74.0 - i / 7, 8.25, T0 + timedelta(minutes=i) - timedelta(seconds=2.5),
                     T0 + timedelta(minutes=i))


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory, "geo-trail-contract") as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
async def trails(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Trails]:
    if request.param == "memory":
        yield MemoryTrails()
        return
    redis = redisconn.connect(redis_url)
    yield RedisTrails(redis, prefix=f"contract:{uuid.uuid4().hex[:8]}:")
    await redis.aclose()


async def test_r7_1_a_fix_joins_the_trail_and_the_trail_before_it_is_answered(trails: Trails) -> None:
    fixes = [fix(i) for i in range(4)]
    first = await trails.join("ann", fixes[0], T0, 5)
    assert (first.fixes, first.last) == ([], None)
    assert (await trails.join("ann", fixes[1], T0, 5)).fixes == fixes[:1]
    assert (await trails.join("bob", fixes[1], T0, 5)).fixes == []          # trails are per player
    before = await trails.join("ann", fixes[2], T0, 5)
    assert (before.fixes, before.last) == (fixes[:2], fixes[1])             # exact: positions and instants
    # from the asked instant on, at most the asked length (the most recent)
    assert (await trails.join("ann", fixes[3], T0 + timedelta(seconds=30), 1)).fixes == fixes[2:3]


async def test_r7_1_the_latest_fix_is_answered_even_when_older_than_the_trail_reaches(trails: Trails) -> None:
    """The day's first fix is compared with where the player was last seen, however long ago (R7.1)."""
    old = fix(0)
    before = await trails.join("ann", fix(600), T0 + timedelta(hours=9), 1000)
    assert (before.fixes, before.last) == ([], None)
    before = await trails.join("ann", old, T0 + timedelta(days=1), 1000)
    assert (before.fixes, before.last) == ([], fix(600))


async def test_r7_1_a_players_concurrent_fixes_each_see_the_other_or_are_seen_by_it(trails: Trails) -> None:
    fixes = [fix(i) for i in range(20)]
    seen = await asyncio.gather(*(trails.join("ann", f, T0, 1000) for f in fixes))
    assert sorted(len(b.fixes) for b in seen) == list(range(20))   # no fix lost, none seen twice


async def test_r7_1_a_trail_keeps_the_asked_length_of_most_recent_fixes(trails: Trails) -> None:
    for i in range(6):
        await trails.join("ann", fix(i), T0, 3)
    assert (await trails.join("ann", fix(6), T0, 10)).fixes == [fix(3), fix(4), fix(5)]


async def test_r30_a_withdrawn_players_trail_is_erased_and_later_every_trail(trails: Trails) -> None:
    fixes = [fix(i) for i in range(3)]
    await trails.join("ann", fixes[0], T0, 5)
    await trails.join("ann", fixes[1], T0, 5)
    await trails.join("bob", fixes[2], T0, 5)
    assert await trails.erase("ann") == 2
    assert (await trails.join("ann", fixes[2], T0, 5)).last is None          # nothing of theirs left
    assert (await trails.join("bob", fixes[0], T0, 5)).fixes == [fixes[2]]   # the others' kept
    assert await trails.erase(None) == 3                                     # the season long closed: all
    assert (await trails.join("bob", fixes[1], T0, 5)).last is None


async def test_r30_a_players_trail_is_read_whole_oldest_first_for_their_export(trails: Trails) -> None:
    for i in range(3):
        await trails.join("ann", fix(i), T0, 5)
    await trails.join("bob", fix(9), T0, 5)
    assert await trails.fixes("ann") == [fix(0), fix(1), fix(2)]   # exact instants and coordinates
    assert await trails.fixes("cat") == []
