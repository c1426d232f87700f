"""Issue 19: GET /board's body cache (turf_gateway.board_cache): one build per version, shared by the callers
that come while it runs; a new version builds again; the gzip body is the same content."""

from __future__ import annotations

import asyncio
import gzip

from turf_gateway.board_cache import BoardCache


async def test_concurrent_reads_of_one_version_share_one_build_and_a_new_version_builds_again() -> None:
    cache, builds = BoardCache(), []

    async def build() -> bytes:
        builds.append(1)
        await asyncio.sleep(0.01)
        return b'{"features": %d}' % len(builds)

    bodies = await asyncio.gather(*(cache.get(1, build) for _ in range(200)))
    assert len(builds) == 1 and {b.raw for b in bodies} == {b'{"features": 1}'}
    assert gzip.decompress(bodies[0].gz) == bodies[0].raw and cache.fresh(1) is bodies[0]
    assert cache.fresh(2) is None
    newer = await cache.get(2, build)
    assert len(builds) == 2 and newer.raw == b'{"features": 2}' and newer.etag != bodies[0].etag


async def test_a_failed_build_is_not_cached() -> None:
    cache = BoardCache()

    async def broken() -> bytes:
        raise RuntimeError("claims did not answer")

    async def fine() -> bytes:
        return b"{}"

    try:
        await cache.get(1, broken)
    except RuntimeError:
        pass
    assert cache.fresh(1) is None and (await cache.get(1, fine)).raw == b"{}"
