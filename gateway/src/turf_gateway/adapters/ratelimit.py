"""Rate limits (fixed windows in Redis) on the routes people could hammer: sign-in, registration, claims.
Over the limit: 429 ``rate_limited`` with ``Retry-After`` (seconds). Limits are settings (``TURF_RATE_LIMITS``)."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from redis.asyncio import Redis

from turf_gateway.api.errors import ApiError


@dataclass(frozen=True)
class Limit:
    count: int
    window_s: int


# name → limit; keys are "<name>:<who>"
DEFAULT_LIMITS: dict[str, Limit] = {
    # generous per address (a campus NAT, a rehearsal from one laptop), tight per account and per player
    "sessions_ip": Limit(300, 60),       # sign-in attempts per client address per minute
    # FAILED sign-ins to one account from one client address per minute (password guessing); counted
    # per client so that nobody else's failures ever refuse the right password from another client
    "sessions_email": Limit(10, 60),
    "sessions_fail_ip": Limit(60, 60),   # failed sign-ins per client address per minute, whatever the account
    # FAILED sign-ins to one account from every address together (a password guessed from a botnet).
    # Over it the account is slowed, not locked: an address the account signed in from in the last 30 days
    # (KNOWN_FOR_S) goes on as before; each other address, for that account, gets one attempt per
    # ``sessions_account_slow`` window and ``sessions_account_client`` attempts per quarter hour. Keyed per
    # (account, address): one slot per account let an attacker take every slot and keep the owner out
    "sessions_account": Limit(50, 900),
    "sessions_account_slow": Limit(1, 10),
    "sessions_account_client": Limit(6, 900),
    "players_ip": Limit(200, 3600),      # registrations per client address per hour
    "claims_player": Limit(30, 60),      # claim submissions per player per minute (one a day is the game)
    "claims_ip": Limit(120000, 60),      # … per client address per minute
    # R7.1: location checks per player per minute (each one joins the player's trail and is screened)
    "checks_player": Limit(30, 60),
    "checks_ip": Limit(120000, 60),      # … per client address per minute
    "push_player": Limit(10, 3600),      # PUT /me/push per player per hour (a browser saves once a load)
    # WS /ws/scores?since= resends per client address per minute (each may read back
    # TURF_WS_RESEND_MAX stream entries); over it the socket gets a snapshot instead, which costs nothing to read
    "resends_ip": Limit(30, 60),
    # K19, T3: the turn-based modes' writes per player. Opening a room (10 an hour), and every change of seat
    # (open, join, leave, removal: each a story on every spectator's feed) 12 a minute, so one account can neither
    # hide the rooms list nor flood the feed; moves (place, orders, choices, start, end) 120 a minute
    "modes_open_player": Limit(10, 3600),
    "modes_seat_player": Limit(12, 60),
    "modes_move_player": Limit(120, 60),
    # R30: password reset requests per address asked about (registered or not: the same 429 either way) and per
    # client address, per hour; a flood of reset mail to one inbox stops at the first
    "resets_email": Limit(3, 3600),
    "resets_ip": Limit(30, 3600),
    "password_player": Limit(10, 3600),   # R30: PUT /me/password per player per hour (a stolen session guessing)
}
#: seconds an address stays known to an account after a sign-in from it (spared the account's slow-down)
KNOWN_FOR_S = 30 * 86400


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

    async def over(self, name: str, who: str) -> bool:
        """Whether ``who`` has used up limit ``name`` in the current window (counts nothing, refuses nothing)."""
        counts = await self._count([(name, who)], add=False)
        return self.limits is not None and any(c >= self.limits[n].count for n, c, _ in counts)

    async def undo(self, name: str, who: str, *more: tuple[str, str]) -> None:
        """Take back one count of each pair (a provisional failure that turned out a success); a window that has
        expired meanwhile stays gone."""
        if self.redis is None or self.limits is None:
            return
        keys = [f"{self.prefix}rl:{n}:{w}" for n, w in [(name, who), *more]]
        await self.redis.eval(_UNDO, len(keys), *keys)   # type: ignore[misc]

    async def remember(self, name: str, who: str, seconds: int) -> None:
        """Mark ``who`` under ``name`` for ``seconds`` (an address an account signed in from)."""
        if self.redis is not None and self.limits is not None:
            await self.redis.set(f"{self.prefix}rl:{name}:{who}", 1, ex=seconds)

    async def remembers(self, name: str, who: str) -> bool:
        return self.redis is not None and bool(await self.redis.exists(f"{self.prefix}rl:{name}:{who}"))

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
                p.pttl(key)   # ms: a Retry-After rounded down would send the client back too early
            out = await p.execute()
        step = 3 if add else 2
        return [(n, int(out[step * i + step - 2] or 0), int(out[step * i + step - 1]))
                for i, (n, _) in enumerate(pairs)]

    def _refuse(self, counts: list[tuple[str, int, int]], over: Callable[[int, int], bool]) -> None:
        assert self.limits is not None or not counts
        for n, count, pttl in counts:
            if self.limits is not None and over(self.limits[n].count, count):
                retry = max(math.ceil(pttl / 1000), 1)
                raise ApiError("rate_limited", f"Too many requests; try again in {retry} s.", 429,
                               headers={"Retry-After": str(retry)})


#: decrement only counters that still exist: DECR on an expired key would make a -1 that never expires
_UNDO = "for _, k in ipairs(KEYS) do if redis.call('exists', k) == 1 then redis.call('decr', k) end end return 0"


def address_key(host: str) -> str:
    """The per-address limits' key of a client address. An IPv6 address is keyed by its /64 (one
    subscriber's prefix holds 2^64 addresses, all of one client); IPv4 (also written IPv4-mapped) whole;
    anything else (a test client's name) as it is."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_ip(request: Request) -> str:
    """The caller's address key (:func:`address_key`): the peer's, or the client a trusted proxy names."""
    return address_key(request.client.host) if request.client else "unknown"
