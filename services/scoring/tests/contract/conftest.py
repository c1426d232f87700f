"""The score store's contract: every case runs on the memory fake (turf_scoring.testing) and on the Redis
store (adapters/redis_store.py). One embedded Redis per session; each case has keys under a prefix of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.servers import redis_server
from turf_common import redisconn
from turf_scoring.adapters.redis_store import RedisScoreStore
from turf_scoring.ports import ScoreStore
from turf_scoring.testing import MemoryScoreStore


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory, "scoring-contract") as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[ScoreStore]:
    if request.param == "memory":
        yield MemoryScoreStore()
        return
    redis = redisconn.connect(redis_url)
    yield RedisScoreStore(redis, prefix=f"contract:{uuid.uuid4().hex[:8]}:")
    await redis.aclose()
