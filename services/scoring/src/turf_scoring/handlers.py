"""Scoring's use cases: apply ``territory.changed`` to the read model, recompute the touched players (R23, R24),
publish ``score.updated``; disqualifications and adjustments (R28); the close of the season and its final results
(R25, R26). Each change carries a per-territory version, so a redelivered or stale event changes nothing.

An event costs the same whatever the number of players: the two players it touches are rescored, the side quests
are recomputed over the owned territories (at most one entry per territory), and ``score.updated`` carries only the
standings that changed. The whole ranked leaderboard is built only when someone asks for it."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

import networkx as nx
import pydantic
import structlog

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.contracts.scoring import (
    RESULTS_PAGE,
    AdjustScore,
    FinalResults,
    FinalStanding,
    Leaderboard,
    LeaderboardRequest,
    QuestStanding,
    ResultsRequest,
    ScoreAdjusted,
    ScoreChange,
    ScoreUpdated,
    SeasonFinalResults,
    Standing,
)
from turf_common.outbox import StreamPublisher
from turf_common.rules.prizes import PrizeTable, final_places
from turf_common.rules.scoring import (
    QuestResult,
    TerritoryStats,
    bonuses,
    competition_ranks,
    player_score,
    side_quests,
)
from turf_scoring.ports import Applied, OwnedSet, ScoreStore, StoredScore, stored_score

log = structlog.get_logger(__name__)

#: The events scoring consumes, in stream order.
ScoringFact = TerritoryChanged | SeasonEnded | PlayerDisqualified | PlayerVerified
#: a page cursor: ``<snapshot id>:<page number>``, the first page being 0 (never asked by a cursor)
_CURSOR = re.compile(r"([0-9a-f]{32}):([1-9][0-9]{0,5})")
Paged = TypeVar("Paged", Leaderboard, FinalResults)


def now_utc() -> datetime:
    return datetime.now(UTC)


def _figures(pid: str, s: StoredScore, bonus: int, adjustment: int) -> ScoreChange:
    """One player's figures from their stored score (base, outposts, territories: R23), side-quest bonus (R24)
    and organizer adjustment (R28): total = base + bonus + adjustment."""
    return ScoreChange(player_id=pid, base=s["base"], outposts=s["outposts"], bonuses=bonus,
                       total=s["base"] + bonus + adjustment, territories=s["territories"])


def _changed(touched: Sequence[str], bonus: Mapping[str, int], old: Mapping[str, int],
             disqualified: set[str]) -> list[str]:
    """The players a delta carries (sorted): those touched and those whose side-quest bonus moved (R24), never the
    disqualified (R28)."""
    moved = {p for p in bonus.keys() | old.keys() if bonus.get(p, 0) != old.get(p, 0)}
    return sorted((set(touched) | moved) - disqualified)


def _score_updated(touched: list[str], territory_id: str, at: datetime, ids: list[str],
                   standings: Mapping[str, tuple[StoredScore | None, int]], quests: dict[str, QuestResult],
                   bonus: Mapping[str, int], removed: list[str] | None = None) -> ScoreUpdated:
    """The ``score.updated`` delta: the standing of each of ``ids`` from its stored score and adjustment (a player
    never scored has no entry: an adjustment alone creates the entry first) and the side quests."""
    changes = [_figures(pid, sc, bonus.get(pid, 0), a) for pid in ids for sc, a in (standings[pid],)
               if sc is not None]
    return ScoreUpdated(occurred_at=at, players=touched, territory_id=territory_id, changes=changes,
                        removed=removed or [], at=at, side_quests=_quest_standings(quests))


def _quest_standings(quests: dict[str, QuestResult]) -> dict[str, QuestStanding]:
    return {q: QuestStanding(leaders=r.leaders, value=r.value) for q, r in quests.items()}


@dataclass
class ScoringHandlers:
    store: ScoreStore
    publisher: StreamPublisher
    graph: nx.Graph
    stats: Mapping[str, TerritoryStats]
    prizes: PrizeTable = field(default_factory=PrizeTable.load)
    now: Callable[[], datetime] = now_utc   # the time of an adjustment's delta
    # one delta at a time in this process (the event consumer and organizer adjustments run side by side), so a
    # delta computed from older reads is never published after a newer one
    publishing: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    async def on_event(self, ev: ScoringFact) -> None:
        """One event of the durable consumer, by its type."""
        if isinstance(ev, TerritoryChanged):
            await self.apply(ev)
        elif isinstance(ev, SeasonEnded):
            await self.season_ended(ev)
        elif isinstance(ev, PlayerVerified):
            await self.verified(ev)
        else:
            await self.disqualify(ev)

    async def on_events(self, events: Sequence[ScoringFact]) -> None:
        """A batch of the durable consumer, in stream order: each run of consecutive territory changes
        is applied as one (:meth:`apply_all`: one rescore, one ``score.updated``), the other events one by one.
        Idempotent like :meth:`on_event`, so a batch applied again one event at a time after a failure
        (turf_common.bus.settle_batch) ends in the same state."""
        run: list[TerritoryChanged] = []
        for ev in events:
            if isinstance(ev, TerritoryChanged):
                run.append(ev)
                continue
            if run:
                await self.apply_all(run)
                run = []
            await self.on_event(ev)
        if run:
            await self.apply_all(run)

    async def apply(self, ev: TerritoryChanged) -> bool:
        """Apply one change; True if it was new. Recomputes only the previous and the new owner."""
        return await self.apply_all([ev]) == 1

    async def apply_all(self, changes: Sequence[TerritoryChanged]) -> int:
        """Apply consecutive changes in order, then rescore every player they touched (R23) and publish one
        ``score.updated`` for them all (its ``territory_ids``; message id ``score:<the last change's id>``).
        Returns how many changes were new. A change applied before (a redelivery, perhaps after a crash before the
        publish) changes nothing, and rescoring and re-publishing is harmless. Two store round trips in the common
        case: apply and read, then write and swap the bonuses."""
        named = sorted({p for ev in changes for p in (ev.previous_owner_id, ev.owner_id) if p})
        last = changes[-1]
        async with self.publishing:
            got = await self.store.ownership.apply_and_read(
                [(ev.territory_id, ev.version, ev.owner_id) for ev in changes], named)
            touched: set[str] = set()
            for ev, prev in zip(changes, got.previous, strict=True):
                touched |= {p for p in (ev.previous_owner_id if prev is None else prev, ev.owner_id) if p}
            players = sorted(touched)
            new = sum(prev is not None for prev in got.previous)
            log.info("territories_scored", changes=len(changes), new=new, players=len(players),
                     territory_id=last.territory_id, version=last.version)
            sets = [s for s in got.sets if s.player_id in touched]
            unread = sorted(touched - {s.player_id for s in sets})
            if unread:   # a previous owner other than the event's (the store had a reordering)
                sets += await self.store.ownership.territory_sets(unread)
            upd = await self._delta_after(players, sets, got, last)
            await self._publish(upd, last.event_id, [ev.territory_id for ev in changes])
        if got.live.closed:
            await self._publish_final(last.event_id, last.occurred_at)  # a post-season correction (R28)
        return new

    async def _delta_after(self, players: list[str], sets: list[OwnedSet], got: Applied,
                           last: TerritoryChanged) -> ScoreUpdated:
        """The delta of a batch of changes from what :meth:`ScoreStore.apply_and_read` read: the touched players'
        scores (R23) written with the new side-quest bonuses (R24) in one round trip; a score refused as stale
        (another replica moved that player's set meanwhile) is read and computed again (:meth:`rescore`)."""
        quests = side_quests(got.live.owned_by, self.stats)
        bonus = bonuses(quests)
        scores = [(s, player_score(self.graph, s.player_id, s.territories)) for s in sets]
        stale, old = await self.store.standings.write_scores_and_swap_bonuses(scores, bonus, last.event_id)
        if stale:
            await self.rescore(*stale)
        ids = _changed(players, bonus, old, got.live.disqualified)
        known: dict[str, tuple[StoredScore | None, int]] = {
            sc.player_id: (stored_score(sc), got.adjustments[sc.player_id]) for _, sc in scores
            if sc.player_id not in stale and sc.player_id in got.adjustments}
        need = [p for p in ids if p not in known]
        known |= dict(zip(need, await self.store.standings.standings_of(need), strict=True)) if need else {}
        return _score_updated(players, last.territory_id, last.occurred_at, ids, known, quests, bonus)

    async def rescore(self, *pids: str) -> None:
        """Recompute players (R23) from their territory sets: one read of the sets and their versions, the
        clusters here, one conditional write. Optimistic: a player whose set another replica changed meanwhile is
        read and computed again, so a stale score never overwrites a fresh one."""
        todo = sorted(set(pids))
        while todo:
            sets = await self.store.ownership.territory_sets(todo)
            todo = await self.store.standings.write_scores(
                [(s, player_score(self.graph, s.player_id, s.territories)) for s in sets])

    async def verified(self, ev: PlayerVerified) -> None:
        """R25 (amended): a verified player is in the standings, live and final, from their verification on, at 0
        while they own nothing. Their standing is stored (computed from what they own, nothing at first) and
        published as a delta; after the close the final results are recomputed too. A repeat changes nothing
        (the same figures, the same message ids). The organizer is never verified (it is no player, R27), so it
        never enters the standings."""
        if ev.player_id in await self.store.season.disqualified():
            return   # a disqualification is final (R28): never back in the standings
        await self.rescore(ev.player_id)
        closed = await self._publish_update([ev.player_id], "", ev.occurred_at, ev.event_id)
        if closed:
            await self._publish_final(ev.event_id, ev.occurred_at)

    async def disqualify(self, ev: PlayerDisqualified) -> None:
        """R28: a disqualified player leaves the standings, live and final (their territories are freed by
        claims). After the close the final results are recomputed without them and published again (R25)."""
        await self.store.season.disqualify(ev.player_id)
        closed = await self._publish_update([ev.player_id], "", ev.occurred_at, ev.event_id,
                                            removed=[ev.player_id])
        if closed:
            await self._publish_final(ev.event_id, ev.occurred_at)

    async def adjust(self, cmd: AdjustScore) -> ScoreAdjusted:
        """R28: an organizer's score adjustment, counted in the total (not in base or side quests). Idempotent by
        ``command_id``: a repeat gets the first reply."""
        seen = await self.store.organizer.adjustment_reply(cmd.command_id)
        if seen is not None:
            # a repeat: publish its delta again, in case the first publish failed (the stream drops a duplicate)
            await self._publish_update([cmd.player_id], "", self.now(), "adj:" + cmd.command_id)
            return seen
        before = await self.store.organizer.adjustment(cmd.player_id)
        after = await self.store.organizer.add_adjustment(cmd.player_id, cmd.points)
        if not await self.store.standings.has_score(cmd.player_id):
            await self.rescore(cmd.player_id)
        out = ScoreAdjusted(command_id=cmd.command_id, player_id=cmd.player_id, before=before, after=after)
        await self.store.organizer.remember_adjustment(out)
        at = self.now()
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
            await self._publish(upd, source_id)
        return closed

    async def _publish(self, upd: ScoreUpdated, source_id: str, territory_ids: list[str] | None = None) -> None:
        """Publish one delta (message id ``score:<source>``); the caller holds :attr:`publishing`."""
        if territory_ids is not None:
            upd = upd.model_copy(update={"territory_ids": territory_ids})
        await self.publisher.publish(subjects.SCORE_UPDATED, upd.model_dump_json().encode(), "score:" + source_id)

    async def _update(self, touched: list[str], territory_id: str, at: datetime, source_id: str,
                      removed: list[str] | None = None) -> tuple[ScoreUpdated, bool]:
        """The ``score.updated`` delta after a change, and whether the season has closed (R25). The delta: the side
        quests (R24) over every owned territory, and the standing of each touched player and of each player whose
        side-quest bonus moved. The last bonuses are kept in the store and swapped atomically, so with several
        replicas every bonus change is in some delta."""
        live = await self.store.ownership.live()
        quests = side_quests(live.owned_by, self.stats)
        bonus = bonuses(quests)
        old = await self.store.standings.swap_bonuses(bonus, source_id)
        ids = _changed(touched, bonus, old, live.disqualified)
        standings = dict(zip(ids, await self.store.standings.standings_of(ids), strict=True)) if ids else {}
        return _score_updated(touched, territory_id, at, ids, standings, quests, bonus, removed), live.closed

    async def leaderboard(self) -> Leaderboard:
        """Every player not disqualified who has a standing (every verified player from their verification on,
        at 0 while they own nothing: R25 amended), ranked by total (R25 competition ranking), and the side
        quests."""
        scores = await self.store.standings.scores()
        dq = await self.store.season.disqualified()
        quests = side_quests(await self.store.ownership.owned_by(), self.stats)
        bonus = bonuses(quests)
        adj = await self.store.organizer.adjustments()
        figures = {pid: _figures(pid, s, bonus.get(pid, 0), adj.get(pid, 0))
                   for pid, s in scores.items() if pid not in dq}
        standings = [Standing(rank=r, **figures[p].model_dump())
                     for r, p, _ in competition_ranks({p: f.total for p, f in figures.items()})]
        return Leaderboard(standings=standings, side_quests=_quest_standings(quests))

    async def leaderboard_page(self, q: LeaderboardRequest) -> Leaderboard | Refusal:
        """``scoring.leaderboard``: a page of at most ``q.limit`` standings. The first page (``after``
        None) ranks everyone now (:meth:`leaderboard`); a league that fits in it gets it whole (``next`` None: one
        reply, as before paging). A longer one is cut into pages kept together for a short time
        (:class:`~turf_scoring.ports.Snapshots`), and ``next`` names the following page of that same ranking, so
        a change of scores between two pages never repeats nor skips a player. ``invalid_input`` for a cursor
        this service did not make; ``not_found`` once its ranking has expired (ask for the first page again)."""
        if q.after is not None:
            return await self._kept(q.after, Leaderboard)
        return await self._paged(await self.leaderboard(), q.limit)

    async def results_page(self, q: ResultsRequest) -> FinalResults | Refusal:
        """``scoring.results``: a page of the final results (:meth:`results`), paged as
        :meth:`leaderboard_page`; ``season_not_closed`` before the close."""
        if q.after is not None:
            return await self._kept(q.after, FinalResults)
        res = await self.results()
        return res if isinstance(res, Refusal) else await self._paged(res, q.limit)

    async def _paged(self, whole: Paged, limit: int) -> Paged:
        """``whole`` itself when it fits in a page, else its first page, all of its pages kept. The snapshot is
        named by the digest of what it holds: callers asking while nothing changed share one snapshot."""
        rows = whole.standings
        if len(rows) <= limit:
            return whole
        sid = hashlib.sha256(whole.model_dump_json().encode()).hexdigest()[:32]
        count = -(-len(rows) // limit)
        pages = [whole.model_copy(update={"standings": rows[n * limit:(n + 1) * limit],
                                          "next": f"{sid}:{n + 1}" if n + 1 < count else None})
                 for n in range(count)]
        await self.store.snapshots.keep(sid, [p.model_dump_json().encode() for p in pages])
        return pages[0]

    async def _kept(self, after: str, model: type[Paged]) -> Paged | Refusal:
        """The kept page a cursor names, or the refusal: ``invalid_input`` (not a cursor of this service, or of
        another list), ``not_found`` (expired, evicted, or past the last page)."""
        m = _CURSOR.fullmatch(after)
        if m is None:
            return Refusal(reason="invalid_input", message="That page cursor is not one this service gave.")
        raw = await self.store.snapshots.page(m[1], int(m[2]))
        if raw is None:
            return Refusal(reason="not_found", message="That page's ranking has expired; ask for the first page "
                                                       "again.")
        try:
            return model.model_validate_json(raw)
        except pydantic.ValidationError:   # a cursor of the other list
            return Refusal(reason="invalid_input", message="That page cursor is not one of this list.")

    async def season_ended(self, ev: SeasonEnded) -> FinalResults:
        """R25: freeze the final standings (base + side-quest bonuses), places and prizes (R26); publish them.
        Idempotent: the results are derived from the read model, and the publish carries a fixed message id."""
        await self.store.season.close_season(ev.at)
        return await self._publish_final(ev.event_id, ev.at)

    async def _publish_final(self, source_id: str, at: datetime) -> FinalResults:
        res = await self.final_results()
        await self.store.season.save_final(res)
        # the first page of places only (see SeasonFinalResults), so the event fits in one message
        out = SeasonFinalResults(occurred_at=at, standings=len(res.standings), results=res.model_copy(update={
            "standings": res.standings[:RESULTS_PAGE]}))
        await self.publisher.publish(subjects.SEASON_FINAL_RESULTS, out.model_dump_json().encode(),
                                     "final:" + source_id)
        return res

    async def final_results(self) -> FinalResults:
        """R25/R26: the leaderboard's totals placed, ties sharing a place, with the prize of each place."""
        lb = await self.leaderboard()
        by_id = {s.player_id: s for s in lb.standings}
        places = final_places({s.player_id: s.total for s in lb.standings}, self.prizes)
        return FinalResults(standings=[
            FinalStanding(place=f.place, player_id=f.player_id, base=by_id[f.player_id].base,
                          bonuses=by_id[f.player_id].bonuses, total=f.total, prize=str(f.prize)) for f in places])

    async def results(self) -> FinalResults | Refusal:
        """The final results once the season has closed; refused (``season_not_closed``) before."""
        res = await self.store.season.final()
        if res is None:
            return Refusal(reason="season_not_closed", message="The season has not closed yet; no final results.")
        return res
