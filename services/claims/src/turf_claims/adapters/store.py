"""The claims store on PostgreSQL (schema ``claims``): the :class:`~turf_claims.ports.ClaimsTx` unit of work over one
connection. The statements of a claim are built once, with bound parameters, and each is one round trip (building
them per call costs more CPU than running them).

R31: each season has its own board. A unit of work is opened on one season's board (``sid``, bound into every
statement that reads or writes territories, the claims' moves on them and the War reclaim windows), so a claim
pays no round trip more for it. What is keyed by game day or instant (a day's claims, allowances, Freezes and
Blockades, Joker awards, days started) is apart already: two seasons' days never overlap."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    Date,
    DateTime,
    String,
    Text,
    and_,
    bindparam,
    exists,
    func,
    select,
    text,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_claims.adapters import tables as t
from turf_claims.daymemory import DaySnapshot
from turf_claims.ports import (
    CardFacts,
    Claim,
    DayFacts,
    HeldWindow,
    OutlookFacts,
    OwnedFacts,
    Protection,
    ProtectionState,
    StolenFacts,
    Territory,
    TerritoryChange,
)
from turf_common import tracing, txguard
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Message
from turf_common.contracts.claims import ClaimAccepted, FlagOut, TerritoryChanged
from turf_common.contracts.players import FixOut
from turf_common.outbox import first_time, stage
from turf_common.rules import cards as rules
from turf_common.rules.antispoof import without_places
from turf_common.rules.claims import Fortification

# ---- R8's card facts -------------------------------------------------------------------------------------------
# R8.2: the holder of the latest open War reclaim window on the territory; R8.5: the owner's active Freeze on it
# today; R8.6: the owner's active Blockade against the claimant today. Bound parameters: ``tid``, ``owner`` (the
# territory's owner, NULL when unowned: no Freeze, no Blockade), ``pid`` (the claimant), ``day``, ``now``. Scalar
# subqueries, so that claims.submit reads them in the same round trip as the claimant's day (_DAY_FACTS).
_p = t.protections.c
_SID = bindparam("sid", type_=String)
WAR_HOLDER = (select(t.war_windows.c.holder_id).where(
    t.war_windows.c.season_id == _SID,
    t.war_windows.c.territory_id == bindparam("tid", type_=String), t.war_windows.c.state == "open",
    t.war_windows.c.until > bindparam("now", type_=DateTime(timezone=True)))
    .order_by(t.war_windows.c.opened_at.desc()).limit(1).scalar_subquery().label("war_holder"))
_active_today = and_(_p.player_id == bindparam("owner", type_=String), _p.day == bindparam("day", type_=Date),
                     _p.state == "active")
FROZEN = exists().where(_p.kind == "freeze", _active_today,
                        _p.territory_id == bindparam("tid", type_=String)).label("frozen")
BLOCKADED = exists().where(_p.kind == "blockade", _active_today,
                           _p.rival_id == bindparam("pid", type_=String)).label("blockaded")
_CARD_FACTS = select(WAR_HOLDER, FROZEN, BLOCKADED)

# ---- the statements of every claim ------------------------------------------------------------------------------
_today = and_(t.claims.c.game_day == bindparam("day", type_=Date), t.claims.c.normal.is_(True))
#: R28 (amended): a disqualified player's normal claims lock nothing any more
_not_excluded = t.claims.c.player_id.not_in(select(t.excluded_players.c.player_id))
_on_it = and_(t.claims.c.territory_id == bindparam("tid", type_=String),
              t.claims.c.player_id == bindparam("pid", type_=String),
              t.claims.c.game_day == bindparam("day", type_=Date))
#: R8.7 (amended): the claimant won the territory today by a War reclaim or a Joker award
_TOOK_IT = (exists().where(_on_it, t.claims.c.kind == "war_reclaim")
            | exists().where(t.joker_awards.c.territory_id == bindparam("tid", type_=String),
                             t.joker_awards.c.player_id == bindparam("pid", type_=String),
                             t.joker_awards.c.game_day == bindparam("day", type_=Date))).label("took_it")
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
        _today, t.claims.c.territory_id == bindparam("tid", type_=String), _not_excluded
    ).scalar_subquery().label("on_it"),
    WAR_HOLDER, FROZEN, BLOCKADED, _TOOK_IT,
)
#: a refusal decided from memory, in one statement: the first reply when its key was used before; else the reply
#: kept under its key (when it has one) and its claim.rejected staged in the outbox
_REFUSE = text(
    "WITH prev AS (SELECT response FROM claims.idempotency WHERE player_id = :pid AND key = :key), "
    "kept AS (INSERT INTO claims.idempotency (player_id, key, response, at) SELECT :pid, :key, :resp, :at "
    "WHERE CAST(:key AS text) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM prev) ON CONFLICT DO NOTHING), "
    "staged AS (INSERT INTO claims.outbox (event_id, subject, payload, created_at) "
    "SELECT :eid, :subject, :payload, :now WHERE NOT EXISTS (SELECT 1 FROM prev)) "
    "SELECT response FROM prev")
_TERRITORY = select(t.territories).where(t.territories.c.season_id == _SID,
                                         t.territories.c.id == bindparam("tid", type_=String))
_TERRITORY_FOR_UPDATE = _TERRITORY.with_for_update()
_CLAIM_COLUMNS = ("id", "player_id", "territory_id", "kind", "normal", "game_day", "at", "lat", "lon", "accuracy_m",
                  "fix_time", "border_distance_m", "previous_owner_id", "prev_progress", "prev_last_claim_day",
                  "prev_fortified", "flags", "season_id")
_NEW_CLAIM = t.claims.insert().values(
    {c: bindparam("c_" + c, type_=t.claims.c[c].type) for c in _CLAIM_COLUMNS}).cte("new_claim")
#: claim.accepted then territory.changed, in that order (the outbox publishes by seq). An INSERT … SELECT … UNION
#: ALL rather than a two-row VALUES: SQLAlchemy caches no statement holding a multi-row VALUES, and recompiling
#: _RECORD for every claim was a fifth of the claims service's CPU
_NEW_EVENTS = t.outbox.insert().from_select(["event_id", "subject", "payload", "created_at"], union_all(*(
    select(bindparam(f"e{k}_id", type_=String), bindparam(f"e{k}_subject", type_=String),
           bindparam(f"e{k}_payload", type_=Text), bindparam("e_at", type_=DateTime(timezone=True)))
    for k in (1, 2)))).cte("new_events")
#: the territory's new state, version + 1: the one UPDATE of every territory writer (claims, card effects,
#: corrections)
_SET_TERRITORY = (update(t.territories).where(t.territories.c.season_id == _SID,
                                              t.territories.c.id == bindparam("tid", type_=String))
                  .values(owner_id=bindparam("b_owner"), progress=bindparam("b_progress"),
                          last_claim_day=bindparam("b_last"), fortified=bindparam("b_fortified"),
                          version=t.territories.c.version + 1)
                  .returning(t.territories.c.version))
#: an accepted claim's writes in one round trip: the claim row, the territory's new state and both events
_RECORD = _SET_TERRITORY.add_cte(_NEW_CLAIM, _NEW_EVENTS)
_ADVISORY_LOCK = text("SELECT pg_advisory_xact_lock(hashtext(:k))")
#: several keys in the order given (WITH ORDINALITY keeps it; the lock is taken row by row in that order)
_ADVISORY_LOCKS = text("SELECT pg_advisory_xact_lock(hashtext(k)) FROM unnest(CAST(:keys AS text[])) "
                       "WITH ORDINALITY AS u(k, n) ORDER BY n")
#: several territory rows, locked in id order (the order every writer takes them in)
_TERRITORIES_FOR_UPDATE = text("SELECT id FROM claims.territories WHERE season_id = :sid "
                               "AND id = ANY(CAST(:ids AS text[])) ORDER BY id FOR UPDATE")


def _territory(r: Any) -> Territory:
    return Territory(r.id, r.owner_id, r.progress, r.last_claim_day, r.fortified, r.version)


def _claim(r: Any) -> Claim:
    return Claim(r.id, r.player_id, r.territory_id, r.kind, r.normal, r.game_day, r.at, r.lat, r.lon, r.accuracy_m,
                 r.fix_time, r.border_distance_m, r.previous_owner_id,
                 Fortification(r.prev_progress, r.prev_last_claim_day, r.prev_fortified), list(r.flags or []),
                 r.undone_by, r.season_id)


def _take_record(r: Any) -> rules.TakeRecord:
    return rules.TakeRecord(r.id, r.kind, r.player_id, r.previous_owner_id, r.at, undone=r.undone_by is not None,
                            fort_before=Fortification(r.prev_progress, r.prev_last_claim_day, r.prev_fortified))


def _protection(r: Any) -> Protection:
    return Protection(r.card_id, r.kind, r.player_id, r.territory_id, r.rival_id, r.day, r.state)


def _set_params(sid: str, change: TerritoryChange) -> dict[str, Any]:
    f = change.fort
    return {"sid": sid, "tid": change.territory_id, "b_owner": change.owner_id, "b_progress": f.progress,
            "b_last": f.last_claim_day, "b_fortified": f.fortified}


def _traced(event: Event) -> Event:
    """The event stamped with the current trace, as :func:`turf_common.outbox.stage` stamps what it stages."""
    if event.traceparent is None:
        tp = tracing.current_traceparent()
        if tp is not None:
            return event.model_copy(update={"traceparent": tp})
    return event


class SqlClaimsTx:
    """:class:`~turf_claims.ports.ClaimsTx` over one connection (in a transaction, or not for reads), on the board of
    season ``sid`` (R31)."""

    def __init__(self, conn: AsyncConnection, sid: str) -> None:
        self.conn = conn
        self.sid = sid
        # every role of the unit of work (ports.ClaimsTx) is served by this one object
        self.locks = self.messages = self.replies = self.ownership = self.claims = self.trail = self
        self.allowances = self.cards = self.protections = self.exclusions = self.days = self.outlook = self

    # ---- serialisation, idempotency and events
    async def lock(self, key: str) -> None:
        await self.conn.execute(_ADVISORY_LOCK, {"k": key})

    async def lock_all(self, keys: Sequence[str]) -> None:
        if keys:
            await self.conn.execute(_ADVISORY_LOCKS, {"keys": list(keys)})

    async def lock_territories(self, territory_ids: Sequence[str]) -> None:
        if territory_ids:
            await self.conn.execute(_TERRITORIES_FOR_UPDATE, {"sid": self.sid, "ids": list(territory_ids)})

    async def first_time(self, event_id: str, subject: str) -> bool:
        return await first_time(self.conn, t.inbox, event_id, subject)

    async def stage(self, subject: str, event: Event) -> None:
        await stage(self.conn, t.outbox, subject, event)

    async def command_reply(self, command_id: str) -> str | None:
        await self.lock("cmd:" + command_id)
        return (await self.conn.execute(select(t.effect_commands.c.response).where(  # type: ignore[no-any-return]
            t.effect_commands.c.command_id == command_id))).scalar_one_or_none()

    async def store_command_reply(self, command_id: str, kind: str, player_id: str, reply: Message,
                                  at: datetime) -> None:
        await self.conn.execute(t.effect_commands.insert().values(
            command_id=command_id, kind=kind, player_id=player_id, response=reply.model_dump_json(), detail=None,
            at=at))

    async def idempotent_reply(self, player_id: str, key: str) -> str | None:
        return (await self.conn.execute(select(t.idempotency.c.response).where(  # type: ignore[no-any-return]
            t.idempotency.c.player_id == player_id, t.idempotency.c.key == key))).scalar_one_or_none()

    async def store_idempotent_reply(self, player_id: str, key: str, reply: Message, at: datetime) -> None:
        await self.conn.execute(pg_insert(t.idempotency).values(
            player_id=player_id, key=key, response=reply.model_dump_json(), at=at))

    # ---- territories
    async def territory(self, territory_id: str, lock: bool = False) -> Territory | None:
        row = (await self.conn.execute(_TERRITORY_FOR_UPDATE if lock else _TERRITORY,
                                       {"sid": self.sid, "tid": territory_id})).first()
        return None if row is None else _territory(row)

    async def owner_of(self, territory_id: str) -> str | None:
        return (await self.conn.execute(select(t.territories.c.owner_id)  # type: ignore[no-any-return]
                                        .where(t.territories.c.season_id == self.sid,
                                               t.territories.c.id == territory_id))).scalar_one_or_none()

    async def owners(self, territory_ids: tuple[str, ...] | None = None) -> dict[str, str | None]:
        q = select(t.territories.c.id, t.territories.c.owner_id).where(t.territories.c.season_id == self.sid)
        if territory_ids is not None:
            q = q.where(t.territories.c.id.in_(territory_ids))
        return {r.id: r.owner_id for r in (await self.conn.execute(q)).all()}

    async def territories(self, territory_id: str | None = None) -> list[Territory]:
        q = select(t.territories).where(t.territories.c.season_id == self.sid)
        if territory_id is not None:
            q = q.where(t.territories.c.id == territory_id)
        return [_territory(r) for r in (await self.conn.execute(q)).all()]

    async def owned_for_update(self, player_id: str) -> list[Territory]:
        return [_territory(r) for r in (await self.conn.execute(
            select(t.territories).where(t.territories.c.season_id == self.sid,
                                        t.territories.c.owner_id == player_id)
            .order_by(t.territories.c.id).with_for_update())).all()]

    async def change_territory(self, change: TerritoryChange, at: datetime) -> int:
        version = int((await self.conn.execute(_SET_TERRITORY, _set_params(self.sid, change))).scalar_one())
        await self.stage(subjects.TERRITORY_CHANGED, change.event(version, at))
        return version

    # ---- claims
    async def day_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                        now: datetime) -> DayFacts:
        f = (await self.conn.execute(_DAY_FACTS, {"sid": self.sid, "tid": territory_id, "owner": owner_id,
                                                  "pid": player_id, "day": day, "now": now})).one()
        return DayFacts(int(f.mine), f.extra or 0, f.replacement or 0, list(f.on_it or []), f.war_holder,
                        bool(f.frozen), bool(f.blockaded), bool(f.took_it))

    async def card_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                         now: datetime) -> CardFacts:
        row = (await self.conn.execute(_CARD_FACTS, {"sid": self.sid, "tid": territory_id, "owner": owner_id,
                                                     "pid": player_id, "day": day, "now": now})).one()
        return CardFacts(row.war_holder, bool(row.frozen), bool(row.blockaded))

    async def erase_fixes(self, player_id: str) -> None:
        await self.conn.execute(t.fixes.delete().where(t.fixes.c.player_id == player_id))

    async def erase_all_fixes(self) -> int:
        return int((await self.conn.execute(t.fixes.delete())).rowcount or 0)

    async def erase_claim_places(self, player_id: str | None) -> int:
        c = t.claims.c
        q = update(t.claims).where(c.lat.is_not(None)).values(lat=None, lon=None, accuracy_m=None)
        if player_id is not None:
            q = q.where(c.player_id == player_id)
        return int((await self.conn.execute(q)).rowcount or 0)

    async def player_fixes(self, player_id: str) -> list[FixOut]:
        f, c = t.fixes.c, t.claims.c
        kept = (await self.conn.execute(select(t.fixes).where(f.player_id == player_id).order_by(f.id))).all()
        claimed = (await self.conn.execute(
            select(c.lat, c.lon, c.accuracy_m, c.fix_time, c.at)
            .where(c.player_id == player_id, c.lat.is_not(None)).order_by(c.seq))).all()
        out = [FixOut(lat=r.lat, lon=r.lon, accuracy_m=r.accuracy_m, fix_time=r.fix_time, received_at=r.at)
               for r in [*kept, *claimed]]
        return sorted(out, key=lambda x: x.received_at)

    async def erase_flag_places(self, player_id: str | None) -> int:
        f = t.flags.c
        q = select(f.id, f.evidence).with_for_update()
        if player_id is not None:
            q = q.where(f.player_id == player_id)
        changed = [(r.id, ev) for r in (await self.conn.execute(q)).all()
                   if (ev := without_places(r.evidence)) != r.evidence]
        for fid, ev in changed:
            await self.conn.execute(update(t.flags).where(f.id == fid).values(evidence=ev))
        return len(changed)

    async def add_flag(self, flag_id: str, at: datetime, player_id: str, claim_id: str | None, kind: str,
                       evidence: dict[str, Any]) -> None:
        await self.conn.execute(t.flags.insert().values(id=flag_id, at=at, player_id=player_id, claim_id=claim_id,
                                                        kind=kind, evidence=evidence, count=1, last_at=at))

    async def recent_flags(self, player_id: str, kind: str, since: datetime, limit: int) -> list[FlagOut]:
        f = t.flags.c
        rows = (await self.conn.execute(
            select(t.flags).where(f.player_id == player_id, f.kind == kind, f.claim_id.is_(None), f.at >= since)
            .order_by(f.at.desc(), f.id.desc()).limit(limit))).all()
        return [_flag(r) for r in rows]

    async def repeat_flag(self, flag_id: str, at: datetime) -> None:
        f = t.flags.c
        await self.conn.execute(update(t.flags).where(f.id == flag_id)
                                .values(count=f.count + 1, last_at=func.greatest(f.last_at, at)))

    async def record_claim(self, claim: Claim, change: TerritoryChange, accepted: ClaimAccepted,
                           changed: TerritoryChanged) -> int:
        c, fb = claim, claim.fort_before
        params: dict[str, Any] = dict(
            c_id=c.id, c_player_id=c.player_id, c_territory_id=c.territory_id, c_kind=c.kind, c_normal=c.normal,
            c_game_day=c.game_day, c_at=c.at, c_lat=c.lat, c_lon=c.lon, c_accuracy_m=c.accuracy_m,
            c_fix_time=c.fix_time, c_border_distance_m=c.border_distance_m, c_previous_owner_id=c.previous_owner_id,
            c_prev_progress=fb.progress, c_prev_last_claim_day=fb.last_claim_day, c_prev_fortified=fb.fortified,
            c_flags=c.flags, c_season_id=self.sid, e_at=datetime.now(UTC), **_set_params(self.sid, change))
        for k, (subject, ev) in enumerate(((subjects.CLAIM_ACCEPTED, accepted),
                                           (subjects.TERRITORY_CHANGED, changed)), start=1):
            ev = _traced(ev)  # as turf_common.outbox.stage does
            params[f"e{k}_id"], params[f"e{k}_subject"], params[f"e{k}_payload"] = \
                ev.event_id, subject, ev.model_dump_json()
        return int((await self.conn.execute(_RECORD, params)).scalar_one())

    async def claim(self, claim_id: str) -> Claim | None:
        row = (await self.conn.execute(select(t.claims).where(t.claims.c.id == claim_id))).first()
        return None if row is None else _claim(row)

    async def undo_claim(self, claim_id: str, by: str) -> None:
        await self.conn.execute(update(t.claims).where(t.claims.c.id == claim_id).values(undone_by=by))

    async def standing_claim_after(self, territory_id: str, at: datetime) -> bool:
        return (await self.conn.execute(select(t.claims.c.id).where(
            t.claims.c.season_id == self.sid, t.claims.c.territory_id == territory_id, t.claims.c.undone_by.is_(None),
            t.claims.c.at > at).limit(1))).first() is not None

    async def take_record(self, territory_id: str, owner_id: str | None) -> rules.TakeRecord | None:
        if owner_id is None:
            return None
        c = t.claims.c
        row = (await self.conn.execute(select(t.claims).where(
            c.season_id == self.sid, c.territory_id == territory_id, c.player_id == owner_id, c.kind != "reinforce",
        ).order_by(c.at.desc(), c.seq.desc()).limit(1))).first()   # R14: ties at one instant by log order
        return None if row is None else _take_record(row)

    async def normal_claims(self, player_id: str, day: date) -> int:
        return int((await self.conn.execute(select(func.count()).where(
            t.claims.c.game_day == day, t.claims.c.normal.is_(True),
            t.claims.c.player_id == player_id))).scalar_one())

    async def player_day(self, player_id: str, day: date) -> tuple[int, int]:
        pd = (await self.conn.execute(select(t.player_days).where(
            t.player_days.c.player_id == player_id, t.player_days.c.game_day == day))).first()
        return (pd.extra_claims, pd.replacement_claims) if pd else (0, 0)

    async def grant_extra_claim(self, player_id: str, day: date) -> None:
        await self.conn.execute(pg_insert(t.player_days).values(
            player_id=player_id, game_day=day, extra_claims=1, replacement_claims=0,
        ).on_conflict_do_update(index_elements=["player_id", "game_day"], set_={"extra_claims": 1}))

    async def add_replacement_claim(self, player_id: str, day: date) -> None:
        await self.conn.execute(pg_insert(t.player_days).values(
            player_id=player_id, game_day=day, extra_claims=0, replacement_claims=1,
        ).on_conflict_do_update(index_elements=["player_id", "game_day"],
                                set_={"replacement_claims": t.player_days.c.replacement_claims + 1}))

    # ---- War, Freeze, Blockade, exclusions
    async def open_war_window(self, war_id: str, territory_id: str, holder_id: str, victim_id: str,
                              steal_claim_id: str, opened_at: datetime, until: datetime) -> None:
        await self.conn.execute(t.war_windows.insert().values(
            id=war_id, territory_id=territory_id, holder_id=holder_id, victim_id=victim_id,
            steal_claim_id=steal_claim_id, opened_at=opened_at, until=until, state="open", season_id=self.sid))

    async def mark_reclaimed(self, territory_id: str, holder_id: str, claim_id: str) -> None:
        await self.conn.execute(update(t.war_windows).where(
            t.war_windows.c.season_id == self.sid, t.war_windows.c.territory_id == territory_id,
            t.war_windows.c.holder_id == holder_id,
            t.war_windows.c.state == "open").values(state="used", reclaim_claim_id=claim_id))

    async def end_war_windows(self, holder_id: str) -> list[str]:
        w = t.war_windows.c
        return list((await self.conn.execute(update(t.war_windows).where(w.season_id == self.sid,
                                                                                 w.holder_id == holder_id,
                                                                                 w.state == "open")
                                             .values(state="ended").returning(w.territory_id))).scalars().all())

    async def record_joker_award(self, command_id: str, player_id: str, territory_id: str, day: date,
                                 at: datetime) -> None:
        await self.conn.execute(t.joker_awards.insert().values(
            command_id=command_id, player_id=player_id, territory_id=territory_id, game_day=day, at=at))

    async def protection_scheduled(self, kind: str, day: date, territory_id: str | None = None,
                                   player_id: str | None = None, rival_id: str | None = None) -> bool:
        live = _p.state.in_(("scheduled", "active"))
        which = _p.territory_id == territory_id if kind == "freeze" else \
            and_(_p.player_id == player_id, _p.rival_id == rival_id)
        return (await self.conn.execute(select(_p.card_id).where(
            _p.kind == kind, which, _p.day == day, live))).first() is not None

    async def schedule_protection(self, p: Protection, command_id: str, at: datetime) -> None:
        values = dict(command_id=command_id, kind=p.kind, player_id=p.player_id, territory_id=p.territory_id,
                      rival_id=p.rival_id, day=p.day, state=p.state, scheduled_at=at, resolved_at=None)
        # a card cancelled or lapsed before may be scheduled again: its row is reused
        await self.conn.execute(pg_insert(t.protections).values(card_id=p.card_id, **values).on_conflict_do_update(
            index_elements=["card_id"], set_=values, where=_p.state.in_(("cancelled", "lapsed"))))

    async def protection_for_update(self, card_id: str) -> Protection | None:
        row = (await self.conn.execute(select(t.protections).where(_p.card_id == card_id)
                                       .with_for_update())).first()
        return None if row is None else _protection(row)

    async def due_protections_for_update(self, day: date) -> list[Protection]:
        return [_protection(r) for r in (await self.conn.execute(
            select(t.protections).where(_p.state == "scheduled", _p.day <= day)
            .order_by(_p.scheduled_at, _p.card_id).with_for_update())).all()]

    async def scheduled_protections_involving_for_update(self, player_id: str) -> list[Protection]:
        return [_protection(r) for r in (await self.conn.execute(
            select(t.protections).where(_p.state == "scheduled",
                                        (_p.player_id == player_id) | (_p.rival_id == player_id))
            .order_by(_p.scheduled_at, _p.card_id).with_for_update())).all()]

    async def resolve_protection(self, card_id: str, state: ProtectionState, at: datetime) -> None:
        await self.conn.execute(update(t.protections).where(_p.card_id == card_id)
                                .values(state=state, resolved_at=at))

    async def excluded_players(self) -> set[str]:
        return set((await self.conn.execute(select(t.excluded_players.c.player_id))).scalars().all())

    async def exclude_player(self, player_id: str, at: datetime) -> None:
        await self.conn.execute(pg_insert(t.excluded_players).values(player_id=player_id, at=at)
                                .on_conflict_do_nothing())

    async def mark_day_started(self, day: date, at: datetime) -> None:
        await self.conn.execute(pg_insert(t.days_started).values(game_day=day, at=at).on_conflict_do_nothing())

    async def day_started(self, day: date) -> bool:
        return (await self.conn.execute(select(t.days_started.c.game_day)
                                        .where(t.days_started.c.game_day == day))).first() is not None

    async def flags(self, after: tuple[datetime, str] | None = None, limit: int | None = None) -> list[FlagOut]:
        f = t.flags.c
        q = select(t.flags).order_by(f.at, f.id).limit(limit)
        if after is not None:
            q = q.where(tuple_(f.at, f.id) > tuple_(*after))
        return [_flag(r) for r in (await self.conn.execute(q)).all()]

    async def claims_log(self, game_day: date | None, player_id: str | None, limit: int,
                         after: str | None = None) -> list[Claim]:
        q = select(t.claims).order_by(t.claims.c.seq).limit(limit)
        if after is not None:
            since = (await self.conn.execute(select(t.claims.c.seq).where(t.claims.c.id == after))).scalar()
            if since is None:
                raise LookupError(after)
            q = q.where(t.claims.c.seq > since)
        if game_day is not None:
            q = q.where(t.claims.c.game_day == game_day)
        if player_id is not None:
            q = q.where(t.claims.c.player_id == player_id)
        return [_claim(r) for r in (await self.conn.execute(q)).all()]


    async def outlook_facts(self, player_id: str, day: date | None, now: datetime) -> OutlookFacts:
        c, w, ter = t.claims.c, t.war_windows.c, t.territories.c
        owned = [_territory(r) for r in (await self.conn.execute(
            select(t.territories).where(ter.season_id == self.sid, ter.owner_id == player_id)
            .order_by(ter.id))).all()]
        ids = [o.id for o in owned]
        claimed: set[str] = set()
        locked: set[str] = set()
        frozen: set[str] = set()
        if day is not None and ids:
            for r in (await self.conn.execute(select(c.territory_id, c.player_id, c.kind, c.normal).where(
                    c.game_day == day, c.territory_id.in_(ids), _not_excluded))).all():
                if r.normal:
                    locked.add(r.territory_id)                     # R10
                if r.player_id == player_id and (r.normal or r.kind == "war_reclaim"):
                    claimed.add(r.territory_id)                    # R8.7 (amended)
            claimed |= set((await self.conn.execute(select(t.joker_awards.c.territory_id).where(
                t.joker_awards.c.player_id == player_id, t.joker_awards.c.game_day == day,
                t.joker_awards.c.territory_id.in_(ids)))).scalars().all())
            frozen = set((await self.conn.execute(select(_p.territory_id).where(
                _p.kind == "freeze", _p.player_id == player_id, _p.day == day, _p.state == "active",
                _p.territory_id.in_(ids)))).scalars().all())      # R15
        # R14: open reclaim windows on the player's territories (the latest per territory, as R8.2) or held by them
        on_mine: dict[str, tuple[str | None, datetime | None]] = {}
        held: list[HeldWindow] = []
        for r in (await self.conn.execute(
                select(w.territory_id, w.holder_id, w.until, ter.owner_id)
                .join(t.territories, and_(ter.season_id == w.season_id, ter.id == w.territory_id))
                .where(w.season_id == self.sid, w.state == "open", w.until > now,
                       (w.holder_id == player_id) | w.territory_id.in_(ids))
                .order_by(w.opened_at, w.id))).all():
            if r.territory_id in ids:
                on_mine[r.territory_id] = (r.holder_id, r.until)
            if r.holder_id == player_id:
                held.append(HeldWindow(r.territory_id, r.owner_id, r.until))
        # how the player got each territory: their latest take of it (R14, ties by log order)
        takes = {r.territory_id: _take_record(r) for r in (await self.conn.execute(
            select(t.claims).where(c.season_id == self.sid, c.territory_id.in_(ids), c.player_id == player_id,
                                   c.kind != "reinforce")
            .distinct(c.territory_id).order_by(c.territory_id, c.at.desc(), c.seq.desc()))).all()} if ids else {}
        # territories stolen from the player by a steal that stands: their owner's latest take of each
        stolen_ids = select(c.territory_id).where(c.season_id == self.sid, c.previous_owner_id == player_id,
                                                  c.kind == "steal",
                                                  c.undone_by.is_(None))
        stolen = [StolenFacts(r.territory_id, r.player_id, _take_record(r)) for r in (await self.conn.execute(
            select(t.claims).join(t.territories, and_(ter.season_id == c.season_id, ter.id == c.territory_id,
                                                      ter.owner_id == c.player_id))
            .where(c.season_id == self.sid, c.territory_id.in_(stolen_ids), c.kind != "reinforce")
            .distinct(c.territory_id).order_by(c.territory_id, c.at.desc(), c.seq.desc()))).all()]
        return OutlookFacts(
            owned=[OwnedFacts(o, o.id in claimed, o.id in locked, o.id in frozen, on_mine.get(o.id, (None, None))[0],
                              on_mine.get(o.id, (None, None))[1], takes.get(o.id)) for o in owned],
            stolen=stolen, held=held)


class SqlClaimsStore:
    """:class:`~turf_claims.ports.ClaimsStore` on one engine (``schema`` claims)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @asynccontextmanager
    async def begin(self, season_id: str) -> AsyncIterator[SqlClaimsTx]:
        async with self.engine.begin() as conn:
            with txguard.transaction("claims"):   # no network round trip until it ends (txguard)
                yield SqlClaimsTx(conn, season_id)

    @asynccontextmanager
    async def connect(self, season_id: str) -> AsyncIterator[SqlClaimsTx]:
        async with self.engine.connect() as conn:
            yield SqlClaimsTx(conn, season_id)

    async def day_snapshot(self, season_id: str, day: date, now: datetime) -> DaySnapshot:
        c, pd, w, ter = t.claims.c, t.player_days.c, t.war_windows.c, t.territories.c
        async with self.engine.connect() as conn:
            claims = (await conn.execute(select(c.id, c.player_id, c.territory_id).where(
                c.game_day == day, c.normal.is_(True), _not_excluded))).all()
            days = (await conn.execute(select(pd.player_id, pd.extra_claims, pd.replacement_claims)
                                       .where(pd.game_day == day))).all()
            until = (await conn.execute(select(func.max(w.until)).where(
                w.season_id == season_id, w.state == "open", w.until > now))).scalar()
            owners = (await conn.execute(select(ter.id, ter.owner_id, ter.version)
                                         .where(ter.season_id == season_id))).all()
        return DaySnapshot(season_id, [(r.id, r.player_id, r.territory_id) for r in claims],
                           {r.player_id: (r.extra_claims, r.replacement_claims) for r in days}, until,
                           {r.id: (r.owner_id, r.version) for r in owners})

    async def refuse(self, player_id: str, key: str | None, reply: Message, subject: str, event: Event,
                     at: datetime) -> str | None:
        async with self.engine.connect() as conn:
            prev = (await conn.execute(_REFUSE, {
                "pid": player_id, "key": key, "resp": reply.model_dump_json(), "at": at, "eid": event.event_id,
                "subject": subject, "payload": event.model_dump_json(), "now": datetime.now(UTC)})).scalar()
            await conn.commit()
        return prev  # type: ignore[no-any-return]

    async def seed_territories(self, season_id: str, territory_ids: list[str]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(pg_insert(t.territories).values(
                [{"season_id": season_id, "id": tid, "progress": 0, "fortified": False, "version": 0}
                 for tid in territory_ids]
            ).on_conflict_do_nothing())


def _flag(r: Any) -> FlagOut:
    return FlagOut(id=r.id, at=r.at, player_id=r.player_id, claim_id=r.claim_id, kind=r.kind, evidence=r.evidence,
                   count=r.count, last_at=r.last_at)
