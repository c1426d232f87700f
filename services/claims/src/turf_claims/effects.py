"""Card effects applied by the claims service (#5): the ``claims.effect.*`` commands of the cards service's sagas,
the card facts of R8 (War reclaim windows, active Freezes and Blockades) and the day-start activation of
scheduled Freezes and Blockades (R15, R16).

Each command runs in one transaction that also stores its answer under the saga's ``command_id``
(``effect_commands``): a repeat answers the stored first answer and changes nothing, so a saga retried after a
crash never applies an effect twice. Ownership changes stage ``territory.changed`` with ``version + 1`` through the
outbox, like a claim. Locks are taken in the order of ``claims.submit``: player advisory locks (sorted), then
territory rows (sorted).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

import networkx as nx
import structlog
from pydantic import BaseModel
from sqlalchemy import Date, DateTime, String, and_, bindparam, exists, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from turf_claims.adapters import tables as t
from turf_claims.adapters.commands import advisory_lock, first_reply, store_reply
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.effects import (
    DoubleTroubleEffect,
    EffectApplied,
    EffectCommand,
    JokerEffect,
    JokerPick,
    MulliganEffect,
    ProtectionResolved,
    ScheduleEffect,
    TradeCheck,
    TradeEffect,
    TradeFacts,
    UnscheduleEffect,
    WarEffect,
)
from turf_common.contracts.players import PlayerDisqualified
from turf_common.legacy_bus import Bus, Delivery
from turf_common.outbox import stage
from turf_common.rules import cards as rules
from turf_common.rules import gametime
from turf_common.rules.claims import Fortification, allowance, check_open
from turf_common.rules.refusals import Refused, refuse

log = structlog.get_logger(__name__)

Body = Callable[[AsyncConnection, datetime, date], Awaitable["Refused | EffectApplied"]]


# --------------------------------------------------------------------------- facts shared with claims.submit


@dataclass(frozen=True)
class CardFacts:
    """R8's card facts about one territory for one claimant at one instant."""

    war_reclaim_holder: str | None
    frozen: bool
    blockade_against_claimant: bool


# R8.2: the holder of the latest open War reclaim window on the territory; R8.5: the owner's active Freeze on it
# today; R8.6: the owner's active Blockade against the claimant today. Bound parameters: ``tid``, ``owner`` (the
# territory's owner, NULL when unowned: no Freeze, no Blockade), ``pid`` (the claimant), ``day``, ``now``. Scalar
# subqueries, so that claims.submit can read them in the same round trip as the claimant's day (handlers.py).
_p = t.protections.c
WAR_HOLDER = (select(t.war_windows.c.holder_id).where(
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


async def card_facts(conn: AsyncConnection, territory_id: str, owner_id: str | None, claimant_id: str,
                     day: date, now: datetime) -> CardFacts:
    """R8.2 (an open War reclaim window on it), R8.5 (its owner's active Freeze today), R8.6 (its owner's active
    Blockade against the claimant today), in one statement."""
    row = (await conn.execute(_CARD_FACTS, card_facts_params(territory_id, owner_id, claimant_id, day,
                                                             now))).one()
    return CardFacts(row.war_holder, bool(row.frozen), bool(row.blockaded))


def card_facts_params(territory_id: str, owner_id: str | None, claimant_id: str, day: date,
                      now: datetime) -> dict[str, Any]:
    return {"tid": territory_id, "owner": owner_id, "pid": claimant_id, "day": day, "now": now}


async def take_record(conn: AsyncConnection, territory_id: str, owner_id: str | None) -> rules.TakeRecord | None:
    """How the current owner got the territory by a claim: their latest take, steal or War reclaim of it."""
    if owner_id is None:
        return None
    c = t.claims.c
    row = (await conn.execute(select(t.claims).where(
        c.territory_id == territory_id, c.player_id == owner_id, c.kind != "reinforce",
    ).order_by(c.at.desc()).limit(1))).first()
    if row is None:
        return None
    return rules.TakeRecord(row.id, row.kind, row.player_id, row.previous_owner_id, row.at,
                            undone=row.undone_by is not None,
                            fort_before=Fortification(row.prev_progress, row.prev_last_claim_day, row.prev_fortified))


async def mark_reclaimed(conn: AsyncConnection, territory_id: str, holder_id: str, claim_id: str) -> None:
    """R14: the attacker's reclaim ends their window."""
    await conn.execute(update(t.war_windows).where(
        t.war_windows.c.territory_id == territory_id, t.war_windows.c.holder_id == holder_id,
        t.war_windows.c.state == "open").values(state="used", reclaim_claim_id=claim_id))


async def activate_protections(conn: AsyncConnection, day: date, at: datetime) -> list[ProtectionResolved]:
    """R15/R16 at the day start of ``day`` (inside the day-start transaction): each Freeze/Blockade scheduled for
    it becomes active (its card is consumed) or lapses (its card returns); one scheduled for an earlier day that
    was somehow never resolved lapses. Stages ``protection.activated`` / ``protection.lapsed``."""
    p = t.protections.c
    rows = (await conn.execute(select(t.protections).where(p.state == "scheduled", p.day <= day)
                               .order_by(p.scheduled_at, p.card_id).with_for_update())).all()
    excluded = set((await conn.execute(select(t.excluded_players.c.player_id))).scalars().all())
    out = []
    for r in rows:
        owner = None
        if r.kind == "freeze":
            owner = (await conn.execute(select(t.territories.c.owner_id)
                                        .where(t.territories.c.id == r.territory_id))).scalar_one_or_none()
        active = r.day == day and rules.protection_activates(
            r.kind, r.player_id, territory_owner=owner, excluded=excluded, rival_id=r.rival_id)
        state: Literal["active", "lapsed"] = "active" if active else "lapsed"
        reason = None if active else ("not_owner" if r.kind == "freeze" and r.player_id not in excluded
                                      else "disqualified" if r.day == day else "missed")
        await conn.execute(update(t.protections).where(p.card_id == r.card_id).values(state=state, resolved_at=at))
        # a lapsed card may be scheduled again for a later day: the day makes the event id unique
        ev = ProtectionResolved(type="protection.activated" if active else "protection.lapsed",
                                event_id=f"protection:{r.card_id}:{r.day.isoformat()}", occurred_at=at,
                                card_id=r.card_id, player_id=r.player_id, kind=r.kind, day=r.day,
                                territory_id=r.territory_id, rival_id=r.rival_id, state=state, reason=reason)
        await stage(conn, t.outbox, ev.type, ev)
        out.append(ev)
    if out:
        log.info("protections_resolved", day=day.isoformat(), active=sum(1 for e in out if e.state == "active"),
                 lapsed=sum(1 for e in out if e.state == "lapsed"))
    return out


# --------------------------------------------------------------------------- the commands


@dataclass
class CardEffects:
    """The ``claims.effect.*`` handlers. Shares the claims service's engine, outbox relay, clock and season."""

    svc: Any  # turf_claims.handlers.ClaimsService (not imported: handlers imports this module)
    graph: nx.Graph

    # ---- the frame every command runs in ----------------------------------------------------------------
    async def _run(self, cmd: EffectCommand, kind: str, body: Body, players: Iterable[str] = ()) -> Message:
        now = await self.svc.clock.now()
        day = gametime.game_day_at(self.svc.season, now)
        if day is not None and gametime.is_open(self.svc.season, now):
            await self.svc.wait_day_started(day)  # R5: never before the day's start work
        async with self.svc.engine.begin() as conn:
            prev = await first_reply(conn, cmd.command_id)
            if prev is not None:
                return decode_reply(prev, EffectApplied)
            for pid in sorted({cmd.player_id, *players}):
                await advisory_lock(conn, "player:" + pid)
            closed = check_open(self.svc.season, now)
            decision: Refused | EffectApplied
            if closed is not None:
                decision = closed
            else:
                assert day is not None
                decision = await body(conn, now, day)
            reply: Message = Refusal(reason=decision.reason, message=decision.message) \
                if isinstance(decision, Refused) else decision
            await store_reply(conn, cmd.command_id, kind, cmd.player_id, reply, now)
        await self.svc.relay.flush()
        log.info("card_effect", kind=kind, command_id=cmd.command_id, player_id=cmd.player_id,
                 ok=not isinstance(decision, Refused), reason=getattr(decision, "reason", None))
        return reply

    async def _claims_left(self, conn: AsyncConnection, player_id: str, day: date) -> int:
        used = (await conn.execute(select(func.count()).where(
            t.claims.c.game_day == day, t.claims.c.normal.is_(True), t.claims.c.player_id == player_id))).scalar_one()
        pd = (await conn.execute(select(t.player_days).where(
            t.player_days.c.player_id == player_id, t.player_days.c.game_day == day))).first()
        return max(allowance(pd.extra_claims if pd else 0, pd.replacement_claims if pd else 0) - int(used), 0)

    async def _change(self, conn: AsyncConnection, now: datetime, territory_id: str, owner_id: str | None,
                      previous_owner_id: str | None, fort: Fortification, cause: str,
                      claim_id: str | None = None) -> None:
        version = (await conn.execute(update(t.territories).where(t.territories.c.id == territory_id).values(
            owner_id=owner_id, progress=fort.progress, last_claim_day=fort.last_claim_day, fortified=fort.fortified,
            version=t.territories.c.version + 1).returning(t.territories.c.version))).scalar_one()
        await stage(conn, t.outbox, subjects.TERRITORY_CHANGED, TerritoryChanged(
            occurred_at=now, territory_id=territory_id, owner_id=owner_id, previous_owner_id=previous_owner_id,
            progress=fort.progress, fortified=fort.fortified, version=version, cause=cause,  # type: ignore[arg-type]
            claim_id=claim_id))

    async def _territory(self, conn: AsyncConnection, territory_id: str) -> Any:
        return (await conn.execute(select(t.territories).where(t.territories.c.id == territory_id)
                                   .with_for_update())).first()

    # ---- R17 Double Trouble -----------------------------------------------------------------------------------
    async def double_trouble(self, cmd: DoubleTroubleEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            pd = (await conn.execute(select(t.player_days).where(
                t.player_days.c.player_id == cmd.player_id, t.player_days.c.game_day == day))).first()
            r = rules.check_double_trouble(pd.extra_claims if pd else 0)
            if r is not None:
                return r
            await conn.execute(pg_insert(t.player_days).values(
                player_id=cmd.player_id, game_day=day, extra_claims=1, replacement_claims=0,
            ).on_conflict_do_update(index_elements=["player_id", "game_day"], set_={"extra_claims": 1}))
            return EffectApplied(command_id=cmd.command_id, kind="double_trouble",
                                 claims_left_today=await self._claims_left(conn, cmd.player_id, day))

        return await self._run(cmd, "double_trouble", body)

    # ---- R19 Mulligan -----------------------------------------------------------------------------------------
    async def mulligan(self, cmd: MulliganEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            row = (await conn.execute(select(t.claims).where(t.claims.c.id == cmd.claim_id))).first()
            rec = None if row is None else rules.ClaimRecord(
                row.id, row.player_id, row.territory_id, row.kind, row.normal, row.game_day, row.undone_by,
                row.previous_owner_id, Fortification(row.prev_progress, row.prev_last_claim_day, row.prev_fortified))
            terr = await self._territory(conn, row.territory_id) if row is not None else None
            r = rules.check_mulligan(cmd.player_id, day, rec, terr.owner_id if terr is not None else None)
            if r is not None:
                return r
            assert rec is not None
            await conn.execute(update(t.claims).where(t.claims.c.id == rec.claim_id).values(undone_by="mulligan"))
            await self._change(conn, now, rec.territory_id, rec.previous_owner_id, cmd.player_id, rec.fort_before,
                               "mulligan", rec.claim_id)
            await conn.execute(pg_insert(t.player_days).values(
                player_id=cmd.player_id, game_day=day, extra_claims=0, replacement_claims=1,
            ).on_conflict_do_update(index_elements=["player_id", "game_day"],
                                    set_={"replacement_claims": t.player_days.c.replacement_claims + 1}))
            return EffectApplied(command_id=cmd.command_id, kind="mulligan", territory_id=rec.territory_id,
                                 owner_id=rec.previous_owner_id,
                                 claims_left_today=await self._claims_left(conn, cmd.player_id, day))

        return await self._run(cmd, "mulligan", body)

    # ---- R14 War ----------------------------------------------------------------------------------------------
    async def war(self, cmd: WarEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            if cmd.territory_id not in self.svc.names:
                return refuse("invalid_target")  # R29: an unknown territory
            terr = await self._territory(conn, cmd.territory_id)
            steal = await take_record(conn, cmd.territory_id, terr.owner_id)
            facts = await card_facts(conn, cmd.territory_id, terr.owner_id, cmd.player_id, day, now)
            o = rules.decide_war(self.svc.season, now, cmd.player_id, cmd.territory_id, steal, terr.owner_id,
                                 fortified=terr.fortified, frozen=facts.frozen,
                                 blockaded=facts.blockade_against_claimant)
            if isinstance(o, Refused):
                return o
            await conn.execute(update(t.claims).where(t.claims.c.id == o.steal_claim_id).values(undone_by="war"))
            await self._change(conn, now, o.territory_id, o.victim_id, o.attacker_id, o.restored, "war",
                               o.steal_claim_id)
            await conn.execute(t.war_windows.insert().values(
                id=cmd.command_id, territory_id=o.territory_id, holder_id=o.attacker_id, victim_id=o.victim_id,
                steal_claim_id=o.steal_claim_id, opened_at=now, until=o.reclaim_until, state="open"))
            return EffectApplied(command_id=cmd.command_id, kind="war", territory_id=o.territory_id,
                                 owner_id=o.victim_id, reclaim_until=o.reclaim_until)

        # the attacker is locked too: their claims of the territory wait for the War
        return await self._run(cmd, "war", body, players=await self._owner_of(cmd.territory_id))

    async def _owner_of(self, territory_id: str) -> list[str]:
        async with self.svc.engine.connect() as conn:
            owner = (await conn.execute(select(t.territories.c.owner_id)
                                        .where(t.territories.c.id == territory_id))).scalar_one_or_none()
        return [owner] if owner else []

    # ---- R20 Joker --------------------------------------------------------------------------------------------
    async def joker(self, cmd: JokerEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            for _ in range(20):  # a concurrent claim may take the pick between our read and our row lock
                rows = (await conn.execute(select(t.territories.c.id, t.territories.c.owner_id))).all()
                owners = {r.id: r.owner_id for r in rows if r.id in self.svc.names}
                choice = rules.joker_pick(self.graph, owners, cmd.player_id, cmd.mode, cmd.entropy)
                if choice.territory_id is None:
                    return refuse("no_eligible_territory")
                terr = await self._territory(conn, choice.territory_id)
                if terr.owner_id is not None:
                    continue
                await self._change(conn, now, choice.territory_id, cmd.player_id, None,
                                   Fortification(1, day, False), "joker")
                pick = JokerPick(mode=choice.mode, territory_id=choice.territory_id, candidates=choice.candidates,
                                 clusters=choice.clusters, cluster_index=choice.cluster_index)
                return EffectApplied(command_id=cmd.command_id, kind="joker", territory_id=choice.territory_id,
                                     owner_id=cmd.player_id, joker=pick)
            return refuse("conflict", "The board is changing too fast; play the Joker again.")

        return await self._run(cmd, "joker", body)

    # ---- R15 / R16 Freeze and Blockade ------------------------------------------------------------------------
    async def schedule(self, cmd: ScheduleEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            on = rules.schedule_day(self.svc.season, now)
            if isinstance(on, Refused):
                return on
            p = t.protections.c
            live = p.state.in_(("scheduled", "active"))
            if cmd.kind == "freeze":
                tid = cmd.territory_id or ""
                known = tid in self.svc.names
                owner = None
                already = False
                if known:
                    await advisory_lock(conn, f"freeze:{tid}:{on.isoformat()}")
                    owner = (await self._territory(conn, tid)).owner_id
                    already = (await conn.execute(select(p.card_id).where(
                        p.kind == "freeze", p.territory_id == tid, p.day == on, live))).first() is not None
                r = rules.check_freeze(cmd.player_id, owner, known, already)
            else:
                rival = cmd.rival_id or ""
                await advisory_lock(conn, f"blockade:{cmd.player_id}:{rival}:{on.isoformat()}")
                already = (await conn.execute(select(p.card_id).where(
                    p.kind == "blockade", p.player_id == cmd.player_id, p.rival_id == rival, p.day == on,
                    live))).first() is not None
                r = rules.check_blockade(cmd.player_id, rival, cmd.rival_known, already)
            if r is not None:
                return r
            values = dict(command_id=cmd.command_id, kind=cmd.kind, player_id=cmd.player_id,
                          territory_id=cmd.territory_id if cmd.kind == "freeze" else None,
                          rival_id=cmd.rival_id if cmd.kind == "blockade" else None, day=on, state="scheduled",
                          scheduled_at=now, resolved_at=None)
            # a card cancelled or lapsed before may be scheduled again: its row is reused
            await conn.execute(pg_insert(t.protections).values(card_id=cmd.card_id, **values).on_conflict_do_update(
                index_elements=["card_id"], set_=values, where=p.state.in_(("cancelled", "lapsed"))))
            return EffectApplied(command_id=cmd.command_id, kind=cmd.kind, active_on=on,
                                 territory_id=cmd.territory_id if cmd.kind == "freeze" else None)

        return await self._run(cmd, "schedule_" + cmd.kind, body)

    async def unschedule(self, cmd: UnscheduleEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            row = (await conn.execute(select(t.protections).where(t.protections.c.card_id == cmd.card_id)
                                      .with_for_update())).first()
            if row is None or row.player_id != cmd.player_id:
                return refuse("not_found", "No scheduled card with that id is yours.")
            if row.state != "scheduled":
                return refuse("conflict", f"That card is no longer scheduled (it is {row.state}).")
            await conn.execute(update(t.protections).where(t.protections.c.card_id == cmd.card_id)
                               .values(state="cancelled", resolved_at=now))
            return EffectApplied(command_id=cmd.command_id, kind="unschedule_" + row.kind, active_on=row.day)

        return await self._run(cmd, "unschedule", body)

    # ---- R18 Trade --------------------------------------------------------------------------------------------
    async def trade(self, cmd: TradeEffect) -> Message:
        async def body(conn: AsyncConnection, now: datetime, day: date) -> Refused | EffectApplied:
            x, y = cmd.offer_territory_id, cmd.want_territory_id
            if x not in self.svc.names or y not in self.svc.names or x == y:
                return refuse("trade_no_longer_valid")
            rows = {tid: await self._territory(conn, tid) for tid in sorted((x, y))}
            fx, fy = rows[x], rows[y]
            r = rules.check_trade_acceptance(
                cmd.proposer_id, cmd.player_id, offer_owner=fx.owner_id, want_owner=fy.owner_id,
                proposer_has_trade=True, partner_has_trade=True,  # the cards service holds both reserved
                offer_in_dispute=await self._in_dispute(conn, now, x, fx.owner_id),
                want_in_dispute=await self._in_dispute(conn, now, y, fy.owner_id))
            if r is not None:
                return r
            # R11/R18: the fortification state travels with each territory
            await self._change(conn, now, x, cmd.player_id, cmd.proposer_id,
                               Fortification(fx.progress, fx.last_claim_day, fx.fortified), "trade")
            await self._change(conn, now, y, cmd.proposer_id, cmd.player_id,
                               Fortification(fy.progress, fy.last_claim_day, fy.fortified), "trade")
            return EffectApplied(command_id=cmd.command_id, kind="trade", territory_id=y, owner_id=cmd.proposer_id)

        return await self._run(cmd, "trade", body, players=[cmd.proposer_id])

    async def _in_dispute(self, conn: AsyncConnection, now: datetime, territory_id: str, owner: str | None) -> bool:
        return rules.in_dispute(self.svc.season, now, await take_record(conn, territory_id, owner), owner)

    async def trade_check(self, q: TradeCheck) -> TradeFacts:
        now = await self.svc.clock.now()
        x, y = q.offer_territory_id, q.want_territory_id
        async with self.svc.engine.connect() as conn:
            owners = {r.id: r.owner_id for r in (await conn.execute(
                select(t.territories.c.id, t.territories.c.owner_id).where(t.territories.c.id.in_((x, y))))).all()}
            xo, yo = owners.get(x), owners.get(y)
            return TradeFacts(offer_known=x in self.svc.names, want_known=y in self.svc.names and y != x,
                              offer_owner=xo, want_owner=yo,
                              offer_in_dispute=await self._in_dispute(conn, now, x, xo) if xo else False,
                              want_in_dispute=await self._in_dispute(conn, now, y, yo) if yo else False)

    # ---- player.disqualified ----------------------------------------------------------------------------------
    async def player_disqualified(self, ev: PlayerDisqualified) -> None:
        """R16: remember the player is out, so Blockades by or against them lapse. Idempotent by itself (no inbox
        row: the corrections consumer records this event id in the inbox for its own work)."""
        async with self.svc.engine.begin() as conn:
            await conn.execute(pg_insert(t.excluded_players).values(player_id=ev.player_id, at=ev.at)
                               .on_conflict_do_nothing())



async def subscribe_effects(bus: Bus, svc: Any, queue: str = "claims") -> CardEffects:
    """Serve the ``claims.effect.*`` commands and ``claims.trade_check``; consume ``player.disqualified``."""
    fx = CardEffects(svc, svc.graph if svc.graph is not None else nx.Graph())
    handlers: list[tuple[str, type[BaseModel], Callable[[Any], Awaitable[Message]]]] = [
        (subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE, DoubleTroubleEffect, fx.double_trouble),
        (subjects.CLAIMS_EFFECT_MULLIGAN, MulliganEffect, fx.mulligan),
        (subjects.CLAIMS_EFFECT_WAR, WarEffect, fx.war),
        (subjects.CLAIMS_EFFECT_JOKER, JokerEffect, fx.joker),
        (subjects.CLAIMS_EFFECT_SCHEDULE, ScheduleEffect, fx.schedule),
        (subjects.CLAIMS_EFFECT_UNSCHEDULE, UnscheduleEffect, fx.unschedule),
        (subjects.CLAIMS_EFFECT_TRADE, TradeEffect, fx.trade),
        (subjects.CLAIMS_TRADE_CHECK, TradeCheck, fx.trade_check),
    ]
    for subject, model, fn in handlers:
        async def handle(data: bytes, model: type[BaseModel] = model,
                         fn: Callable[[Any], Awaitable[Message]] = fn) -> Message:
            return await fn(model.model_validate_json(data))

        await bus.serve(subject, queue, handle)

    async def on_disqualified(d: Delivery) -> None:
        await fx.player_disqualified(PlayerDisqualified.model_validate_json(d.data))

    await bus.consume("claims-exclusions", [subjects.PLAYER_DISQUALIFIED], on_disqualified)
    return fx
