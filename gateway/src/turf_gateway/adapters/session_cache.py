"""The gateway's session lookups, kept for a few seconds.

Every authenticated request used to read its session and player from PostgreSQL: a pooled connection and a query
per request, about a fifth of the gateway's CPU for a claim. An entry here answers for at most ``ttl_s`` seconds
(the session's own expiry still applies), and is dropped at once, in every gateway, when what it holds stops being
true: a sign-out (the token), a status change — verification, rejection, disqualification — or a role change
(every entry of the player). The drop is told to the other gateways on the core NATS subject
:data:`turf_common.contracts.subjects.GATEWAY_SESSIONS_REVOKED` (:class:`SessionsRevoked`); should that message be
lost (NATS down at the moment), the entry still ends after ``ttl_s`` seconds, which bounds how long a revoked token
may still be answered by another replica.

Beside its sessions, a player's profile (what ``GET /me`` shows of the players table) is kept the same
way, for the same time, and dropped with the player's sessions: every change of what it shows (a status or role,
a profile edit, an email confirmation, R30) drops them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

C = TypeVar("C")


@dataclass(frozen=True)
class Entry(Generic[C]):
    caller: C
    player_id: str
    expires_at: datetime     # the session's own expiry (UTC)
    fresh_until: float       # monotonic seconds: after this the database is asked again


class SessionCache(Generic[C]):
    """Callers by token hash, at most ``max_entries`` (the least recently used go first), each for ``ttl_s``
    seconds. ``ttl_s`` 0 turns the cache off. Not thread-safe: one per event loop."""

    def __init__(self, ttl_s: float = 5.0, max_entries: int = 50_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.max_entries, self.clock = ttl_s, max_entries, clock
        self._by_hash: OrderedDict[str, Entry[C]] = OrderedDict()
        self._by_player: dict[str, set[str]] = {}
        self._profiles: OrderedDict[str, tuple[Any, float]] = OrderedDict()   # by player: (profile, fresh until)
        self.hits = self.misses = 0
        #: bumped by every eviction: a lookup that began before one does not store what it read (it may be the row
        #: the eviction was about, read just before the change committed)
        self.generation = 0

    def get(self, token_hash: str) -> Entry[C] | None:
        e = self._by_hash.get(token_hash)
        if e is None or e.fresh_until <= self.clock():
            if e is not None:
                self._drop(token_hash)
            self.misses += 1
            return None
        self._by_hash.move_to_end(token_hash)
        self.hits += 1
        return e

    def put(self, token_hash: str, player_id: str, caller: C, expires_at: datetime, generation: int) -> None:
        """Keep what a lookup read; ``generation`` is :attr:`generation` as it was when the lookup began."""
        if self.ttl_s <= 0 or generation != self.generation:
            return
        self._drop(token_hash)
        self._by_hash[token_hash] = Entry(caller, player_id, expires_at, self.clock() + self.ttl_s)
        self._by_player.setdefault(player_id, set()).add(token_hash)
        while len(self._by_hash) > self.max_entries:
            self._drop(next(iter(self._by_hash)))

    def evict_token(self, token_hash: str) -> None:
        self.generation += 1
        self._drop(token_hash)

    def _drop(self, token_hash: str) -> None:
        e = self._by_hash.pop(token_hash, None)
        if e is None:
            return
        hashes = self._by_player.get(e.player_id)
        if hashes is not None:
            hashes.discard(token_hash)
            if not hashes:
                del self._by_player[e.player_id]

    def evict_player(self, player_id: str) -> None:
        self.generation += 1
        self._profiles.pop(player_id, None)
        for h in self._by_player.pop(player_id, set()):
            self._by_hash.pop(h, None)

    def profile(self, player_id: str) -> Any | None:
        """The player's profile kept by :meth:`keep_profile`, while fresh."""
        kept = self._profiles.get(player_id)
        if kept is None or kept[1] <= self.clock():
            self._profiles.pop(player_id, None)
            return None
        return kept[0]

    def keep_profile(self, player_id: str, profile: Any, generation: int) -> None:
        """Keep what a read of the player's profile found; ``generation`` as :attr:`generation` was before it."""
        if self.ttl_s <= 0 or generation != self.generation:
            return
        self._profiles.pop(player_id, None)
        self._profiles[player_id] = (profile, self.clock() + self.ttl_s)
        while len(self._profiles) > self.max_entries:
            self._profiles.popitem(last=False)

    def __len__(self) -> int:
        return len(self._by_hash)
