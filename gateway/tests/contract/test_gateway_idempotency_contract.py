"""The idempotency keys' contract: the same cases on the memory fake and on Redis. A key
answers only the body it was first used with, per route and caller; key order in a body is no other body."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.servers import redis_server
from turf_common import redisconn
from turf_gateway.adapters.idempotency import RedisIdempotencyKeys
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import IdempotencyKeys
from turf_gateway.testing import MemoryIdempotencyKeys

BODY = {"territory_id": "hoboken", "lat": 40.744, "lon": -74.032}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory, "gateway-keys-contract") as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
async def keys(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[IdempotencyKeys]:
    if request.param == "memory":
        yield MemoryIdempotencyKeys()
        return
    redis = redisconn.connect(redis_url)
    yield RedisIdempotencyKeys(redis, prefix=f"contract:{uuid.uuid4().hex[:8]}:")
    await redis.aclose()


async def test_a_repeat_with_the_same_body_passes_whatever_its_key_order(keys: IdempotencyKeys) -> None:
    await keys.same_body_or_refuse("claims", "ann", "k1", BODY)
    await keys.same_body_or_refuse("claims", "ann", "k1", dict(reversed(BODY.items())))


async def test_a_repeat_with_another_body_is_refused_422_invalid_input(keys: IdempotencyKeys) -> None:
    await keys.same_body_or_refuse("claims", "ann", "k1", BODY)
    with pytest.raises(ApiError) as e:
        await keys.same_body_or_refuse("claims", "ann", "k1", BODY | {"territory_id": "jersey-city"})
    assert (e.value.reason, e.value.status) == ("invalid_input", 422)
    await keys.same_body_or_refuse("claims", "ann", "k1", BODY)   # the first body still passes


async def test_a_key_belongs_to_one_route_and_one_caller(keys: IdempotencyKeys) -> None:
    await keys.same_body_or_refuse("claims", "ann", "k1", BODY)
    await keys.same_body_or_refuse("claims", "ben", "k1", {"other": 1})
    await keys.same_body_or_refuse("trades", "ann", "k1", {"other": 2})
