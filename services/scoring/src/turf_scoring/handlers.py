"""Scoring: apply ``territory.changed`` to the Redis read model, recompute the touched players (R23, R24),
publish ``score.updated``. Each change carries a per-territory version, so a redelivered or stale event is a no-op.

An event costs the same whatever the number of players: the two players it touches are rescored, the side quests
are recomputed over the owned territories (at most one entry per territory), and ``score.updated`` carries only the
standings that changed. The whole ranked leaderboard is built only when someone asks for it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

import networkx as nx
import structlog
from redis.asyncio import Redis

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import (
    AdjustScore,
    FinalResults,
    FinalStanding,
    Leaderboard,
    QuestStanding,
    ScoreAdjusted,
    ScoreChange,
    ScoreUpdated,
    SeasonFinalResults,
    Standing,
)
from turf_common.legacy_bus import Bus
from turf_common.rules.prizes import PrizeTable, final_places
from turf_common.rules.scoring import (
    QuestResult,
    TerritoryStats,
    bonuses,
    competition_ranks,
    player_score,
    side_quests,
)

log = structlog.get_logger(__name__)

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


def _text(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v


def _figures(pid: str, stored: bytes | str, bonus: int, adjustment: int) -> ScoreChange:
    """One player's figures from their stored score (base, outposts, territories: R23), side-quest bonus (R24)
    and organizer adjustment (R28): total = base + bonus + adjustment."""
    s = json.loads(stored)
    return ScoreChange(player_id=pid, base=s["base"], outposts=s["outposts"], bonuses=bonus,
                       total=s["base"] + bonus + adjustment, territories=s["territories"])


def _quest_standings(quests: dict[str, QuestResult]) -> dict[str, QuestStanding]:
    return {q: QuestStanding(leaders=r.leaders, value=r.value) for q, r in quests.items()}


@dataclass
class ScoringService:
    redis: Redis
    bus: Bus
    graph: nx.Graph
    stats: dict[str, TerritoryStats]
    prefix: str = "turf:"
    prizes: PrizeTable = field(default_factory=PrizeTable.load)
    # one delta at a time in this process (the event consumer and organizer adjustments run side by side), so a
    # delta computed from older reads is never published after a newer one
    publishing: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    def k(self, name: str) -> str:
        return self.prefix + name

    async def apply(self, ev: TerritoryChanged) -> bool:
        """Apply one change; True if it was new. Recomputes only the previous and the new owner."""
        prev = await self.redis.eval(APPLY, 3, self.k("ver"), self.k("own"), self.k("pv"),  # type: ignore[misc]
                                     ev.territory_id, ev.version, ev.owner_id or "", self.k("p:"))
        new = prev is not None
        if new:
            prev = _text(prev)
        else:
            # Already applied (a redelivery, perhaps after a crash before the publish below): rescoring and
            # re-publishing is harmless, the stream drops the duplicate by its Nats-Msg-Id.
            prev = ev.previous_owner_id
        touched = sorted({p for p in (prev, ev.owner_id) if p})
        log.info("territory_scored", territory_id=ev.territory_id, version=ev.version, players=touched, new=new)
        await self._rescore(*touched)
        closed = await self._publish_update(touched, ev.territory_id, ev.occurred_at, ev.event_id)
        if closed:
            await self._publish_final(ev.event_id, ev.occurred_at)  # a post-season correction (R28)
        return new

    async def _rescore(self, *pids: str) -> None:
        """Recompute players (R23) from their territory sets: one atomic read of the sets and their versions, the
        clusters in Python, one conditional write. Optimistic: a player whose set another replica changed
        meanwhile is read and computed again, so a stale score never overwrites a fresh one."""
        todo = sorted(set(pids))
        while todo:
            async with self.redis.pipeline(transaction=True) as p:
                p.hmget(self.k("pv"), todo)
                for pid in todo:
                    p.smembers(self.k("p:" + pid))
                versions, *sets = await p.execute()
            args: list[str] = []
            for pid, ver, members in zip(todo, versions, sets, strict=True):
                sc = player_score(self.graph, pid, {_text(m) for m in members})
                args += [pid, _text(ver) if ver is not None else "0",
                         json.dumps({"base": sc.base, "outposts": sc.outposts, "territories": sc.territories})]
            stale = await self.redis.eval(WRITE_SCORES, 2, self.k("score"), self.k("pv"), *args)  # type: ignore[misc]
            todo = [_text(x) for x in stale]

    @staticmethod
    def _owned_from(own: dict[bytes, bytes]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for tid, pid in own.items():
            out.setdefault(pid.decode(), set()).add(tid.decode())
        return out

    async def owned_by(self) -> dict[str, set[str]]:
        """Player id → the territory ids they own."""
        return self._owned_from(await self.redis.hgetall(self.k("own")))  # type: ignore[misc,arg-type]

    async def disqualify(self, ev: PlayerDisqualified) -> None:
        """R28: a disqualified player leaves the standings (their territories are freed by claims)."""
        await self.redis.sadd(self.k("dq"), ev.player_id)  # type: ignore[misc]
        await self._publish_update([ev.player_id], "", ev.occurred_at, ev.event_id, removed=[ev.player_id])

    async def adjust(self, cmd: AdjustScore) -> ScoreAdjusted:
        """R28: an organizer's score adjustment, counted in the total (not in base or side quests)."""
        seen = await self.redis.hget(self.k("adjcmd"), cmd.command_id)  # type: ignore[misc]
        if seen is not None:
            # a repeat: publish its delta again, in case the first publish failed (the stream drops a duplicate)
            await self._publish_update([cmd.player_id], "", datetime.now(UTC), "adj:" + cmd.command_id)
            return ScoreAdjusted.model_validate_json(seen)
        before = int(await self.redis.hget(self.k("adj"), cmd.player_id) or 0)  # type: ignore[misc]
        after = await self.redis.hincrby(self.k("adj"), cmd.player_id, cmd.points)  # type: ignore[misc]
        if not await self.redis.hexists(self.k("score"), cmd.player_id):  # type: ignore[misc]
            await self._rescore(cmd.player_id)
        out = ScoreAdjusted(command_id=cmd.command_id, player_id=cmd.player_id, before=before, after=int(after))
        await self.redis.hset(self.k("adjcmd"), cmd.command_id, out.model_dump_json())  # type: ignore[misc]
        at = datetime.now(UTC)
        closed = await self._publish_update([cmd.player_id], "", at, "adj:" + cmd.command_id)
        if closed:
            await self._publish_final("adj:" + cmd.command_id, at)
        return out

    async def _publish_update(self, touched: list[str], territory_id: str, at: datetime, source_id: str,
                              removed: list[str] | None = None) -> bool:
        """Compute and publish the ``score.updated`` of one event or command (message id ``score:<source>``);
        True when the season has closed."""
        async with self.publishing:
            upd, closed = await self._update(touched, territory_id, at, source_id, removed)
            await self.bus.publish(subjects.SCORE_UPDATED, upd.model_dump_json().encode(), "score:" + source_id)
        return closed

    async def _update(self, touched: list[str], territory_id: str, at: datetime, source_id: str,
                      removed: list[str] | None = None) -> tuple[ScoreUpdated, bool]:
        """The ``score.updated`` delta after a change, and whether the season has closed (R25). The delta: the side
        quests (R24) over every owned territory, and the standing of each touched player and of each player whose
        side-quest bonus moved. The last bonuses are kept in Redis and swapped atomically (SWAP_BONUS), so with
        several replicas every bonus change is in some delta. Three round trips to Redis."""
        async with self.redis.pipeline(transaction=False) as p:
            p.hgetall(self.k("own"))
            p.smembers(self.k("dq"))
            p.exists(self.k("closed"))
            own, dq_raw, closed = await p.execute()
        quests = side_quests(self._owned_from(own), self.stats)
        bonus = bonuses(quests)
        old_raw = await self.redis.eval(SWAP_BONUS, 2, self.k("bonus"),  # type: ignore[misc]
                                        self.k("bonus_before:" + source_id), json.dumps(bonus), BONUS_MEMORY_S)
        old: dict[str, int] = json.loads(old_raw)
        changed = set(touched) | {p for p in bonus.keys() | old.keys() if bonus.get(p, 0) != old.get(p, 0)}
        ids = sorted(changed - {_text(m) for m in dq_raw})
        changes: list[ScoreChange] = []
        if ids:
            async with self.redis.pipeline(transaction=False) as p:
                p.hmget(self.k("score"), ids)
                p.hmget(self.k("adj"), ids)
                raw, adj = await p.execute()
            # a player never scored has no entry (an adjustment alone creates the entry first)
            changes = [_figures(pid, sc, bonus.get(pid, 0), int(a or 0))
                       for pid, sc, a in zip(ids, raw, adj, strict=True) if sc is not None]
        return ScoreUpdated(occurred_at=at, players=touched, territory_id=territory_id, changes=changes,
                            removed=removed or [], at=at, side_quests=_quest_standings(quests)), bool(closed)

    async def leaderboard(self) -> Leaderboard:
        raw: dict[bytes, bytes] = await self.redis.hgetall(self.k("score"))  # type: ignore[misc,assignment]
        dq = {m.decode() for m in await self.redis.smembers(self.k("dq"))}  # type: ignore[misc,union-attr]
        quests = side_quests(await self.owned_by(), self.stats)
        bonus = bonuses(quests)
        adj_raw: dict[bytes, bytes] = await self.redis.hgetall(self.k("adj"))  # type: ignore[misc,assignment]
        adj = {p.decode(): int(v) for p, v in adj_raw.items()}
        figures = {pid: _figures(pid, v, bonus.get(pid, 0), adj.get(pid, 0))
                   for pid, v in ((p.decode(), v) for p, v in raw.items()) if pid not in dq}
        standings = [Standing(rank=r, **figures[p].model_dump())
                     for r, p, _ in competition_ranks({p: f.total for p, f in figures.items()})]
        return Leaderboard(standings=standings, side_quests=_quest_standings(quests))

    async def season_ended(self, ev: SeasonEnded) -> FinalResults:
        """R25: freeze the final standings (base + side-quest bonuses), places and prizes (R26); publish them.
        Idempotent: the results are derived from the read model, and the publish carries a fixed message id."""
        await self.redis.set(self.k("closed"), ev.at.isoformat())
        return await self._publish_final(ev.event_id, ev.at)

    async def _publish_final(self, source_id: str, at: datetime) -> FinalResults:
        res = await self.final_results()
        await self.redis.set(self.k("final"), res.model_dump_json())
        out = SeasonFinalResults(occurred_at=at, results=res)
        await self.bus.publish(subjects.SEASON_FINAL_RESULTS, out.model_dump_json().encode(), "final:" + source_id)
        return res

    async def final_results(self) -> FinalResults:
        lb = await self.leaderboard()
        by_id = {s.player_id: s for s in lb.standings}
        places = final_places({s.player_id: s.total for s in lb.standings}, self.prizes)
        return FinalResults(standings=[
            FinalStanding(place=f.place, player_id=f.player_id, base=by_id[f.player_id].base,
                          bonuses=by_id[f.player_id].bonuses, total=f.total, prize=str(f.prize)) for f in places])

    async def results(self) -> FinalResults | Refusal:
        raw = await self.redis.get(self.k("final"))
        if raw is None:
            return Refusal(reason="season_not_closed", message="The season has not closed yet; no final results.")
        return FinalResults.model_validate_json(raw)


def now_utc() -> datetime:
    return datetime.now(UTC)
