"""The read model in this process's memory: the same contract as :class:`RedisScoreStore` for one process (unit
tests and anything that runs the handlers without a Redis). Not shared between replicas."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from turf_common.contracts.scoring import FinalResults, ScoreAdjusted
from turf_common.rules.scoring import PlayerScore
from turf_scoring.ports import SNAPSHOT_TTL_S, SNAPSHOTS_KEPT, Applied, LiveFacts, OwnedSet, StoredScore, stored_score


@dataclass
class MemoryScoreStore:
    """:class:`turf_scoring.ports.ScoreStore` in dicts; the fields mirror the Redis keys of the same names."""

    ver: dict[str, int] = field(default_factory=dict)
    own: dict[str, str] = field(default_factory=dict)
    sets: dict[str, set[str]] = field(default_factory=dict)
    pv: dict[str, int] = field(default_factory=dict)
    score: dict[str, StoredScore] = field(default_factory=dict)
    bonus: dict[str, int] = field(default_factory=dict)
    bonus_before: dict[str, dict[str, int]] = field(default_factory=dict)
    dq: set[str] = field(default_factory=set)
    adj: dict[str, int] = field(default_factory=dict)
    adjcmd: dict[str, ScoreAdjusted] = field(default_factory=dict)
    closed: datetime | None = None
    final_results: FinalResults | None = None
    # snapshot id -> (monotonic expiry, pages), oldest first
    kept: dict[str, tuple[float, list[bytes]]] = field(default_factory=dict)
    ttl_s: float = SNAPSHOT_TTL_S
    keep_at_most: int = SNAPSHOTS_KEPT
    joined: set[str] = field(default_factory=set)
    verified: set[str] = field(default_factory=set)
    # R31: the other seasons' stores (the Redis store's ``<prefix><season_id>:`` keys)
    seasons: dict[str, MemoryScoreStore] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # every role of the store (ports.ScoreStore) is served by this one object
        self.ownership = self.standings = self.organizer = self.season = self.snapshots = self

    def of_season(self, season_id: str) -> MemoryScoreStore:
        return self.seasons.setdefault(season_id, MemoryScoreStore(ttl_s=self.ttl_s, keep_at_most=self.keep_at_most))

    async def join(self, player_id: str) -> bool:
        new = player_id not in self.joined
        self.joined.add(player_id)
        return new

    async def has_joined(self, player_id: str) -> bool:
        return player_id in self.joined

    async def mark_verified(self, player_id: str) -> None:
        self.verified.add(player_id)

    async def is_verified(self, player_id: str) -> bool:
        return player_id in self.verified

    async def is_closed(self) -> bool:
        return self.closed is not None

    async def apply_and_read(self, changes: Sequence[tuple[str, int, str | None]],
                             player_ids: Sequence[str]) -> Applied:
        previous = [self._apply(*c) for c in changes]
        return Applied(previous, await self.territory_sets(player_ids), await self.live(),
                       {p: self.adj.get(p, 0) for p in player_ids})

    async def write_scores_and_swap_bonuses(
            self, scores: Sequence[tuple[OwnedSet, PlayerScore]], bonus: Mapping[str, int],
            source_id: str) -> tuple[list[str], dict[str, int]]:
        return await self.write_scores(scores), await self.swap_bonuses(bonus, source_id)

    def _apply(self, territory_id: str, version: int, owner_id: str | None) -> str | None:
        if version <= self.ver.get(territory_id, -1):
            return None
        self.ver[territory_id] = version
        prev = self.own.pop(territory_id, "")
        for pid in (prev, owner_id):
            if pid:
                self.pv[pid] = self.pv.get(pid, 0) + 1
        if prev:
            self.sets.get(prev, set()).discard(territory_id)
        if owner_id:
            self.own[territory_id] = owner_id
            self.sets.setdefault(owner_id, set()).add(territory_id)
        return prev

    async def territory_sets(self, player_ids: Sequence[str]) -> list[OwnedSet]:
        return [OwnedSet(p, str(self.pv.get(p, 0)), set(self.sets.get(p, ()))) for p in player_ids]

    async def write_scores(self, scores: Sequence[tuple[OwnedSet, PlayerScore]]) -> list[str]:
        stale = []
        for owned, sc in scores:
            if str(self.pv.get(owned.player_id, 0)) == owned.version:
                self.score[owned.player_id] = stored_score(sc)
            else:
                stale.append(owned.player_id)
        return stale

    async def live(self) -> LiveFacts:
        return LiveFacts(await self.owned_by(), set(self.dq), self.closed is not None)

    async def swap_bonuses(self, bonus: Mapping[str, int], source_id: str) -> dict[str, int]:
        before = self.bonus_before.setdefault(source_id, dict(self.bonus))
        self.bonus = dict(bonus)
        return dict(before)

    async def standings_of(self, player_ids: Sequence[str]) -> list[tuple[StoredScore | None, int]]:
        return [(self.score.get(p), self.adj.get(p, 0)) for p in player_ids]

    async def disqualify(self, player_id: str) -> None:
        self.dq.add(player_id)

    async def adjustment_reply(self, command_id: str) -> ScoreAdjusted | None:
        return self.adjcmd.get(command_id)

    async def adjustment(self, player_id: str) -> int:
        return self.adj.get(player_id, 0)

    async def add_adjustment(self, player_id: str, points: int) -> int:
        self.adj[player_id] = self.adj.get(player_id, 0) + points
        return self.adj[player_id]

    async def has_score(self, player_id: str) -> bool:
        return player_id in self.score

    async def remember_adjustment(self, reply: ScoreAdjusted) -> None:
        self.adjcmd[reply.command_id] = reply

    async def scores(self) -> dict[str, StoredScore]:
        return dict(self.score)

    async def disqualified(self) -> set[str]:
        return set(self.dq)

    async def owned_by(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for tid, pid in self.own.items():
            out.setdefault(pid, set()).add(tid)
        return out

    async def adjustments(self) -> dict[str, int]:
        return dict(self.adj)

    async def close_season(self, at: datetime) -> None:
        self.closed = at

    async def save_final(self, results: FinalResults) -> None:
        self.final_results = results

    async def final(self) -> FinalResults | None:
        return self.final_results

    async def keep(self, snapshot_id: str, pages: Sequence[bytes]) -> None:
        self.kept.pop(snapshot_id, None)
        self.kept[snapshot_id] = (time.monotonic() + self.ttl_s, list(pages))
        while len(self.kept) > self.keep_at_most:
            del self.kept[next(iter(self.kept))]

    async def page(self, snapshot_id: str, n: int) -> bytes | None:
        until, pages = self.kept.get(snapshot_id, (0.0, []))
        return pages[n] if until > time.monotonic() and 0 <= n < len(pages) else None
