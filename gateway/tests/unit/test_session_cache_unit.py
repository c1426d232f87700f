"""The gateway's session cache (turf_gateway.adapters.session_cache) on a fake clock."""

from __future__ import annotations

from datetime import UTC, datetime

from turf_gateway.adapters.session_cache import SessionCache

EXPIRES = datetime(2026, 10, 20, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_an_entry_answers_for_ttl_seconds_then_the_database_is_asked_again() -> None:
    clock = Clock()
    c: SessionCache[str] = SessionCache(ttl_s=5.0, clock=clock)
    c.put("h1", "p1", "caller-1", EXPIRES, c.generation)
    clock.t += 4.9
    e = c.get("h1")
    assert e is not None and (e.caller, e.player_id, e.expires_at) == ("caller-1", "p1", EXPIRES)
    clock.t += 0.2
    assert c.get("h1") is None and len(c) == 0
    assert (c.hits, c.misses) == (1, 1)


def test_a_sign_out_forgets_one_token_and_a_status_change_every_token_of_the_player() -> None:
    c: SessionCache[str] = SessionCache(ttl_s=60.0, clock=Clock())
    for h, pid in (("a", "p1"), ("b", "p1"), ("c", "p2")):
        c.put(h, pid, "x", EXPIRES, c.generation)
    c.evict_token("a")
    assert c.get("a") is None and c.get("b") is not None
    c.evict_player("p1")
    assert c.get("b") is None and c.get("c") is not None and len(c) == 1


def test_a_lookup_that_began_before_an_eviction_is_not_kept() -> None:
    """The row read just before a sign-out committed must not come back into the cache after its eviction."""
    c: SessionCache[str] = SessionCache(ttl_s=60.0, clock=Clock())
    began = c.generation
    c.evict_token("h1")                 # the sign-out, while the lookup waited for PostgreSQL
    c.put("h1", "p1", "stale", EXPIRES, began)
    assert c.get("h1") is None


def test_the_least_recently_used_go_first_and_ttl_zero_keeps_nothing() -> None:
    c: SessionCache[str] = SessionCache(ttl_s=60.0, max_entries=2, clock=Clock())
    c.put("a", "p1", "x", EXPIRES, c.generation)
    c.put("b", "p2", "x", EXPIRES, c.generation)
    assert c.get("a") is not None       # a is now the most recent
    c.put("c", "p3", "x", EXPIRES, c.generation)
    assert c.get("b") is None and c.get("a") is not None and c.get("c") is not None
    c.evict_player("p2")                # an evicted entry's player index went with it
    off: SessionCache[str] = SessionCache(ttl_s=0)
    off.put("a", "p1", "x", EXPIRES, off.generation)
    assert off.get("a") is None
