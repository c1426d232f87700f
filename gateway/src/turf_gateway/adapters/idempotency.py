"""A repeated ``Idempotency-Key`` must come with the same body: the first answer is replayed only to the
request it answered. The gateway keeps, per caller and key, the SHA-256 of the first body (in Redis, for
:data:`KEEP_S`); a repeat with another body is refused 422 ``invalid_input`` before anything is asked."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from redis.asyncio import Redis

from turf_gateway.api.errors import ApiError

#: how long a key's body is remembered: longer than any client retries (a season is 18 game days)
KEEP_S = 60 * 24 * 3600


def body_hash(body: Any) -> str:
    """SHA-256 of ``body``'s canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


async def same_body_or_refuse(redis: Redis | None, prefix: str, route: str, caller: str, key: str,
                              body: Any) -> None:
    """Remember ``body`` as the first of ``caller``'s ``key`` on ``route``, or raise ApiError 422
    ``invalid_input`` when the key was first used with another body. Without Redis, nothing is checked."""
    if redis is None:
        return
    name = f"{prefix}idem:{route}:{caller}:{hashlib.sha256(key.encode()).hexdigest()}"
    digest = body_hash(body)
    async with redis.pipeline(transaction=True) as p:
        p.set(name, digest, nx=True, ex=KEEP_S)
        p.get(name)
        _, first = await p.execute()
    if first is not None:
        refuse_another_body(first.decode() if isinstance(first, bytes) else first, digest)


def refuse_another_body(first: str, digest: str) -> None:
    """ApiError 422 ``invalid_input`` when ``digest`` (of this request's body) is not the ``first`` one's."""
    if first != digest:
        raise ApiError("invalid_input", "This Idempotency-Key was already used with another request body; use a "
                                        "new key for a new request.", 422)


class RedisIdempotencyKeys:
    """The :class:`~turf_gateway.ports.IdempotencyKeys` port over Redis (none: nothing is checked)."""

    def __init__(self, redis: Redis | None, prefix: str) -> None:
        self.redis, self.prefix = redis, prefix

    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        await same_body_or_refuse(self.redis, self.prefix, route, caller, key, body)
