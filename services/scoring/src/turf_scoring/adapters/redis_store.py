"""The read model in Redis (keys under one prefix, default ``turf:``). Round trips per batch of
``territory.changed``: one transaction applying every change (the APPLY script of each) and reading what
the delta needs (the touched players' sets and adjustments, the owners, the disqualified, the close), one pipeline
of the WRITE_SCORES and SWAP_BONUS scripts, and only when a player's side-quest bonus moved without their owning
anything new, one read of their standings: two or three in all, where there were six.

Keys: ``ver`` territory → version; ``own`` territory → owner; ``p:<player>`` the player's territory set; ``pv``
player → set version; ``score`` player → JSON of base, outposts, territories; ``bonus`` the last side-quest bonuses
(JSON) and ``bonus_before:<source>`` what they were before that source; ``dq`` disqualified players; ``adj`` player
→ adjustment; ``adjcmd`` command id → its reply; ``closed`` and ``final`` once the season has closed; ``snap:<id>``
a kept snapshot's pages (a list), ``snaps`` the kept snapshots by age and ``snapseq`` their counter; ``joined``
the players who joined the season (R31) and ``verified`` every player verified once (shared by all seasons).

R31: each season has its own board state and scores. The configuration file's season keeps the keys above under
the prefix itself (2026's data needs no migration); another season's are under ``<prefix><season_id>:``
(:meth:`RedisScoreStore.of_season`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from turf_common.contracts.scoring import FinalResults, ScoreAdjusted
from turf_common.rules.scoring import PlayerScore
from turf_scoring.ports import SNAPSHOT_TTL_S, SNAPSHOTS_KEPT, Applied, LiveFacts, OwnedSet, StoredScore, stored_score

# Atomic compare-and-apply of one ownership change; returns the previous owner ("" for none), or false when
# the change is not newer than what is stored (redelivery, reordering). Each player's territory set has a version
# (KEYS[3]) bumped with every change to it, so a score computed from an older set is never written (WRITE_SCORES).
APPLY = """
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= cur then return false end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local prev = redis.call('HGET', KEYS[2], ARGV[1]) or ''
if prev ~= '' then
  redis.call('SREM', ARGV[4] .. prev, ARGV[1])
  redis.call('HINCRBY', KEYS[3], prev, 1)
end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
  redis.call('SADD', ARGV[4] .. ARGV[3], ARGV[1])
  redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
end
return prev
"""

# Write each player's score (ARGV: player, set version read, score JSON; repeated) unless their territory set
# changed since it was read (another replica applied a change meanwhile); returns the players not written.
WRITE_SCORES = """
local stale = {}
for i = 1, #ARGV, 3 do
  if (redis.call('HGET', KEYS[2], ARGV[i]) or '0') == ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  else
    table.insert(stale, ARGV[i])
  end
end
return stale
"""


# Swap in the new side-quest bonuses and return the ones they replace, remembered per source (event or command)
# id: a redelivered event compares against what the bonuses were before its first handling, not against itself,
# so a player whose bonus it moved is in its delta again.
SWAP_BONUS = """
local before = redis.call('GET', KEYS[2])
if not before then
  before = redis.call('GET', KEYS[1]) or '{}'
  redis.call('SET', KEYS[2], before, 'EX', ARGV[2])
end
redis.call('SET', KEYS[1], ARGV[1])
return before
"""
BONUS_MEMORY_S = 7 * 24 * 3600   # longer than any redelivery

# Keep a snapshot's pages: the list KEYS[1] expiring in ARGV[1] ms, entered in the index KEYS[2] (by the
# counter KEYS[3]); the oldest snapshots beyond ARGV[2] are deleted with their index entries. ARGV[3..] the pages (a
# few dozen at most: 100,000 players are 100 pages).
KEEP_SNAPSHOT = """
redis.call('DEL', KEYS[1])
redis.call('RPUSH', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), KEYS[1])
local old = redis.call('ZRANGE', KEYS[2], 0, -(tonumber(ARGV[2]) + 1))
for _, key in ipairs(old) do redis.call('DEL', key) end
if #old > 0 then redis.call('ZREM', KEYS[2], unpack(old)) end
return #old
"""


def _text(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v


def _score_args(scores: Sequence[tuple[OwnedSet, PlayerScore]]) -> list[str]:
    """WRITE_SCORES' ARGV: player, set version read, score JSON; repeated."""
    args: list[str] = []
    for owned, sc in scores:
        args += [owned.player_id, owned.version, json.dumps(stored_score(sc))]
    return args


def _owned_from(own: dict[bytes, bytes]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for tid, pid in own.items():
        out.setdefault(pid.decode(), set()).add(tid.decode())
    return out


class RedisScoreStore:
    """:class:`turf_scoring.ports.ScoreStore` on ``redis`` (replies as bytes), keys under ``prefix``."""

    def __init__(self, redis: Redis, prefix: str = "turf:", ttl_s: float = SNAPSHOT_TTL_S,
                 keep_at_most: int = SNAPSHOTS_KEPT) -> None:
        self.redis, self.prefix = redis, prefix
        self.ttl_s, self.keep_at_most = ttl_s, keep_at_most
        # every role of the store (ports.ScoreStore) is served by this one object
        self.ownership = self.standings = self.organizer = self.season = self.snapshots = self

    def k(self, name: str) -> str:
        return self.prefix + name

    def of_season(self, season_id: str) -> RedisScoreStore:
        return RedisScoreStore(self.redis, f"{self.prefix}{season_id}:", self.ttl_s, self.keep_at_most)

    async def join(self, player_id: str) -> bool:
        return bool(await self.redis.sadd(self.k("joined"), player_id))  # type: ignore[misc]

    async def has_joined(self, player_id: str) -> bool:
        return bool(await self.redis.sismember(self.k("joined"), player_id))  # type: ignore[misc]

    async def mark_verified(self, player_id: str) -> None:
        await self.redis.sadd(self.k("verified"), player_id)  # type: ignore[misc]

    async def is_verified(self, player_id: str) -> bool:
        return bool(await self.redis.sismember(self.k("verified"), player_id))  # type: ignore[misc]

    async def is_closed(self) -> bool:
        return bool(await self.redis.exists(self.k("closed")))

    async def apply_and_read(self, changes: Sequence[tuple[str, int, str | None]],
                             player_ids: Sequence[str]) -> Applied:
        # one MULTI: the scripts run in order, each atomic, and the reads see exactly the state they left
        async with self.redis.pipeline(transaction=True) as p:
            for territory_id, version, owner_id in changes:
                p.eval(APPLY, 3, self.k("ver"), self.k("own"), self.k("pv"), territory_id, version, owner_id or "",
                       self.k("p:"))
            self._read_sets(p, player_ids)
            p.hmget(self.k("adj"), player_ids or ["-"])
            self._read_live(p)
            out = await p.execute()
        n, m = len(changes), len(player_ids)
        previous = [None if prev is None else _text(prev) for prev in out[:n]]
        sets = self._sets(player_ids, out[n], out[n + 1:n + 1 + m])
        adj = {pid: int(a or 0) for pid, a in zip(player_ids, out[n + 1 + m], strict=False)}
        return Applied(previous, sets, self._live(*out[n + 2 + m:]), adj)

    async def territory_sets(self, player_ids: Sequence[str]) -> list[OwnedSet]:
        async with self.redis.pipeline(transaction=True) as p:
            self._read_sets(p, player_ids)
            versions, *sets = await p.execute()
        return self._sets(player_ids, versions, sets)

    def _read_sets(self, p: Pipeline, player_ids: Sequence[str]) -> None:
        p.hmget(self.k("pv"), player_ids or ["-"])   # HMGET needs a field; "-" is no player id
        for pid in player_ids:
            p.smembers(self.k("p:" + pid))

    @staticmethod
    def _sets(player_ids: Sequence[str], versions: list[bytes | None], sets: Sequence[set[bytes]]) -> list[OwnedSet]:
        return [OwnedSet(pid, _text(ver) if ver is not None else "0", {_text(m) for m in members})
                for pid, ver, members in zip(player_ids, versions, sets, strict=False)]

    async def write_scores(self, scores: Sequence[tuple[OwnedSet, PlayerScore]]) -> list[str]:
        stale = await self.redis.eval(WRITE_SCORES, 2, self.k("score"), self.k("pv"),  # type: ignore[misc]
                                      *_score_args(scores))
        return [_text(x) for x in stale]

    async def write_scores_and_swap_bonuses(
            self, scores: Sequence[tuple[OwnedSet, PlayerScore]], bonus: Mapping[str, int],
            source_id: str) -> tuple[list[str], dict[str, int]]:
        async with self.redis.pipeline(transaction=False) as p:
            p.eval(WRITE_SCORES, 2, self.k("score"), self.k("pv"), *_score_args(scores))
            self._swap(p, bonus, source_id)
            stale, old_raw = await p.execute()
        return [_text(x) for x in stale], json.loads(old_raw)

    async def live(self) -> LiveFacts:
        async with self.redis.pipeline(transaction=False) as p:
            self._read_live(p)
            return self._live(*await p.execute())

    def _read_live(self, p: Pipeline) -> None:
        p.hgetall(self.k("own"))
        p.smembers(self.k("dq"))
        p.exists(self.k("closed"))

    @staticmethod
    def _live(own: dict[bytes, bytes], dq: set[bytes], closed: int) -> LiveFacts:
        return LiveFacts(_owned_from(own), {_text(m) for m in dq}, bool(closed))

    async def swap_bonuses(self, bonus: Mapping[str, int], source_id: str) -> dict[str, int]:
        async with self.redis.pipeline(transaction=False) as p:
            self._swap(p, bonus, source_id)
            (old_raw,) = await p.execute()
        old: dict[str, int] = json.loads(old_raw)
        return old

    def _swap(self, p: Pipeline, bonus: Mapping[str, int], source_id: str) -> None:
        p.eval(SWAP_BONUS, 2, self.k("bonus"), self.k("bonus_before:" + source_id), json.dumps(bonus), BONUS_MEMORY_S)

    async def standings_of(self, player_ids: Sequence[str]) -> list[tuple[StoredScore | None, int]]:
        async with self.redis.pipeline(transaction=False) as p:
            p.hmget(self.k("score"), player_ids)
            p.hmget(self.k("adj"), player_ids)
            raw, adj = await p.execute()
        return [(None if sc is None else json.loads(sc), int(a or 0)) for sc, a in zip(raw, adj, strict=True)]

    async def disqualify(self, player_id: str) -> None:
        await self.redis.sadd(self.k("dq"), player_id)  # type: ignore[misc]

    async def adjustment_reply(self, command_id: str) -> ScoreAdjusted | None:
        seen = await self.redis.hget(self.k("adjcmd"), command_id)  # type: ignore[misc]
        return None if seen is None else ScoreAdjusted.model_validate_json(seen)

    async def adjustment(self, player_id: str) -> int:
        return int(await self.redis.hget(self.k("adj"), player_id) or 0)  # type: ignore[misc]

    async def add_adjustment(self, player_id: str, points: int) -> int:
        return int(await self.redis.hincrby(self.k("adj"), player_id, points))  # type: ignore[misc]

    async def has_score(self, player_id: str) -> bool:
        return bool(await self.redis.hexists(self.k("score"), player_id))  # type: ignore[misc]

    async def remember_adjustment(self, reply: ScoreAdjusted) -> None:
        await self.redis.hset(self.k("adjcmd"), reply.command_id, reply.model_dump_json())  # type: ignore[misc]

    async def scores(self) -> dict[str, StoredScore]:
        raw: dict[bytes, bytes] = await self.redis.hgetall(self.k("score"))  # type: ignore[misc,assignment]
        return {p.decode(): json.loads(v) for p, v in raw.items()}

    async def disqualified(self) -> set[str]:
        return {_text(m) for m in await self.redis.smembers(self.k("dq"))}  # type: ignore[misc,union-attr]

    async def owned_by(self) -> dict[str, set[str]]:
        return _owned_from(await self.redis.hgetall(self.k("own")))  # type: ignore[misc,arg-type]

    async def adjustments(self) -> dict[str, int]:
        raw: dict[bytes, bytes] = await self.redis.hgetall(self.k("adj"))  # type: ignore[misc,assignment]
        return {p.decode(): int(v) for p, v in raw.items()}

    async def close_season(self, at: datetime) -> None:
        await self.redis.set(self.k("closed"), at.isoformat())

    async def save_final(self, results: FinalResults) -> None:
        await self.redis.set(self.k("final"), results.model_dump_json())

    async def final(self) -> FinalResults | None:
        raw = await self.redis.get(self.k("final"))
        return None if raw is None else FinalResults.model_validate_json(raw)

    async def keep(self, snapshot_id: str, pages: Sequence[bytes]) -> None:
        await self.redis.eval(KEEP_SNAPSHOT, 3, self.k("snap:" + snapshot_id), self.k("snaps"),  # type: ignore[misc]
                              self.k("snapseq"), int(self.ttl_s * 1000), self.keep_at_most, *pages)

    async def page(self, snapshot_id: str, n: int) -> bytes | None:
        if n < 0:   # LINDEX counts a negative index from the end
            return None
        raw: bytes | None = await self.redis.lindex(self.k("snap:" + snapshot_id), n)  # type: ignore[misc,assignment]
        return raw
