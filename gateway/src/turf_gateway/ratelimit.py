"""Rate limits (fixed windows in Redis) on the routes people could hammer: sign-in, registration, claims.
Over the limit: 429 ``rate_limited`` with ``Retry-After`` (seconds). Limits are settings (``TURF_RATE_LIMITS``)."""

from __future__ import annotations

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
    "sessions_email": Limit(10, 60),     # … per account per minute (password guessing)
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
        if self.redis is None or self.limits is None:
            return
        pairs = [(name, who), *more]
        async with self.redis.pipeline(transaction=True) as p:
            for n, w in pairs:
                key = f"{self.prefix}rl:{n}:{w}"
                p.set(key, 0, ex=self.limits[n].window_s, nx=True)   # opens the window (Redis 6: no EXPIRE NX)
                p.incr(key)
                p.ttl(key)
            out = await p.execute()
        for i, (n, _) in enumerate(pairs):
            count, ttl = out[3 * i + 1], out[3 * i + 2]
            if int(count) > self.limits[n].count:
                retry = max(int(ttl), 1)
                raise ApiError("rate_limited", f"Too many requests; try again in {retry} s.", 429,
                               headers={"Retry-After": str(retry)})


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"
