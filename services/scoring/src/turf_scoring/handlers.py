"""Scoring's use cases: apply ``territory.changed`` to the read model, recompute the touched players (R23, R24),
publish ``score.updated``; disqualifications and adjustments (R28); the close of the season and its final results
(R25, R26). Each change carries a per-territory version, so a redelivered or stale event changes nothing.

An event costs the same whatever the number of players: the two players it touches are rescored, the side quests
are recomputed over the owned territories (at most one entry per territory), and ``score.updated`` carries only the
standings that changed. The whole ranked leaderboard is built only when someone asks for it.

R31: every season has its own store (:meth:`ScoreStore.of_season`): its board state, scores, side quests,
adjustments, disqualifications, close and final results. An event belongs to the season it names, else to the season
in force at its instant (:meth:`SeasonBook.config_at`): a post-season correction (R28) to the last closed season
before the next one opens recomputes that season's final results, and a new season starts with no scores."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypeVar

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
from turf_common.contracts.seasons import SeasonJoined
from turf_common.outbox import StreamPublisher
from turf_common.rules import gametime
from turf_common.rules.prizes import PrizeTable, final_places
from turf_common.rules.scoring import (
    QuestResult,
    TerritoryStats,
    bonuses,
    competition_ranks,
    player_score,
    side_quests,
)
from turf_common.seasonbook import SeasonBook
from turf_scoring.ports import Applied, OwnedSet, ScoreStore, StoredScore, stored_score

log = structlog.get_logger(__name__)

#: The events scoring consumes, in stream order.
ScoringFact = TerritoryChanged | SeasonEnded | PlayerDisqualified | PlayerVerified | SeasonJoined
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


class GameNow(Protocol):
    """The game clock (turf_common.gameclock): the season in force is the one at the game's now (R31), which a
    rehearsal's manual clock sets."""

    async def now(self) -> datetime: ...


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
    store: ScoreStore   # the configuration file's season's (``home``); another season's is ``store.of_season``
    publisher: StreamPublisher
    graph: nx.Graph
    stats: Mapping[str, TerritoryStats]
    prizes: PrizeTable = field(default_factory=PrizeTable.load)
    now: Callable[[], datetime] = now_utc   # the time of an adjustment's delta
    #: R31: every season of the catalog; None: the configuration file's season alone
    book: SeasonBook | None = None
    #: the season whose keys are the store's own (the configuration file's); None: the book's first season
    home: str | None = None
    #: the game clock that says which season is in force (None: :attr:`now`)
    clock: GameNow | None = None
    # one delta at a time in this process (the event consumer and organizer adjustments run side by side), so a
    # delta computed from older reads is never published after a newer one
    publishing: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _stores: dict[str, ScoreStore] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.book is None:
            self.book = SeasonBook.of(gametime.load_season())
        if self.home is None:
            self.home = self.book.configs[0].season_id

    # ---- seasons (R31) -------------------------------------------------------------------------------------------

    @property
    def seasons(self) -> SeasonBook:
        assert self.book is not None
        return self.book

    def of(self, season_id: str | None) -> ScoreStore:
        """The store of ``season_id``: the root store for the configuration file's season (None), else its own."""
        if season_id is None or season_id == self.home:
            return self.store
        if season_id not in self._stores:
            self._stores[season_id] = self.store.of_season(season_id)
        return self._stores[season_id]

    def prize_table(self, season_id: str) -> PrizeTable:
        """R26 for ``season_id``: the prize table the organizer gave the season (R31); the deployment's prize file
        when the season's is the file's or none was given. The file's explicit tie cases are amounts of the file's
        table, so a season with a table of its own shares tied places by the formula alone."""
        places = self.seasons.prizes(season_id)
        if places is None or places == self.prizes.places:
            return self.prizes
        return PrizeTable(places, {})

    def season_at(self, at: datetime) -> str:
        """R31: the season in force at ``at`` (running, or the last closed until the next one opens)."""
        return self.seasons.config_at(at).season_id

    def season_of(self, ev: TerritoryChanged | PlayerVerified | PlayerDisqualified) -> str:
        """The season an event belongs to: the one it names, else the one in force at its instant."""
        named = getattr(ev, "season_id", None)
        return named if isinstance(named, str) and named else self.season_at(ev.occurred_at)

    async def game_now(self) -> datetime:
        return await self.clock.now() if self.clock is not None else self.now()

    async def _asked_season(self, season_id: str | None) -> str | Refusal:
        """The season a request names (None: the one in force at the game's now); ``not_found`` for one the
        catalog does not hold."""
        if season_id is None:
            return self.season_at(await self.game_now())
        await self.seasons.holding(season_id)
        if self.seasons.get(season_id) is None and season_id != self.home:
            return Refusal(reason="not_found", message=f"There is no season {season_id!r}.")
        return season_id

    def _mid(self, kind: str, season_id: str, source_id: str) -> str:
        """A message id: ``<kind>:<source>`` for the configuration file's season (as before seasons), else
        ``<kind>:<season>:<source>``, so one source (a verification entering two seasons) publishes for each."""
        return f"{kind}:{source_id}" if season_id == self.home else f"{kind}:{season_id}:{source_id}"

    # ---- the consumer --------------------------------------------------------------------------------------------

    async def _catalog_for(self, events: Sequence[ScoringFact]) -> None:
        """Read the catalog afresh when an event is past the close of the season in force at its instant: a season
        whose first opening it may be has perhaps not come through the book's watch yet (R31: its first claims
        must not score on the last season's board)."""
        await self.seasons.caught_up_to(max(ev.occurred_at for ev in events))

    async def on_event(self, ev: ScoringFact) -> None:
        """One event of the durable consumer, by its type."""
        await self._catalog_for([ev])
        if isinstance(ev, TerritoryChanged):
            await self.apply(ev)
        elif isinstance(ev, SeasonEnded):
            await self.season_ended(ev)
        elif isinstance(ev, PlayerVerified):
            await self.verified(ev)
        elif isinstance(ev, SeasonJoined):
            await self.joined(ev)
        else:
            await self.disqualify(ev)

    async def on_events(self, events: Sequence[ScoringFact]) -> None:
        """A batch of the durable consumer, in stream order: each run of consecutive territory changes of one
        season is applied as one (:meth:`apply_all`: one rescore, one ``score.updated``), the other events one by
        one. Idempotent like :meth:`on_event`, so a batch applied again one event at a time after a failure
        (turf_common.bus.settle_batch) ends in the same state."""
        if events:
            await self._catalog_for(events)
        run: list[TerritoryChanged] = []
        for ev in events:
            if isinstance(ev, TerritoryChanged):
                if run and self.season_of(ev) != self.season_of(run[0]):
                    await self.apply_all(run)
                    run = []
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
        """Apply consecutive changes of one season in order, then rescore every player they touched (R23) and
        publish one ``score.updated`` for them all (its ``territory_ids``; message id ``score:<the last change's
        id>``). Returns how many changes were new. A change applied before (a redelivery, perhaps after a crash
        before the publish) changes nothing, and rescoring and re-publishing is harmless. Two store round trips in
        the common case: apply and read, then write and swap the bonuses."""
        named = sorted({p for ev in changes for p in (ev.previous_owner_id, ev.owner_id) if p})
        last = changes[-1]
        season = self.season_of(last)
        st = self.of(season)
        async with self.publishing:
            got = await st.ownership.apply_and_read(
                [(ev.territory_id, ev.version, ev.owner_id) for ev in changes], named)
            touched: set[str] = set()
            for ev, prev in zip(changes, got.previous, strict=True):
                touched |= {p for p in (ev.previous_owner_id if prev is None else prev, ev.owner_id) if p}
            players = sorted(touched)
            new = sum(prev is not None for prev in got.previous)
            log.info("territories_scored", changes=len(changes), new=new, players=len(players),
                     territory_id=last.territory_id, version=last.version, season_id=season)
            sets = [s for s in got.sets if s.player_id in touched]
            unread = sorted(touched - {s.player_id for s in sets})
            if unread:   # a previous owner other than the event's (the store had a reordering)
                sets += await st.ownership.territory_sets(unread)
            upd = await self._delta_after(st, players, sets, got, last)
            await self._publish(season, upd, last.event_id, [ev.territory_id for ev in changes])
        if got.live.closed:
            await self._publish_final(season, last.event_id, last.occurred_at)  # a post-season correction (R28)
        return new

    async def _delta_after(self, st: ScoreStore, players: list[str], sets: list[OwnedSet], got: Applied,
                           last: TerritoryChanged) -> ScoreUpdated:
        """The delta of a batch of changes from what :meth:`ScoreStore.apply_and_read` read: the touched players'
        scores (R23) written with the new side-quest bonuses (R24) in one round trip; a score refused as stale
        (another replica moved that player's set meanwhile) is read and computed again (:meth:`rescore`)."""
        quests = side_quests(got.live.owned_by, self.stats)
        bonus = bonuses(quests)
        scores = [(s, player_score(self.graph, s.player_id, s.territories)) for s in sets]
        stale, old = await st.standings.write_scores_and_swap_bonuses(scores, bonus, last.event_id)
        if stale:
            await self._rescore(st, *stale)
        ids = _changed(players, bonus, old, got.live.disqualified)
        known: dict[str, tuple[StoredScore | None, int]] = {
            sc.player_id: (stored_score(sc), got.adjustments[sc.player_id]) for _, sc in scores
            if sc.player_id not in stale and sc.player_id in got.adjustments}
        need = [p for p in ids if p not in known]
        known |= dict(zip(need, await st.standings.standings_of(need), strict=True)) if need else {}
        return _score_updated(players, last.territory_id, last.occurred_at, ids, known, quests, bonus)

    async def rescore(self, *pids: str, season_id: str | None = None) -> None:
        """Recompute players (R23) of ``season_id`` (None: the configuration file's season) from their territory
        sets."""
        await self._rescore(self.of(season_id), *pids)

    async def _rescore(self, st: ScoreStore, *pids: str) -> None:
        """One read of the sets and their versions, the clusters here, one conditional write. Optimistic: a player
        whose set another replica changed meanwhile is read and computed again, so a stale score never overwrites
        a fresh one."""
        todo = sorted(set(pids))
        while todo:
            sets = await st.ownership.territory_sets(todo)
            todo = await st.standings.write_scores(
                [(s, player_score(self.graph, s.player_id, s.territories)) for s in sets])

    async def verified(self, ev: PlayerVerified) -> None:
        """R25 (amended): a verified player is in the standings, live and final, from their verification on, at 0
        while they own nothing. R31: in the standings of each season they joined (:meth:`joined`); a player who
        joined none (registered before seasons: every player then joined the configuration file's season) in that
        season's. Their standing is stored (computed from what they own, nothing at first) and published as a
        delta; after the close the final results are recomputed too. A repeat changes nothing (the same figures,
        the same message ids). The organizer is never verified (it is no player, R27), so it never enters the
        standings."""
        await self.store.season.mark_verified(ev.player_id)
        seasons = [c.season_id for c in self.seasons.configs
                   if await self.of(c.season_id).season.has_joined(ev.player_id)]
        for season in seasons or [self.home or ""]:
            await self._enter(season, ev.player_id, ev.occurred_at, ev.event_id)

    async def joined(self, ev: SeasonJoined) -> None:
        """R31: a player takes part in a season by joining it; a verified one enters its standings at 0 (R25), one
        still pending when their verification comes (:meth:`verified`)."""
        await self.seasons.holding(ev.season_id)
        st = self.of(ev.season_id)
        await st.season.join(ev.player_id)
        if await self.store.season.is_verified(ev.player_id) or await self.store.standings.has_score(ev.player_id):
            # verified once (a player scored in the configuration file's season was verified before the
            # verifications were recorded); joining needs a verified player anyway (R31), but registering joins a
            # pending one
            await self._enter(ev.season_id, ev.player_id, ev.occurred_at, ev.event_id)

    async def _enter(self, season: str, player_id: str, at: datetime, source_id: str) -> None:
        st = self.of(season)
        if player_id in await st.season.disqualified():
            return   # a disqualification is final (R28): never back in the standings
        await self._rescore(st, player_id)
        cfg = self.seasons.get(season)
        if cfg is not None and gametime.season_state(cfg, at) == "before":
            # R31: the spectators' feed and its replay are the season in force's: a player joining the next season
            # is no score news of the one that ends (its standing is read with its leaderboard from its opening)
            return
        closed = await self._publish_update(season, [player_id], "", at, source_id)
        if closed:
            await self._publish_final(season, source_id, at)

    async def disqualify(self, ev: PlayerDisqualified) -> None:
        """R28: a disqualified player leaves the standings, live and final (their territories are freed by
        claims). After the close the final results are recomputed without them and published again (R25). R31:
        of the season in force at the disqualification and of every later one (joined ahead, between seasons);
        a season that closed before it keeps its standings (it changes only by a correction of its own)."""
        at = ev.occurred_at
        first = self.season_at(at)
        later = [c.season_id for c in self.seasons.configs if gametime.season_opens_at(c) > at]
        for season in dict.fromkeys([first, *later]):
            await self.of(season).season.disqualify(ev.player_id)
            closed = await self._publish_update(season, [ev.player_id], "", at, ev.event_id,
                                                removed=[ev.player_id])
            if closed:
                await self._publish_final(season, ev.event_id, at)

    async def adjust(self, cmd: AdjustScore) -> ScoreAdjusted:
        """R28: an organizer's score adjustment, counted in the total (not in base or side quests), in the season
        in force (R31: after the close, the last closed one's final results). Idempotent by ``command_id``: a
        repeat gets the first reply."""
        season = self.season_at(await self.game_now())
        st = self.of(season)
        seen = await st.organizer.adjustment_reply(cmd.command_id)
        if seen is not None:
            # a repeat: publish its delta again, in case the first publish failed (the stream drops a duplicate)
            await self._publish_update(season, [cmd.player_id], "", self.now(), "adj:" + cmd.command_id)
            return seen
        before = await st.organizer.adjustment(cmd.player_id)
        after = await st.organizer.add_adjustment(cmd.player_id, cmd.points)
        if not await st.standings.has_score(cmd.player_id):
            await self._rescore(st, cmd.player_id)
        out = ScoreAdjusted(command_id=cmd.command_id, player_id=cmd.player_id, before=before, after=after)
        await st.organizer.remember_adjustment(out)
        at = self.now()
        closed = await self._publish_update(season, [cmd.player_id], "", at, "adj:" + cmd.command_id)
        if closed:
            await self._publish_final(season, "adj:" + cmd.command_id, at)
        return out

    async def _publish_update(self, season: str, touched: list[str], territory_id: str, at: datetime,
                              source_id: str, removed: list[str] | None = None) -> bool:
        """Compute and publish the ``score.updated`` of one event or command (message id ``score:<source>``);
        True when the season has closed."""
        async with self.publishing:
            upd, closed = await self._update(self.of(season), touched, territory_id, at, source_id, removed)
            await self._publish(season, upd, source_id)
        return closed

    async def _publish(self, season: str, upd: ScoreUpdated, source_id: str,
                       territory_ids: list[str] | None = None) -> None:
        """Publish one delta of ``season`` (message id ``score:<source>``); the caller holds :attr:`publishing`."""
        update: dict[str, object] = {"season_id": season}
        if territory_ids is not None:
            update["territory_ids"] = territory_ids
        upd = upd.model_copy(update=update)
        await self.publisher.publish(subjects.SCORE_UPDATED, upd.model_dump_json().encode(),
                                     self._mid("score", season, source_id))

    async def _update(self, st: ScoreStore, touched: list[str], territory_id: str, at: datetime, source_id: str,
                      removed: list[str] | None = None) -> tuple[ScoreUpdated, bool]:
        """The ``score.updated`` delta after a change, and whether the season has closed (R25). The delta: the side
        quests (R24) over every owned territory, and the standing of each touched player and of each player whose
        side-quest bonus moved. The last bonuses are kept in the store and swapped atomically, so with several
        replicas every bonus change is in some delta."""
        live = await st.ownership.live()
        quests = side_quests(live.owned_by, self.stats)
        bonus = bonuses(quests)
        old = await st.standings.swap_bonuses(bonus, source_id)
        ids = _changed(touched, bonus, old, live.disqualified)
        standings = dict(zip(ids, await st.standings.standings_of(ids), strict=True)) if ids else {}
        return _score_updated(touched, territory_id, at, ids, standings, quests, bonus, removed), live.closed

    async def leaderboard(self, season_id: str | None = None) -> Leaderboard:
        """Every player not disqualified who has a standing in ``season_id`` (None: the configuration file's
        season): every verified player who joined it from their verification on, at 0 while they own nothing
        (R25 amended, R31), ranked by total (R25 competition ranking), and the side quests. A closed season's is
        its standings as it ended (its board changes only by corrections, R28)."""
        st = self.of(season_id)
        scores = await st.standings.scores()
        dq = await st.season.disqualified()
        quests = side_quests(await st.ownership.owned_by(), self.stats)
        bonus = bonuses(quests)
        adj = await st.organizer.adjustments()
        figures = {pid: _figures(pid, s, bonus.get(pid, 0), adj.get(pid, 0))
                   for pid, s in scores.items() if pid not in dq}
        standings = [Standing(rank=r, **figures[p].model_dump())
                     for r, p, _ in competition_ranks({p: f.total for p, f in figures.items()})]
        return Leaderboard(standings=standings, side_quests=_quest_standings(quests))

    async def leaderboard_page(self, q: LeaderboardRequest) -> Leaderboard | Refusal:
        """``scoring.leaderboard``: a page of at most ``q.limit`` standings of ``q.season_id`` (None: the season in
        force at the game's now, R31). The first page (``after`` None) ranks everyone now (:meth:`leaderboard`); a
        league that fits in it gets it whole (``next`` None: one reply, as before paging). A longer one is cut
        into pages kept together for a short time (:class:`~turf_scoring.ports.Snapshots`), and ``next`` names the
        following page of that same ranking, so a change of scores between two pages never repeats nor skips a
        player. ``invalid_input`` for a cursor this service did not make; ``not_found`` once its ranking has
        expired (ask for the first page again), or for a season the catalog does not hold."""
        if q.after is not None:
            return await self._kept(q.after, Leaderboard)
        season = await self._asked_season(q.season_id)
        if isinstance(season, Refusal):
            return season
        return await self._paged(await self.leaderboard(season), q.limit)

    async def results_page(self, q: ResultsRequest) -> FinalResults | Refusal:
        """``scoring.results``: a page of the final results of ``q.season_id`` (:meth:`results`), paged as
        :meth:`leaderboard_page`; ``season_not_closed`` before that season's close."""
        if q.after is not None:
            return await self._kept(q.after, FinalResults)
        season = await self._asked_season(q.season_id)
        if isinstance(season, Refusal):
            return season
        res = await self.results(season)
        return res if isinstance(res, Refusal) else await self._paged(res, q.limit)

    async def _paged(self, whole: Paged, limit: int) -> Paged:
        """``whole`` itself when it fits in a page, else its first page, all of its pages kept. The snapshot is
        named by the digest of what it holds: callers asking while nothing changed share one snapshot (of any
        season: the snapshots are kept in the root store)."""
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
        """R25: freeze the final standings of the season that ended (base + side-quest bonuses), places and prizes
        (R26); publish them. Idempotent: the results are derived from the read model, and the publish carries a
        fixed message id."""
        await self.seasons.holding(ev.season_id)
        await self.of(ev.season_id).season.close_season(ev.at)
        return await self._publish_final(ev.season_id, ev.event_id, ev.at)

    async def _publish_final(self, season: str, source_id: str, at: datetime) -> FinalResults:
        res = await self.final_results(season)
        await self.of(season).season.save_final(res)
        # the first page of places only (see SeasonFinalResults), so the event fits in one message
        out = SeasonFinalResults(occurred_at=at, standings=len(res.standings), season_id=season,
                                 results=res.model_copy(update={"standings": res.standings[:RESULTS_PAGE]}))
        await self.publisher.publish(subjects.SEASON_FINAL_RESULTS, out.model_dump_json().encode(),
                                     self._mid("final", season, source_id))
        return res

    async def final_results(self, season_id: str | None = None) -> FinalResults:
        """R25/R26: the leaderboard's totals placed, ties sharing a place, with the prize of each place."""
        lb = await self.leaderboard(season_id)
        by_id = {s.player_id: s for s in lb.standings}
        places = final_places({s.player_id: s.total for s in lb.standings},
                              self.prize_table(season_id or self.home or ""))
        return FinalResults(standings=[
            FinalStanding(place=f.place, player_id=f.player_id, base=by_id[f.player_id].base,
                          bonuses=by_id[f.player_id].bonuses, total=f.total, prize=str(f.prize)) for f in places])

    async def results(self, season_id: str | None = None) -> FinalResults | Refusal:
        """The final results of ``season_id`` (None: the configuration file's season) once it has closed, as
        last saved (R31: a closed season's stay readable); refused (``season_not_closed``) before."""
        res = await self.of(season_id).season.final()
        if res is None:
            return Refusal(reason="season_not_closed", message="The season has not closed yet; no final results.")
        return res
