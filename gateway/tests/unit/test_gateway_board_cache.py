"""GET /board's body cache (turf_gateway.adapters.board_cache): one build per version, shared by the callers
that come while it runs; a new version builds again; the gzip body is the same content."""

from __future__ import annotations

import asyncio
import gzip

import pytest

from turf_gateway.adapters.board_cache import OWNERSHIP_WRITES, BoardCache


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


@pytest.mark.parametrize(("path", "moves"), [
    ("/api/v1/claims", True), ("/api/v1/cards/play", True), ("/api/v1/trades/t1/accept", True),
    ("/api/v1/admin/corrections", True), ("/api/v1/admin/players/p1/disqualify", True),
    ("/api/v1/admin/clock", True),
    ("/api/v1/claims/check", False), ("/api/v1/sessions", False), ("/api/v1/trades/t1/decline", False),
    ("/api/v1/trades", False), ("/api/v1/players", False),
])
def test_only_requests_that_may_change_ownership_move_the_board_on(path: str, moves: bool) -> None:
    assert bool(OWNERSHIP_WRITES.match(path)) is moves
