"""The players' trails in Redis (R7.1): a list per player, newest fix first, trimmed to the trail's length; Redis
keeps it across restarts (its append-only file) and every geo-verify replica sees the same trails."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from turf_common.rules.antispoof import FixRecord
from turf_geo.ports import TrailBefore, Unavailable

#: a trail untouched this long is dropped: the day's first fix is compared with the player's last one (R7.1), which
#: may be a few game days old (the season's days off), never a season's
TTL = timedelta(days=14)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
#: the trail as it was, then the new fix in front, in one step (a script runs alone in Redis): the player's
#: concurrent fixes each see the other or are seen by it, on whichever replica they arrive
_JOIN = """
local before = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return before
"""


class RedisTrails:
    """:class:`turf_geo.ports.Trails` in Redis, keys ``<prefix>trail:<player id>``; instants kept exactly (whole
    microseconds since the epoch)."""

    def __init__(self, redis: Redis, prefix: str = "turf:") -> None:
        self.redis, self.prefix = redis, prefix
        self._join = redis.register_script(_JOIN)

    async def join(self, player_id: str, fix: FixRecord, since: datetime, limit: int) -> TrailBefore:
        try:
            raw = await self._join(keys=[f"{self.prefix}trail:{player_id}"],
                                   args=[_encode(fix), limit, int(TTL.total_seconds())])
        except (RedisError, OSError) as e:
            raise Unavailable(f"trail: {type(e).__name__}: {e}") from e
        newest_first = [_decode(r) for r in raw]
        fixes = [f for f in reversed(newest_first) if f.received_at >= since]
        return TrailBefore(fixes, newest_first[0] if newest_first else None)

    async def fixes(self, player_id: str) -> list[FixRecord]:
        try:
            raw = await self.redis.lrange(f"{self.prefix}trail:{player_id}", 0, -1)
        except (RedisError, OSError) as e:
            raise Unavailable(f"trail: {type(e).__name__}: {e}") from e
        return [_decode(r) for r in reversed(raw)]

    async def erase(self, player_id: str | None) -> int:
        try:
            if player_id is not None:
                return await self._erase([f"{self.prefix}trail:{player_id}"])
            erased = 0
            async for keys in _batches(self.redis.scan_iter(match=f"{self.prefix}trail:*", count=500)):
                erased += await self._erase(keys)
            return erased
        except (RedisError, OSError) as e:
            raise Unavailable(f"trail: {type(e).__name__}: {e}") from e

    async def _erase(self, keys: list[str]) -> int:
        """The fixes of ``keys`` counted and deleted in one round trip."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for k in keys:
                pipe.llen(k)
            pipe.delete(*keys)
            *lengths, _ = await pipe.execute()
        return sum(int(n) for n in lengths)


async def _batches(keys: AsyncIterator[Any], size: int = 500) -> AsyncIterator[list[str]]:
    batch: list[str] = []
    async for k in keys:
        batch.append(k.decode() if isinstance(k, bytes) else k)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _encode(f: FixRecord) -> str:
    return f"{f.lat!r} {f.lon!r} {f.accuracy_m!r} {(f.fix_time - _EPOCH) // _US} {(f.received_at - _EPOCH) // _US}"


def _decode(raw: bytes | str) -> FixRecord:
    lat, lon, acc, fix_us, at_us = (raw.decode() if isinstance(raw, bytes) else raw).split()
    return FixRecord(float(lat), float(lon), float(acc), _EPOCH + int(fix_us) * _US, _EPOCH + int(at_us) * _US)
