"""Claims use cases: load facts → pure rule → store → stage events, over the ports (adapters are wired in
bootstrap.py). :class:`ClaimsHandlers` gathers them with the card effects, the corrections and the day start, for the
subscribers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Annotated, TypeVar, cast

import structlog
from opentelemetry.context import Context
from pydantic import Field

from turf_claims.boards import Boards
from turf_claims.corrections import Corrections
from turf_claims.daymemory import DayMemory
from turf_claims.days import GameDays
from turf_claims.effects import CardEffects, claims_left
from turf_claims.group import GroupCommit
from turf_claims.outlook import Outlooks
from turf_claims.ports import Claim, ClaimsStore, ClaimsTx, Clock, TerritoryChange
from turf_common import metrics, tracing
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.claims import (
    CheckReply,
    ClaimAccepted,
    ClaimAcceptedReply,
    ClaimRecord,
    ClaimRejected,
    ClaimsListReply,
    ClaimsListRequest,
    FlagRaised,
    FlagsReply,
    FlagsRequest,
    PlayerReply,
    StateReply,
    SubmitClaim,
    TerritoryRef,
)
from turf_common.contracts.clock import DayStarted
from turf_common.contracts.geo import FlagFound, Verdict, VerifiedClaim
from turf_common.contracts.players import PlayerDisqualified
from turf_common.faults import crash_point
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.rules.antispoof import Flag, merge_since, places, repeats
from turf_common.rules.claims import (
    ClaimantFacts,
    ClaimOutcome,
    TerritoryFacts,
    allowance,
    check_open,
    decide_claimable,
)
from turf_common.rules.refusals import Refused, refuse

log = structlog.get_logger(__name__)
R = TypeVar("R")
#: a player's recently seen flags of one kind that a new one is compared with: more distinct places
#: than this within MERGE_WINDOW raise new flags, which merge again from then on
MERGE_CANDIDATES = 50

#: What the service's one durable consumer takes, in stream order.
ClaimsEvent = Annotated[DayStarted | PlayerDisqualified, Field(discriminator="type")]


@dataclass(frozen=True)
class Pending:
    """A claim waiting for its transaction: the command, geo-verify's verdict on its fix (R7, R7.1), the game
    clock's instant geo-verify received it at, its trace, and the id it gets if accepted (``None`` for a check)."""

    cmd: SubmitClaim
    verdict: Verdict
    now: datetime
    trace: Context
    claim_id: str | None = field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def of(cls, v: VerifiedClaim, check: bool = False) -> Pending:
        return cls(v.claim, v.verdict, v.received_at, tracing.current_context(), None if check else uuid.uuid4().hex)


@dataclass
class ClaimDecisions:
    """The claim use cases: each claim decided and recorded, and the claim state read back.
    ``claims.verified.submit`` / ``claims.verified.check`` (the claim path's second stage: geo-verify hands on
    each claim with its verdict, R7 and R7.1) and ``claims.state`` / ``player`` / ``flags`` / ``list``. No network
    round trip is made while a transaction is open (:mod:`turf_common.txguard`). Each claim is decided by the
    season in force at its instant, on that season's board (R31, :class:`~turf_claims.boards.Boards`)."""

    store: ClaimsStore
    relay: OutboxFlush
    clock: Clock
    boards: Boards
    names: dict[str, str]
    days: GameDays
    memory: DayMemory
    # claims committed concurrently share one outbox flush (see _publish_committed)
    _flush_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _flush_ticket: int = 0
    _flush_done: int = 0
    group: GroupCommit[Pending, ClaimAcceptedReply | Refusal] = field(init=False, repr=False)
    checks: GroupCommit[Pending, CheckReply | Refusal] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.group = GroupCommit(self._submit_one, self._submit_many)
        self.checks = GroupCommit(self._check_one, self._check_many)

    # ---- the decision -------------------------------------------------------------------------------------
    async def _facts(self, tx: ClaimsTx, player_id: str, eligible: bool, territory_id: str, day: date, lock: bool,
                     now: datetime) -> tuple[ClaimantFacts, TerritoryFacts, bool, int]:
        row = await tx.ownership.territory(territory_id, lock=lock)
        assert row is not None, territory_id
        facts = await tx.claims.day_facts(territory_id, row.owner_id, player_id, day, now)
        claimant = ClaimantFacts(
            player_id=player_id, eligible=eligible, normal_claims_today=facts.normal_claims_today,
            allowance_today=allowance(facts.extra_claims, facts.replacement_claims),
            # R8.7 (amended): a War reclaim or a Joker award of it today is the claimant's claim of it today
            claimed_it_today=player_id in facts.claimed_today_by or facts.took_it_today)
        # R8.2, R8.5, R8.6: War reclaim windows, active Freezes and Blockades
        terr = TerritoryFacts(territory_id, row.owner_id, row.fort, war_reclaim_holder=facts.war_holder,
                              frozen=facts.frozen, blockade_against_claimant=facts.blockaded)
        locked_by_other = any(p != player_id for p in facts.claimed_today_by)  # R10
        return claimant, terr, locked_by_other, row.version

    async def _decide(self, tx: ClaimsTx, cmd: SubmitClaim, v: Verdict, now: datetime,
                      lock: bool) -> tuple[Refused | ClaimOutcome, int, int]:
        """The decision (R3, then geo-verify's R7 verdict ``v``, then R8 → R9), the version of the territory's
        row it was read from, and the claimant's claims left today before it (R6; both 0 when refused before)."""
        cfg = self.boards.config_at(now)
        tid = v.located.territory_id if v.located.territory_id in self.names else None
        early = check_open(cfg, now) or _location_refusal(v, tid)
        if early is not None:
            return early, 0, 0
        assert tid is not None
        day = gametime.game_day_at(cfg, now)
        assert day is not None
        claimant, terr, locked, version = await self._facts(
            tx, cmd.player_id, cmd.player_status == "verified", tid, day, lock, now)
        left = max(claimant.allowance_today - claimant.normal_claims_today, 0)
        return decide_claimable(cfg, now, claimant, terr, locked), version, left

    # ---- claims.check -------------------------------------------------------------------------------------
    async def check(self, v: VerifiedClaim) -> CheckReply | Refusal:
        """Same decision as :meth:`submit`, without territory locks, and it changes no game state; the flags
        geo-verify found on its fix are recorded (R7.1: they go to the organizer, the answer stays the rule's).
        Like a claim, a check at or after a game day's opening instant waits for that day's start work (R5:
        Freezes and Blockades active); ``unavailable`` when it is not done within the wait."""
        if not await self._day_started(v.received_at):
            return Refusal(reason="unavailable", message="Today's game day is still starting; try again.")
        p = Pending.of(v, check=True)
        refused = await self._certain_refusal(p)
        if refused is not None:   # answered from memory: no transaction
            tid = p.verdict.located.territory_id
            ref = TerritoryRef(id=tid, name=self.names[tid], owner_id=self.memory.owner_of(tid)) \
                if tid is not None and tid in self.names else None
            return CheckReply(territory=ref, allowed=False, reason=refused.reason, message=refused.message)
        return await self.checks.submit(p)

    async def _check_one(self, p: Pending) -> CheckReply | Refusal:
        [reply] = await self._check_many([p])
        return reply

    async def _check_many(self, ps: Sequence[Pending]) -> list[CheckReply | Refusal]:
        """Checks in one transaction (checks that arrive while others are being answered wait and go together,
        as claims do), under their players' locks (a player's R7.1 flags merge one at a time)."""
        return await self._per_season(ps, self._check_season)

    async def _check_season(self, season_id: str, ps: Sequence[Pending]) -> list[CheckReply | Refusal]:
        async with self.store.begin(season_id) as tx:
            await tx.locks.lock_all(sorted({"player:" + p.cmd.player_id for p in ps}))
            replies: list[CheckReply | Refusal] = []
            for p in ps:
                with tracing.continued(p.trace):
                    replies.append(await self._check_decided(tx, p, p.verdict))
        if any(p.verdict.flags for p in ps):
            try:
                await self._publish_committed()
            except Exception as e:   # the flags wait in the outbox for the relay's sweep (see submit)
                log.warning("outbox_publish_deferred", error=f"{type(e).__name__}: {e}")
        return replies

    async def _check_decided(self, tx: ClaimsTx, p: Pending, v: Verdict) -> CheckReply:
        """One check inside the caller's transaction, geo-verify's verdict ``v`` in hand: the territory, the
        decision (no territory lock), and R7.1's flags recorded."""
        tid, ref = v.located.territory_id, None
        if tid is not None and tid in self.names:
            ref = TerritoryRef(id=tid, name=self.names[tid], owner_id=await tx.ownership.owner_of(tid))
        decision, _, _ = await self._decide(tx, p.cmd, v, p.now, lock=False)
        await self._flag(tx, p.cmd, p.now, None, v.flags)
        if isinstance(decision, Refused):
            return CheckReply(territory=ref, allowed=False, reason=decision.reason, message=decision.message)
        return CheckReply(territory=ref, allowed=True, reason=None, message=None)

    # ---- claims.submit ------------------------------------------------------------------------------------
    async def submit(self, v: VerifiedClaim) -> ClaimAcceptedReply | Refusal:
        """Decide and record one GPS claim, geo-verify's verdict on its fix in hand (R7, R7.1), at the instant
        geo-verify received it. Decisions are serialised per player (advisory lock) and per territory (row lock),
        always in that order. Returns :class:`ClaimAcceptedReply` or :class:`Refusal` (codes of R3, R7, R8). With
        an idempotency key, a repeat returns the first answer verbatim. Claims that arrive while others are being
        decided share their transaction (:mod:`turf_claims.group`); the answer is the same either way."""
        if not await self._day_started(v.received_at):
            return Refusal(reason="unavailable", message="Today's game day is still starting; try again.")
        p = Pending.of(v)
        refused = await self._certain_refusal(p)
        if refused is not None:
            return await self._refused_from_memory(p, refused)
        return await self.group.submit(p)

    async def _certain_refusal(self, p: Pending) -> Refused | None:
        """The refusal certain without a transaction (R3, geo-verify's R7, and R8's from the day's growing facts
        in memory, :mod:`turf_claims.daymemory`), or None: decide under the locks. A fix with R7.1 flags goes
        under the locks (its R7.1 flags merge with the player's earlier ones). A memory that cannot load (the
        store not answering) answers nothing: the locked path says what it says."""
        cfg = self.boards.config_at(p.now)
        day = gametime.game_day_at(cfg, p.now)
        if day is None or p.verdict.flags:
            return None
        try:
            if not await self.memory.ready(day, p.now):
                return None
        except Exception as e:
            log.warning("day_memory_load_failed", error=f"{type(e).__name__}: {e}")
            return None
        v = p.verdict
        tid = v.located.territory_id if v.located.territory_id in self.names else None
        early = check_open(cfg, p.now) or _location_refusal(v, tid)
        if early is not None or tid is None:
            return early
        return await self.memory.refusal(p.cmd.player_id, p.cmd.player_status == "verified", tid, day, p.now)

    async def _refused_from_memory(self, p: Pending, refused: Refused) -> ClaimAcceptedReply | Refusal:
        """Keep a refusal decided from memory as the locked path would (its claim.rejected through the outbox,
        its reply under its idempotency key) in one statement, outside any transaction (no lock: it changes no game
        state); a key used before answers its first reply."""
        cmd = p.cmd
        reply = Refusal(reason=refused.reason, message=refused.message)
        with tracing.continued(p.trace):
            prev = await self.store.refuse(cmd.player_id, cmd.idempotency_key, reply, subjects.CLAIM_REJECTED,
                                           ClaimRejected(occurred_at=p.now, player_id=cmd.player_id,
                                                         territory_id=p.verdict.located.territory_id,
                                                         reason=refused.reason, message=refused.message),
                                           datetime.now(UTC))
        if prev is not None:
            return cast(ClaimAcceptedReply | Refusal, decode_reply(prev, ClaimAcceptedReply))
        metrics.CLAIMS.labels("refused", refused.reason).inc()
        await self._after_commit()   # its claim.rejected published now, as the locked path does
        return reply

    async def _submit_one(self, p: Pending) -> ClaimAcceptedReply | Refusal:
        [reply] = await self._submit_many([p])
        return reply

    async def _submit_many(self, ps: Sequence[Pending]) -> list[ClaimAcceptedReply | Refusal]:
        """Claims in one transaction, each decided as if alone, in arrival order. Every lock is taken first, in the
        one order every writer uses (players sorted, then territory rows sorted), so concurrent batches and single
        claims queue for each other but never deadlock."""
        return await self._per_season(ps, self._submit_season)

    async def _per_season(self, ps: Sequence[Pending],
                          run: Callable[[str, Sequence[Pending]], Awaitable[list[R]]]) -> list[R]:
        """``run`` over each season's claims (R31: one unit of work is on one season's board), answers in arrival
        order; the season's board made first, once per process (:class:`~turf_claims.boards.Boards`). A batch is
        one season's but for claims that straddle a season's first opening."""
        seasons = [self.boards.config_at(p.now).season_id for p in ps]
        order = list(dict.fromkeys(seasons))
        for sid in order:
            await self.boards.ready(sid)
        if len(order) == 1:
            return await run(order[0], ps)
        out: dict[int, R] = {}
        for sid in order:
            idx = [i for i, s in enumerate(seasons) if s == sid]
            out.update(zip(idx, await run(sid, [ps[i] for i in idx]), strict=True))
        return [out[i] for i in range(len(ps))]

    async def _submit_season(self, season_id: str, ps: Sequence[Pending]) -> list[ClaimAcceptedReply | Refusal]:
        async with self.store.begin(season_id) as tx:
            if len(ps) == 1:
                await tx.locks.lock("player:" + ps[0].cmd.player_id)
            else:
                await tx.locks.lock_all(sorted({"player:" + p.cmd.player_id for p in ps}))
            replies = await self._decide_all(tx, ps)
        for p, r in zip(ps, replies, strict=True):   # committed: the next claim here knows them (daymemory)
            if isinstance(r, ClaimAcceptedReply) and (
                    day := gametime.game_day_at(self.boards.config_at(p.now), p.now)) is not None:
                self.memory.claimed(day, r.claim_id, r.owner_id, r.territory_id, r.kind != "war_reclaim")
        await self._after_commit()
        return replies

    async def _decide_all(self, tx: ClaimsTx, ps: Sequence[Pending]) -> list[ClaimAcceptedReply | Refusal]:
        """The players' locks held: a repeated idempotency key gets its first answer; the other claims are decided
        and recorded one by one, their territories' rows locked first (sorted) when there are several."""
        replies: list[ClaimAcceptedReply | Refusal | None] = [None] * len(ps)
        first: dict[tuple[str, str], int] = {}   # a key repeated within the batch: the index of its first claim
        fresh: list[int] = []
        for i, p in enumerate(ps):
            key = p.cmd.idempotency_key
            if key:
                if (p.cmd.player_id, key) in first:
                    continue
                prev = await tx.replies.idempotent_reply(p.cmd.player_id, key)
                if prev is not None:
                    replies[i] = cast(ClaimAcceptedReply | Refusal, decode_reply(prev, ClaimAcceptedReply))
                    continue
                first[(p.cmd.player_id, key)] = i
            fresh.append(i)
        if len(fresh) > 1:
            await tx.locks.lock_territories(sorted({tid for i in fresh
                                                    if (tid := ps[i].verdict.located.territory_id) in self.names}))
        for i in fresh:
            replies[i] = await self._decide_and_record(tx, ps[i], ps[i].verdict)
        for i, p in enumerate(ps):
            if replies[i] is None:   # the same key as an earlier claim of the batch: that claim's answer
                replies[i] = replies[first[(p.cmd.player_id, p.cmd.idempotency_key or "")]]
        return [r for r in replies if r is not None]

    async def _after_commit(self) -> None:
        crash_point("claims.after_commit")
        try:
            await self._publish_committed()  # reply only after commit; publishing now keeps the feed fast
        except Exception as e:
            # The decision is committed and its events wait in the outbox, which the relay's sweep publishes once
            # JetStream answers again (a stream electing a leader, a reconnect): answer what was decided rather
            # than "unavailable", which would make the client believe nothing happened.
            log.warning("outbox_publish_deferred", error=f"{type(e).__name__}: {e}")

    async def _decide_and_record(self, tx: ClaimsTx, p: Pending, v: Verdict) -> ClaimAcceptedReply | Refusal:
        """One claim inside the caller's transaction, its player's lock held, geo-verify's verdict ``v`` in hand;
        its events carry its own trace."""
        cmd, now = p.cmd, p.now
        with tracing.continued(p.trace):
            decision, version, left = await self._decide(tx, cmd, v, now, lock=True)
            claim_id = None if isinstance(decision, Refused) else p.claim_id
            flags = await self._flag(tx, cmd, now, claim_id, v.flags)
            reply: ClaimAcceptedReply | Refusal
            if isinstance(decision, Refused):
                metrics.CLAIMS.labels("refused", decision.reason).inc()
                reply = Refusal(reason=decision.reason, message=decision.message)
                await tx.messages.stage(subjects.CLAIM_REJECTED, ClaimRejected(
                    occurred_at=now, player_id=cmd.player_id, territory_id=v.located.territory_id,
                    reason=decision.reason, message=decision.message))
            else:
                assert claim_id is not None
                # R6: a normal claim spends one of the day's claims; a War reclaim (R14) none
                left_after = max(left - 1, 0) if decision.normal else left
                reply = await self._record(tx, cmd, v, now, decision, claim_id, flags, version, left_after)
                metrics.CLAIMS.labels("accepted", decision.kind).inc()
            if cmd.idempotency_key:
                await tx.replies.store_idempotent_reply(cmd.player_id, cmd.idempotency_key, reply, datetime.now(UTC))
            return reply

    async def _day_started(self, now: datetime) -> bool:
        """R5: in open hours, wait until the day start of ``now``'s game day is done (False if it is not done
        within :meth:`GameDays.wait_started`'s wait). Outside open hours there is nothing to wait for."""
        cfg = self.boards.config_at(now)
        day = gametime.game_day_at(cfg, now)
        return day is None or not gametime.is_open(cfg, now) or await self.days.wait_started(day)

    async def _publish_committed(self) -> None:
        """Return once every outbox row committed before this call is published. Callers that committed while a
        flush was running share the next one instead of each running its own, one after another."""
        self._flush_ticket += 1
        ticket = self._flush_ticket
        async with self._flush_lock:
            if self._flush_done >= ticket:
                return  # a flush that began after our commit has already published our rows
            started = self._flush_ticket
            await self.relay.flush()
            self._flush_done = started

    async def _flag(self, tx: ClaimsTx, cmd: SubmitClaim, now: datetime, claim_id: str | None,
                    found: Sequence[FlagFound]) -> list[str]:
        """R7.1 (amended): each flag geo-verify found on the fix's trail is recorded with its evidence for the
        organizer and published (``flag.raised``); returns their kinds. Never changes the decision."""
        for fl in found:
            if claim_id is None and (fid := await self._repeated(tx, cmd.player_id, fl, now)) is not None:
                await tx.trail.repeat_flag(fid, now)   # counted on the flag the organizer already has
                continue
            fid = uuid.uuid4().hex
            await tx.trail.add_flag(fid, now, cmd.player_id, claim_id, fl.kind, fl.evidence)
            await tx.messages.stage(subjects.FLAG_RAISED, FlagRaised(
                occurred_at=now, flag_id=fid, player_id=cmd.player_id, claim_id=claim_id, kind=fl.kind,
                evidence=fl.evidence))
        return [fl.kind for fl in found]

    async def _repeated(self, tx: ClaimsTx, player_id: str, fl: FlagFound, now: datetime) -> str | None:
        """The flag ``fl`` (of a fix with no claim) repeats, or None. Only flags naming no claim merge: a
        flag on a claim stays alone, the one the organizer may reverse (R28); claims are few (R6), checks many."""
        if places(fl.kind, fl.evidence) is None:
            return None
        earlier = await tx.trail.recent_flags(player_id, fl.kind, merge_since(now), MERGE_CANDIDATES)
        return repeats(Flag(fl.kind, fl.evidence), [(e.id, Flag(e.kind, e.evidence)) for e in earlier])

    async def _record(self, tx: ClaimsTx, cmd: SubmitClaim, v: Verdict, now: datetime, o: ClaimOutcome,
                      claim_id: str, flags: list[str], version_read: int, left: int) -> ClaimAcceptedReply:
        day = gametime.game_day_at(self.boards.config_at(now), now)
        assert day is not None and v.located.territory_id is not None
        tid, border_m = v.located.territory_id, v.located.border_distance_m
        # the territory's row is locked since it was read (submit), so its new version is known before the update
        version = version_read + 1
        accepted = ClaimAccepted(
            occurred_at=now, claim_id=claim_id, player_id=cmd.player_id, territory_id=tid, kind=o.kind,
            game_day=day, progress=o.fort_after.progress, fortified=o.fort_after.fortified,
            previous_owner_id=o.previous_owner_id, lat=cmd.fix.lat, lon=cmd.fix.lon,
            accuracy_m=cmd.fix.accuracy_m, border_distance_m=border_m, flags=flags)
        change = TerritoryChange(tid, o.owner_id, o.previous_owner_id, o.fort_after,
                                 "war_reclaim" if o.kind == "war_reclaim" else "claim", claim_id)
        claim = Claim(claim_id, cmd.player_id, tid, o.kind, o.normal, day, now, cmd.fix.lat, cmd.fix.lon,
                      cmd.fix.accuracy_m, cmd.fix.fix_time, border_m, o.previous_owner_id,
                      o.fort_before, flags)
        stored = await tx.claims.record_claim(claim, change, accepted, change.event(version, now))
        if stored != version:  # cannot happen under the row lock; never publish a wrong version
            raise RuntimeError(f"territory {tid}: version {stored}, expected {version}")
        if o.kind == "war_reclaim":
            await tx.cards.mark_reclaimed(tid, cmd.player_id, claim_id)  # R14
        log.info("claim_accepted", claim_id=claim_id, player_id=cmd.player_id, territory_id=tid, kind=o.kind)
        return ClaimAcceptedReply(claim_id=claim_id, territory_id=tid, kind=o.kind, owner_id=o.owner_id,
                                  progress=o.fort_after.progress, fortified=o.fort_after.fortified,
                                  claims_left_today=left)

    # ---- reads --------------------------------------------------------------------------------------------
    async def state(self, territory_id: str | None, season_id: str | None = None) -> StateReply:
        """The board of ``season_id`` (R31: a past season's as it ended), None: of the season in force; a season
        the catalog does not hold has no board (no territories)."""
        if season_id is None:
            season_id = await self._season_in_force()
        elif self.boards.book.get(season_id) is None:
            return StateReply(territories=[])
        await self.boards.ready(season_id)   # an upcoming season's board: every territory unowned
        async with self.store.connect(season_id) as tx:
            rows = await tx.ownership.territories(territory_id)
        return StateReply(territories=[r.out() for r in rows])

    async def player(self, player_id: str) -> PlayerReply:
        """R6: claims left today = allowance − normal claims made today (0 when today is no game day)."""
        now = await self.clock.now()
        cfg = self.boards.config_at(now)
        day = gametime.game_day_at(cfg, now)
        if day is None or gametime.season_state(cfg, now) == "closed":
            return PlayerReply(player_id=player_id, claims_left_today=0)
        async with self.store.connect(cfg.season_id) as tx:
            return PlayerReply(player_id=player_id, claims_left_today=await claims_left(tx, player_id, day))

    async def flags(self, q: FlagsRequest) -> FlagsReply | Refusal:
        """A page of the flags, oldest first; ``invalid_input`` for a cursor this service did not make."""
        try:
            after = _flag_cursor(q.after)
        except ValueError:
            return Refusal(reason="invalid_input", message="That page cursor is not one this service gave.")
        async with self.store.connect(await self._season_in_force()) as tx:   # flags are no board's
            page = await tx.trail.flags(after, q.limit + 1)
        more = len(page) > q.limit
        page = page[:q.limit]
        return FlagsReply(flags=page, next=f"{page[-1].at.isoformat()}|{page[-1].id}" if more else None)

    async def log(self, q: ClaimsListRequest) -> ClaimsListReply | Refusal:
        """A page of the claim log for the organizer (R28 audit), oldest first; ``next`` the id of its
        last claim when more follow. ``invalid_input`` for a cursor that is no logged claim.

        Pages follow the log's order (the store's sequence), so claims logged while the pages are read come after
        and are met on a later page, each once. A claim whose sequence number was drawn before a page was read but
        whose transaction committed after it (concurrent claims commit in any order) is missed by that reading: a
        reading of the whole log spans a fraction of a second, and the next one lists it."""
        try:
            async with self.store.connect(await self._season_in_force()) as tx:   # the log of every season
                rows = await tx.claims.claims_log(q.game_day, q.player_id, q.limit + 1, q.after)
        except LookupError:
            return Refusal(reason="invalid_input", message="That page cursor is not one this service gave.")
        return ClaimsListReply(next=rows[q.limit - 1].id if len(rows) > q.limit else None, claims=[ClaimRecord(
            id=c.id, at=c.at, game_day=c.game_day, player_id=c.player_id, territory_id=c.territory_id, kind=c.kind,
            normal=c.normal, previous_owner_id=c.previous_owner_id, undone_by=c.undone_by, flags=c.flags)
            for c in rows[:q.limit]])

    async def seed_territories(self) -> None:
        """Every season's board the book holds (R31); a season learnt later gets its board at its first use."""
        await self.boards.ready_all()

    async def _season_in_force(self) -> str:
        return self.boards.config_at(await self.clock.now()).season_id


@dataclass
class ClaimsHandlers:
    """Every use case of the claims service, for its subscribers."""

    claims: ClaimDecisions
    effects: CardEffects
    corrections: Corrections
    days: GameDays
    outlook: Outlooks

    async def changing(self) -> None:
        """A card effect, a correction or a disqualification was applied by another replica (its event): today's
        facts in memory may have shrunk or an allowance grown, so memory refuses nothing more today
        (:mod:`turf_claims.daymemory`)."""
        now = await self.claims.clock.now()
        self.claims.memory.taint(gametime.game_day_at(self.claims.boards.config_at(now), now))

    async def on_event(self, ev: DayStarted | PlayerDisqualified) -> None:
        """The durable consumer's events, in stream order: a day start (R5, R15, R16) or a disqualification
        (R16, R28)."""
        if isinstance(ev, DayStarted):
            await self.days.day_started(ev)
        else:
            await self.corrections.player_disqualified(ev)


def _location_refusal(v: Verdict, territory_id: str | None) -> Refused | None:
    """R7 as geo-verify judged it; a territory this service does not know is off its board (``outside_board``)."""
    if territory_id is None:
        return refuse("outside_board")
    return Refused(v.reason, v.message or v.reason) if v.reason is not None else None


def _flag_cursor(after: str | None) -> tuple[datetime, str] | None:
    """``"<ISO time>|<flag id>"`` (a page's ``next``) as (time, id); ValueError for anything else."""
    if after is None:
        return None
    at, sep, fid = after.partition("|")
    when = datetime.fromisoformat(at)
    if not sep or not fid or when.tzinfo is None:
        raise ValueError(after)
    return when, fid
