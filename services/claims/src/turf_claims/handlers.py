"""Claims use cases: load facts → pure rule → store → stage events. Adapters are passed in (bootstrap.py)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Protocol

import structlog
from sqlalchemy import Date, DateTime, Float, String, Text, and_, bindparam, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_claims import effects as card_effects
from turf_claims.adapters import tables as t
from turf_claims.adapters.commands import advisory_lock
from turf_common import metrics, tracing
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Message, Refusal, decode_reply
from turf_common.contracts.claims import (
    CheckReply,
    ClaimAccepted,
    ClaimAcceptedReply,
    ClaimRejected,
    FlagOut,
    FlagRaised,
    FlagsReply,
    PlayerReply,
    StateReply,
    SubmitClaim,
    TerritoryChanged,
    TerritoryRef,
    TerritoryStateOut,
)
from turf_common.contracts.clock import DayStarted
from turf_common.faults import crash_point
from turf_common.outbox import OutboxRelay, first_time, stage
from turf_common.rules import gametime
from turf_common.rules.antispoof import FixRecord, flags_for
from turf_common.rules.claims import (
    ClaimantFacts,
    ClaimLimits,
    ClaimOutcome,
    Fortification,
    TerritoryFacts,
    allowance,
    check_location,
    check_open,
    decide_claim,
)
from turf_common.rules.refusals import Refused

log = structlog.get_logger(__name__)

# Statements of every claim, built once (bound parameters): building them per call costs more CPU than running them.
_today = and_(t.claims.c.game_day == bindparam("day", type_=Date), t.claims.c.normal.is_(True))
_pd = and_(t.player_days.c.player_id == bindparam("pid", type_=String),
           t.player_days.c.game_day == bindparam("day", type_=Date))
#: the claimant's day and the card facts in one round trip, read after the territory's row lock (a statement's
#: snapshot is taken when it starts, so these must not ride on the locking statement): normal claims made today,
#: Double Trouble / Mulligan extras, who has claimed the territory today (R6, R10), and R8.2/R8.5/R8.6
_DAY_FACTS = select(
    select(func.count()).where(_today, t.claims.c.player_id == bindparam("pid", type_=String))
    .scalar_subquery().label("mine"),
    select(t.player_days.c.extra_claims).where(_pd).scalar_subquery().label("extra"),
    select(t.player_days.c.replacement_claims).where(_pd).scalar_subquery().label("replacement"),
    select(func.array_agg(t.claims.c.player_id.distinct())).where(
        _today, t.claims.c.territory_id == bindparam("tid", type_=String)).scalar_subquery().label("on_it"),
    card_effects.WAR_HOLDER, card_effects.FROZEN, card_effects.BLOCKADED,
)
#: the player's latest fix and whether this very fix was seen before (no earlier fix: no row, nothing seen)
_LAST_FIX = (select(t.fixes.c.lat, t.fixes.c.lon, t.fixes.c.accuracy_m, t.fixes.c.fix_time,
                    select(t.fixes.c.id).where(
                        t.fixes.c.player_id == bindparam("pid", type_=String),
                        t.fixes.c.lat == bindparam("lat", type_=Float), t.fixes.c.lon == bindparam("lon", type_=Float),
                        t.fixes.c.accuracy_m == bindparam("acc", type_=Float)).exists().label("seen"))
             .where(t.fixes.c.player_id == bindparam("pid", type_=String))
             .order_by(t.fixes.c.id.desc()).limit(1))
#: the new fix, inserted by the same statement that reads the earlier ones (every part of a statement sees the
#: snapshot taken when it starts, so the read does not see this insert)
_NEW_FIX = t.fixes.insert().values(
    player_id=bindparam("pid", type_=String), lat=bindparam("lat", type_=Float), lon=bindparam("lon", type_=Float),
    accuracy_m=bindparam("acc", type_=Float), fix_time=bindparam("fix_time", type_=DateTime(timezone=True)),
    at=bindparam("at", type_=DateTime(timezone=True)), claim_id=bindparam("claim_id", type_=String)).cte("new_fix")
_SCREEN = _LAST_FIX.add_cte(_NEW_FIX)
_TERRITORY = select(t.territories).where(t.territories.c.id == bindparam("tid", type_=String))
_TERRITORY_FOR_UPDATE = _TERRITORY.with_for_update()
_CLAIM_COLUMNS = ("id", "player_id", "territory_id", "kind", "normal", "game_day", "at", "lat", "lon", "accuracy_m",
                  "fix_time", "border_distance_m", "previous_owner_id", "prev_progress", "prev_last_claim_day",
                  "prev_fortified", "flags")
_NEW_CLAIM = t.claims.insert().values(
    {c: bindparam("c_" + c, type_=t.claims.c[c].type) for c in _CLAIM_COLUMNS}).cte("new_claim")
#: claim.accepted then territory.changed, in that order (the outbox publishes by seq)
_NEW_EVENTS = t.outbox.insert().values([
    {"event_id": bindparam(f"e{k}_id", type_=String), "subject": bindparam(f"e{k}_subject", type_=String),
     "payload": bindparam(f"e{k}_payload", type_=Text),
     "created_at": bindparam("e_at", type_=DateTime(timezone=True))} for k in (1, 2)]).cte("new_events")
_SET_TERRITORY = (update(t.territories).where(t.territories.c.id == bindparam("tid", type_=String))
                  .values(owner_id=bindparam("b_owner"), progress=bindparam("b_progress"),
                          last_claim_day=bindparam("b_last"), fortified=bindparam("b_fortified"),
                          version=t.territories.c.version + 1)
                  .returning(t.territories.c.version))
#: an accepted claim's writes in one round trip: the claim row, the territory's new state and both events
_RECORD = _SET_TERRITORY.add_cte(_NEW_CLAIM, _NEW_EVENTS)


class Clock(Protocol):
    """Port: the game clock."""

    async def now(self) -> datetime: ...


@dataclass
class ClaimsService:
    engine: AsyncEngine
    relay: OutboxRelay
    clock: Clock
    season: gametime.SeasonConfig
    names: dict[str, str]
    limits: ClaimLimits = field(default_factory=ClaimLimits)
    max_travel_kmh: float = 200.0
    _started: set[date] = field(default_factory=set)
    graph: Any = None  # the board's adjacency graph (networkx), for Joker (R20)
    # claims committed concurrently share one outbox flush (see _publish_committed)
    _flush_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _flush_ticket: int = 0
    _flush_done: int = 0

    # ---- helpers --------------------------------------------------------------------------------
    async def _facts(self, conn: AsyncConnection, player_id: str, eligible: bool, territory_id: str,
                     day: date, lock: bool,
                     now: datetime | None = None) -> tuple[ClaimantFacts, TerritoryFacts, bool, int]:
        row = (await conn.execute(_TERRITORY_FOR_UPDATE if lock else _TERRITORY,
                                  {"tid": territory_id})).one()
        fort = Fortification(row.progress, row.last_claim_day, row.fortified)
        facts = (await conn.execute(_DAY_FACTS, card_effects.card_facts_params(
            territory_id, row.owner_id, player_id, day, now or await self.clock.now()))).one()
        on_it = list(facts.on_it or [])
        claimant = ClaimantFacts(
            player_id=player_id, eligible=eligible, normal_claims_today=int(facts.mine),
            allowance_today=allowance(facts.extra or 0, facts.replacement or 0),
            claimed_it_today=player_id in on_it)
        # R8.2, R8.5, R8.6: War reclaim windows, active Freezes and Blockades (#5)
        terr = TerritoryFacts(territory_id, row.owner_id, fort, war_reclaim_holder=facts.war_holder,
                              frozen=bool(facts.frozen), blockade_against_claimant=bool(facts.blockaded))
        locked_by_other = any(p != player_id for p in on_it)  # R10
        return claimant, terr, locked_by_other, row.version

    # ---- claims.check -------------------------------------------------------------------------
    async def check(self, cmd: SubmitClaim) -> CheckReply:
        """Same decision as :meth:`submit`, no locks and no writes."""
        now = await self.clock.now()
        loc = cmd.located
        ref = None
        async with self.engine.connect() as conn:
            if loc.territory_id is not None and loc.territory_id in self.names:
                owner = (await conn.execute(select(t.territories.c.owner_id)
                                            .where(t.territories.c.id == loc.territory_id))).scalar_one()
                ref = TerritoryRef(id=loc.territory_id, name=self.names[loc.territory_id], owner_id=owner)
            decision, _ = await self._decide(conn, cmd, now, lock=False)
        if isinstance(decision, Refused):
            return CheckReply(territory=ref, allowed=False, reason=decision.reason, message=decision.message)
        return CheckReply(territory=ref, allowed=True, reason=None, message=None)

    async def _decide(self, conn: AsyncConnection, cmd: SubmitClaim, now: datetime,
                      lock: bool) -> tuple[Refused | ClaimOutcome, int]:
        """The decision, and the version of the territory's row it was read from (0 when refused before)."""
        loc = cmd.located
        tid = loc.territory_id if loc.territory_id in self.names else None
        early = check_open(self.season, now) or check_location(
            now, cmd.fix.fix_time, cmd.fix.accuracy_m, tid, loc.border_distance_m, self.limits)
        if early is not None:
            return early, 0
        assert tid is not None
        day = gametime.game_day_at(self.season, now)
        assert day is not None
        claimant, terr, locked, version = await self._facts(
            conn, cmd.player_id, cmd.player_status == "verified", tid, day, lock, now)
        return decide_claim(self.season, now, fix_time=cmd.fix.fix_time, accuracy_m=cmd.fix.accuracy_m,
                            territory_id=tid, border_distance_m=loc.border_distance_m, claimant=claimant,
                            territory=terr, locked_by_other_today=locked, limits=self.limits), version

    # ---- claims.submit ------------------------------------------------------------------------
    async def day_started(self, ev: DayStarted) -> None:
        """R5: day-start work for ``ev.game_day``, once per day (inbox), then mark the day started so claims of
        that day may be decided. Card activations join this transaction as they arrive (#5)."""
        async with self.engine.begin() as conn:
            if not await first_time(conn, t.inbox, ev.event_id, subjects.CLOCK_DAY_STARTED):
                return
            await card_effects.activate_protections(conn, ev.game_day, ev.at)  # R15, R16
            await conn.execute(pg_insert(t.days_started).values(game_day=ev.game_day, at=ev.at)
                               .on_conflict_do_nothing())
        self._started.add(ev.game_day)
        await self.relay.flush()

    async def wait_day_started(self, day: date, timeout: float = 5.0) -> bool:
        """R5: hold a claim of ``day`` until that day's start work is done (it is normally done within
        milliseconds of the opening instant). False when it does not happen within ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while day not in self._started:
            async with self.engine.connect() as conn:
                if (await conn.execute(select(t.days_started.c.game_day)
                                       .where(t.days_started.c.game_day == day))).first() is not None:
                    self._started.add(day)
                    return True
            if loop.time() > end:
                return False
            await asyncio.sleep(0.02)
        return True

    async def submit(self, cmd: SubmitClaim) -> Message:
        """Decide and record one GPS claim. Decisions are serialised per player (advisory lock) and per
        territory (row lock), always in that order. Returns :class:`ClaimAcceptedReply` or :class:`Refusal`
        (codes of R3, R7, R8). With an idempotency key, a repeat returns the first answer verbatim."""
        now = await self.clock.now()
        day = gametime.game_day_at(self.season, now)
        if day is not None and gametime.is_open(self.season, now) and not await self.wait_day_started(day):
            return Refusal(reason="unavailable", message="Today's game day is still starting; try again.")
        async with self.engine.begin() as conn:
            await advisory_lock(conn, "player:" + cmd.player_id)
            if cmd.idempotency_key:
                prev = (await conn.execute(select(t.idempotency.c.response).where(
                    t.idempotency.c.player_id == cmd.player_id,
                    t.idempotency.c.key == cmd.idempotency_key))).scalar_one_or_none()
                if prev is not None:
                    return decode_reply(prev, ClaimAcceptedReply)
            decision, version = await self._decide(conn, cmd, now, lock=True)
            claim_id = None if isinstance(decision, Refused) else uuid.uuid4().hex
            flags = await self._screen(conn, cmd, now, claim_id)
            reply: Message
            if isinstance(decision, Refused):
                metrics.CLAIMS.labels("refused", decision.reason).inc()
                reply = Refusal(reason=decision.reason, message=decision.message)
                await stage(conn, t.outbox, subjects.CLAIM_REJECTED, ClaimRejected(
                    occurred_at=now, player_id=cmd.player_id, territory_id=cmd.located.territory_id,
                    reason=decision.reason, message=decision.message))
            else:
                assert claim_id is not None
                reply = await self._record(conn, cmd, now, decision, claim_id, flags, version)
                metrics.CLAIMS.labels("accepted", decision.kind).inc()
            if cmd.idempotency_key:
                await conn.execute(pg_insert(t.idempotency).values(
                    player_id=cmd.player_id, key=cmd.idempotency_key, response=reply.model_dump_json(),
                    at=datetime.now(UTC)))
        crash_point("claims.after_commit")
        try:
            await self._publish_committed()  # reply only after commit; publishing now keeps the feed fast
        except Exception as e:
            # The decision is committed and its events wait in the outbox, which the relay's sweep publishes once
            # JetStream answers again (a stream electing a leader, a reconnect): answer what was decided rather
            # than "unavailable", which would make the client believe nothing happened.
            log.warning("outbox_publish_deferred", error=f"{type(e).__name__}: {e}")
        return reply

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

    async def _screen(self, conn: AsyncConnection, cmd: SubmitClaim, now: datetime,
                      claim_id: str | None) -> list[str]:
        """Anti-spoofing: compare the fix with the player's earlier ones, record it and any flag (with its
        evidence) for the organizer. Never changes the decision. Runs under the player's lock."""
        f = cmd.fix
        fix = FixRecord(f.lat, f.lon, f.accuracy_m, f.fix_time)
        # the earlier fixes are read and this one recorded in one round trip (see _SCREEN)
        prev_row = (await conn.execute(_SCREEN, {"pid": cmd.player_id, "lat": f.lat, "lon": f.lon,
                                                 "acc": f.accuracy_m, "fix_time": f.fix_time, "at": now,
                                                 "claim_id": claim_id})).first()
        prev = FixRecord(prev_row.lat, prev_row.lon, prev_row.accuracy_m, prev_row.fix_time) if prev_row else None
        seen = bool(prev_row.seen) if prev_row else False
        found = flags_for(fix, prev, seen, self.max_travel_kmh)
        for fl in found:
            fid = uuid.uuid4().hex
            await conn.execute(t.flags.insert().values(id=fid, at=now, player_id=cmd.player_id, claim_id=claim_id,
                                                       kind=fl.kind, evidence=fl.evidence))
            await stage(conn, t.outbox, subjects.FLAG_RAISED, FlagRaised(
                occurred_at=now, flag_id=fid, player_id=cmd.player_id, claim_id=claim_id, kind=fl.kind,
                evidence=fl.evidence))
        return [fl.kind for fl in found]

    async def flags(self) -> FlagsReply:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.flags).order_by(t.flags.c.at, t.flags.c.id))).all()
        return FlagsReply(flags=[FlagOut(id=r.id, at=r.at, player_id=r.player_id, claim_id=r.claim_id, kind=r.kind,
                                         evidence=r.evidence) for r in rows])

    async def _record(self, conn: AsyncConnection, cmd: SubmitClaim, now: datetime,
                      o: ClaimOutcome, claim_id: str, flags: list[str], version_read: int) -> ClaimAcceptedReply:
        day = gametime.game_day_at(self.season, now)
        assert day is not None and cmd.located.territory_id is not None
        tid = cmd.located.territory_id
        # the territory's row is locked since it was read (submit), so its new version is known before the update
        version = version_read + 1
        accepted = ClaimAccepted(
            occurred_at=now, claim_id=claim_id, player_id=cmd.player_id, territory_id=tid, kind=o.kind,
            game_day=day, progress=o.fort_after.progress, fortified=o.fort_after.fortified,
            previous_owner_id=o.previous_owner_id, lat=cmd.fix.lat, lon=cmd.fix.lon,
            accuracy_m=cmd.fix.accuracy_m, border_distance_m=cmd.located.border_distance_m, flags=flags)
        changed = TerritoryChanged(
            occurred_at=now, territory_id=tid, owner_id=o.owner_id, previous_owner_id=o.previous_owner_id,
            progress=o.fort_after.progress, fortified=o.fort_after.fortified, version=version,
            cause="war_reclaim" if o.kind == "war_reclaim" else "claim", claim_id=claim_id)
        params: dict[str, Any] = dict(
            c_id=claim_id, c_player_id=cmd.player_id, c_territory_id=tid, c_kind=o.kind, c_normal=o.normal,
            c_game_day=day, c_at=now, c_lat=cmd.fix.lat, c_lon=cmd.fix.lon, c_accuracy_m=cmd.fix.accuracy_m,
            c_fix_time=cmd.fix.fix_time, c_border_distance_m=cmd.located.border_distance_m,
            c_previous_owner_id=o.previous_owner_id, c_prev_progress=o.fort_before.progress,
            c_prev_last_claim_day=o.fort_before.last_claim_day, c_prev_fortified=o.fort_before.fortified,
            c_flags=flags,
            tid=tid, b_owner=o.owner_id, b_progress=o.fort_after.progress, b_last=o.fort_after.last_claim_day,
            b_fortified=o.fort_after.fortified, e_at=datetime.now(UTC))
        for k, (subject, ev) in enumerate(((subjects.CLAIM_ACCEPTED, accepted),
                                           (subjects.TERRITORY_CHANGED, changed)), start=1):
            ev = _traced(ev)  # as turf_common.outbox.stage does
            params[f"e{k}_id"], params[f"e{k}_subject"], params[f"e{k}_payload"] = \
                ev.event_id, subject, ev.model_dump_json()
        stored = (await conn.execute(_RECORD, params)).scalar_one()
        if stored != version:  # cannot happen under the row lock; never publish a wrong version
            raise RuntimeError(f"territory {tid}: version {stored}, expected {version}")
        if o.kind == "war_reclaim":
            await card_effects.mark_reclaimed(conn, tid, cmd.player_id, claim_id)  # R14
        log.info("claim_accepted", claim_id=claim_id, player_id=cmd.player_id, territory_id=tid, kind=o.kind)
        return ClaimAcceptedReply(claim_id=claim_id, territory_id=tid, kind=o.kind, owner_id=o.owner_id,
                                  progress=o.fort_after.progress, fortified=o.fort_after.fortified)

    # ---- reads --------------------------------------------------------------------------------
    async def state(self, territory_id: str | None) -> StateReply:
        q = select(t.territories)
        if territory_id is not None:
            q = q.where(t.territories.c.id == territory_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).all()
        return StateReply(territories=[TerritoryStateOut(id=r.id, owner_id=r.owner_id, progress=r.progress,
                                                         fortified=r.fortified) for r in rows])

    async def player(self, player_id: str) -> PlayerReply:
        """R6: claims left today = allowance − normal claims made today (0 when today is no game day)."""
        now = await self.clock.now()
        day = gametime.game_day_at(self.season, now)
        if day is None or gametime.season_state(self.season, now) == "closed":
            return PlayerReply(player_id=player_id, claims_left_today=0)
        async with self.engine.connect() as conn:
            used = (await conn.execute(select(func.count()).where(
                t.claims.c.game_day == day, t.claims.c.normal.is_(True),
                t.claims.c.player_id == player_id))).scalar_one()
            pd = (await conn.execute(select(t.player_days).where(
                t.player_days.c.player_id == player_id, t.player_days.c.game_day == day))).first()
        left = allowance(pd.extra_claims if pd else 0, pd.replacement_claims if pd else 0) - int(used)
        return PlayerReply(player_id=player_id, claims_left_today=max(left, 0))

    async def seed_territories(self) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(pg_insert(t.territories).values(
                [{"id": tid, "progress": 0, "fortified": False, "version": 0} for tid in self.names]
            ).on_conflict_do_nothing())


def _traced(event: Event) -> Event:
    """The event stamped with the current trace, as :func:`turf_common.outbox.stage` stamps what it stages."""
    if event.traceparent is None:
        tp = tracing.current_traceparent()
        if tp is not None:
            return event.model_copy(update={"traceparent": tp})
    return event

