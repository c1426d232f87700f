"""Rate limits (fixed windows in Redis) on the routes people could hammer: sign-in, registration, claims.
Over the limit: 429 ``rate_limited`` with ``Retry-After`` (seconds). Limits are settings (``TURF_RATE_LIMITS``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from redis.asyncio import Redis

from turf_gateway.errors import ApiError


@dataclass(frozen=True)
class Limit:
    count: int
    window_s: int


# name → limit; keys are "<name>:<who>"
DEFAULT_LIMITS: dict[str, Limit] = {
    # generous per address (a campus NAT, a rehearsal from one laptop), tight per account and per player
    "sessions_ip": Limit(300, 60),       # sign-in attempts per client address per minute
    # issue 15: FAILED sign-ins to one account from one client address per minute (password guessing); counted
    # per client so that nobody else's failures ever refuse the right password from another client
    "sessions_email": Limit(10, 60),
    "sessions_fail_ip": Limit(60, 60),   # failed sign-ins per client address per minute, whatever the account
    "players_ip": Limit(200, 3600),      # registrations per client address per hour
    "claims_player": Limit(30, 60),      # claim submissions per player per minute (one a day is the game)
    "claims_ip": Limit(120000, 60),      # … per client address per minute
    # R7.1: location checks per player per minute (each one joins the player's trail and is screened)
    "checks_player": Limit(30, 60),
    "checks_ip": Limit(120000, 60),      # … per client address per minute
}


def parse_limits(spec: str) -> dict[str, Limit] | None:
    """``default`` | ``off`` | ``name=count/seconds,…`` over the defaults. None means no limits."""
    if spec == "off":
        return None
    limits = dict(DEFAULT_LIMITS)
    if spec not in ("", "default"):
        for part in spec.split(","):
            name, _, value = part.partition("=")
            count, _, window = value.partition("/")
            if name.strip() not in limits:
                raise ValueError(f"unknown rate limit {name!r}")
            limits[name.strip()] = Limit(int(count), int(window))
    return limits


class RateLimiter:
    def __init__(self, redis: Redis | None, limits: dict[str, Limit] | None, prefix: str = "turf:") -> None:
        self.redis, self.limits, self.prefix = redis, limits, prefix

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None:
        """Count one request of ``who`` against limit ``name`` (and of each further ``(name, who)`` pair, all in
        one round trip to Redis); raise 429 when any is over its limit. A window opens at the first request (its
        key expires ``window_s`` later), so a burst never straddles two windows."""
        self._refuse(await self._count([(name, who), *more], add=True), over=lambda n, c: c > n)

    async def note(self, name: str, who: str, *more: tuple[str, str]) -> None:
        """Count one event (a failed sign-in) of ``who`` against ``name`` (and further pairs), refusing nothing."""
        await self._count([(name, who), *more], add=True)

    async def check(self, name: str, who: str, *more: tuple[str, str]) -> None:
        """Raise 429 (``Retry-After``: the window's rest) when ``who`` has already used up limit ``name`` (or a
        further pair's) in the current window; counts nothing. With :meth:`note`, a limit on failures only."""
        self._refuse(await self._count([(name, who), *more], add=False), over=lambda n, c: c >= n)

    async def _count(self, pairs: list[tuple[str, str]], add: bool) -> list[tuple[str, int, int]]:
        if self.redis is None or self.limits is None:
            return []
        async with self.redis.pipeline(transaction=True) as p:
            for n, w in pairs:
                key = f"{self.prefix}rl:{n}:{w}"
                if add:
                    p.set(key, 0, ex=self.limits[n].window_s, nx=True)   # opens the window (Redis 6: no EXPIRE NX)
                    p.incr(key)
                else:
                    p.get(key)
                p.ttl(key)
            out = await p.execute()
        step = 3 if add else 2
        return [(n, int(out[step * i + step - 2] or 0), int(out[step * i + step - 1]))
                for i, (n, _) in enumerate(pairs)]

    def _refuse(self, counts: list[tuple[str, int, int]], over: Callable[[int, int], bool]) -> None:
        assert self.limits is not None or not counts
        for n, count, ttl in counts:
            if self.limits is not None and over(self.limits[n].count, count):
                retry = max(ttl, 1)
                raise ApiError("rate_limited", f"Too many requests; try again in {retry} s.", 429,
                               headers={"Retry-After": str(retry)})


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"
