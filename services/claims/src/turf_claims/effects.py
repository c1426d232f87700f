"""Card effects applied by the claims service: the ``claims.effect.*`` commands of the cards service's sagas
and ``claims.trade_check``.

Each command runs in one unit of work that also stores its answer under the saga's ``command_id``: a repeat answers
the stored first answer and changes nothing, so a saga retried after a crash never applies an effect twice.
Ownership changes go through the store's one territory writer (``territory.changed`` with ``version + 1`` through
the outbox). Locks are taken in the order of ``claims.submit``: player locks (sorted), then territory rows (sorted).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime

import networkx as nx
import structlog

from turf_claims.boards import Boards
from turf_claims.daymemory import DayMemory
from turf_claims.days import GameDays
from turf_claims.ports import ClaimsStore, ClaimsTx, Clock, Protection, TerritoryChange
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.effects import (
    DoubleTroubleEffect,
    EffectApplied,
    EffectCommand,
    JokerEffect,
    JokerPick,
    MulliganEffect,
    ScheduleEffect,
    TradeCheck,
    TradeEffect,
    TradeFacts,
    UnscheduleEffect,
    WarEffect,
)
from turf_common.outbox import OutboxFlush
from turf_common.rules import cards as rules
from turf_common.rules import gametime
from turf_common.rules.claims import Fortification, allowance, check_open
from turf_common.rules.refusals import Refused, refuse

log = structlog.get_logger(__name__)

Body = Callable[[ClaimsTx, datetime, date], Awaitable["Refused | EffectApplied"]]
Reply = EffectApplied | Refusal
#: R28: an unclaimed territory has no fortification (what a disqualification leaves)
UNCLAIMED = Fortification(0, None, False)


async def claims_left(tx: ClaimsTx, player_id: str, day: date) -> int:
    """R6: the player's allowance on ``day`` less the normal claims made that day, at least 0."""
    used = await tx.claims.normal_claims(player_id, day)
    extra, replacement = await tx.allowances.player_day(player_id, day)
    return max(allowance(extra, replacement) - used, 0)


async def returned_to(tx: ClaimsTx, previous_owner_id: str | None,
                      fort_before: Fortification) -> tuple[str | None, Fortification]:
    """Who gets a territory back when a claim is undone (R19 Mulligan) or reversed (R28), with which
    fortification: its previous owner with the state before the claim, except that a territory that would go back
    to a disqualified player becomes unclaimed instead (R28, amended), with no fortification (progress 0, no last
    claim day, not fortified: as a disqualification leaves the player's territories)."""
    if previous_owner_id is not None and previous_owner_id in await tx.exclusions.excluded_players():
        return None, UNCLAIMED
    return previous_owner_id, fort_before


@dataclass
class CardEffects:
    """The ``claims.effect.*`` use cases. ``names``: the board's territory names by id; ``graph``: its adjacency
    (R20)."""

    store: ClaimsStore
    clock: Clock
    #: R31: the season in force at the command's instant, and its board
    boards: Boards
    names: dict[str, str]
    graph: nx.Graph
    relay: OutboxFlush
    days: GameDays
    #: the claims' memory of the day's growing facts: an effect may raise an allowance or undo a claim
    memory: DayMemory | None = None

    # ---- the frame every command runs in ----------------------------------------------------------------
    async def _run(self, cmd: EffectCommand, kind: str, body: Body, players: Iterable[str] = (),
                   any_hour: bool = False) -> Reply:
        """``any_hour``: an organizer's correction, applied whether the game is open or not (R28); a player's
        command is refused ``game_closed``/``season_closed`` outside open hours (R3)."""
        now = await self.clock.now()
        cfg = await self.boards.at(now)
        day = gametime.game_day_at(cfg, now)
        if self.memory is not None:   # before it applies: no refusal from memory that it may make wrong
            self.memory.taint(day)
        if day is not None and gametime.is_open(cfg, now) and not await self.days.wait_started(day):
            # R5: never before the day's start work. Not stored under the command id: ``unavailable`` is transient,
            # the saga asks again.
            return Refusal(reason="unavailable", message="Today's game day is still starting; try again.")
        async with self.store.begin(cfg.season_id) as tx:
            prev = await tx.replies.command_reply(cmd.command_id)
            if prev is not None:
                return decode_reply(prev, EffectApplied)  # type: ignore[return-value]
            for pid in sorted({cmd.player_id, *players}):
                await tx.locks.lock("player:" + pid)
            closed = None if any_hour else check_open(cfg, now)
            decision: Refused | EffectApplied
            if closed is not None:
                decision = closed
            else:
                decision = await body(tx, now, day or now.astimezone(cfg.tz).date())
            reply: Reply = Refusal(reason=decision.reason, message=decision.message) \
                if isinstance(decision, Refused) else decision
            await tx.replies.store_command_reply(cmd.command_id, kind, cmd.player_id, reply, now)
        await self.relay.flush()
        log.info("card_effect", kind=kind, command_id=cmd.command_id, player_id=cmd.player_id,
                 ok=not isinstance(decision, Refused), reason=getattr(decision, "reason", None))
        return reply

    # ---- R17 Double Trouble -----------------------------------------------------------------------------------
    async def double_trouble(self, cmd: DoubleTroubleEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            extra, _ = await tx.allowances.player_day(cmd.player_id, day)
            r = rules.check_double_trouble(extra)
            if r is not None:
                return r
            await tx.allowances.grant_extra_claim(cmd.player_id, day)
            return EffectApplied(command_id=cmd.command_id, kind="double_trouble",
                                 claims_left_today=await claims_left(tx, cmd.player_id, day))

        return await self._run(cmd, "double_trouble", body)

    # ---- R19 Mulligan -----------------------------------------------------------------------------------------
    async def mulligan(self, cmd: MulliganEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            c = await tx.claims.claim(cmd.claim_id)
            rec = None if c is None else rules.ClaimRecord(
                c.id, c.player_id, c.territory_id, c.kind, c.normal, c.game_day, c.undone_by, c.previous_owner_id,
                c.fort_before)
            terr = await tx.ownership.territory(c.territory_id, lock=True) if c is not None else None
            r = rules.check_mulligan(cmd.player_id, day, rec, terr.owner_id if terr is not None else None)
            if r is not None:
                return r
            assert rec is not None
            back_to, fort = await returned_to(tx, rec.previous_owner_id, rec.fort_before)  # R28
            await tx.claims.undo_claim(rec.claim_id, "mulligan")
            await tx.ownership.change_territory(TerritoryChange(rec.territory_id, back_to, cmd.player_id,
                                                      fort, "mulligan", rec.claim_id), now)
            await tx.allowances.add_replacement_claim(cmd.player_id, day)
            return EffectApplied(command_id=cmd.command_id, kind="mulligan", territory_id=rec.territory_id,
                                 owner_id=back_to,
                                 claims_left_today=await claims_left(tx, cmd.player_id, day))

        return await self._run(cmd, "mulligan", body)

    # ---- R14 War ----------------------------------------------------------------------------------------------
    async def war(self, cmd: WarEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            if cmd.territory_id not in self.names:
                return refuse("invalid_target")  # R29: an unknown territory
            terr = await tx.ownership.territory(cmd.territory_id, lock=True)
            assert terr is not None
            steal = await tx.claims.take_record(cmd.territory_id, terr.owner_id)
            facts = await tx.cards.card_facts(cmd.territory_id, terr.owner_id, cmd.player_id, day, now)
            o = rules.decide_war(self.boards.config_at(now), now, cmd.player_id, cmd.territory_id, steal, terr.owner_id,
                                 fortified=terr.fortified, frozen=facts.frozen,
                                 blockaded=facts.blockade_against_claimant)
            if isinstance(o, Refused):
                return o
            await tx.claims.undo_claim(o.steal_claim_id, "war")
            await tx.ownership.change_territory(TerritoryChange(o.territory_id, o.victim_id, o.attacker_id, o.restored,
                                                            "war", o.steal_claim_id), now)
            await tx.cards.open_war_window(cmd.command_id, o.territory_id, o.attacker_id, o.victim_id, o.steal_claim_id,
                                     now, o.reclaim_until)
            return EffectApplied(command_id=cmd.command_id, kind="war", territory_id=o.territory_id,
                                 owner_id=o.victim_id, reclaim_until=o.reclaim_until)

        # the attacker is locked too: their claims of the territory wait for the War
        cfg = await self.boards.at(await self.clock.now())
        async with self.store.connect(cfg.season_id) as tx:
            owner = await tx.ownership.owner_of(cmd.territory_id)
        return await self._run(cmd, "war", body, players=[owner] if owner else [])

    # ---- R20 Joker --------------------------------------------------------------------------------------------
    async def joker(self, cmd: JokerEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            for _ in range(20):  # a concurrent claim may take the pick between our read and our row lock
                owners = {tid: o for tid, o in (await tx.ownership.owners()).items() if tid in self.names}
                choice = rules.joker_pick(self.graph, owners, cmd.player_id, cmd.mode, cmd.entropy)
                if choice.territory_id is None:
                    return refuse("no_eligible_territory")
                terr = await tx.ownership.territory(choice.territory_id, lock=True)
                if terr is None or terr.owner_id is not None:
                    continue
                await tx.ownership.change_territory(TerritoryChange(choice.territory_id, cmd.player_id, None,
                                                          Fortification(1, day, False), "joker"), now)
                # R8.7 (amended): the award is the player's claim of it today
                await tx.cards.record_joker_award(cmd.command_id, cmd.player_id, choice.territory_id, day, now)
                pick = JokerPick(mode=choice.mode, territory_id=choice.territory_id, candidates=choice.candidates,
                                 clusters=choice.clusters, cluster_index=choice.cluster_index)
                return EffectApplied(command_id=cmd.command_id, kind="joker", territory_id=choice.territory_id,
                                     owner_id=cmd.player_id, joker=pick)
            return refuse("conflict", "The board is changing too fast; play the Joker again.")

        return await self._run(cmd, "joker", body)

    # ---- R15 / R16 Freeze and Blockade ------------------------------------------------------------------------
    async def schedule(self, cmd: ScheduleEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            on = rules.schedule_day(self.boards.config_at(now), now)
            if isinstance(on, Refused):
                return on
            if cmd.kind == "freeze":
                tid = cmd.territory_id or ""
                known = tid in self.names
                owner = None
                already = False
                if known:
                    await tx.locks.lock(f"freeze:{tid}:{on.isoformat()}")
                    terr = await tx.ownership.territory(tid, lock=True)
                    owner = terr.owner_id if terr is not None else None
                    already = await tx.protections.protection_scheduled("freeze", on, territory_id=tid)
                r = rules.check_freeze(cmd.player_id, owner, known, already)
            else:
                rival = cmd.rival_id or ""
                await tx.locks.lock(f"blockade:{cmd.player_id}:{rival}:{on.isoformat()}")
                already = await tx.protections.protection_scheduled("blockade", on, player_id=cmd.player_id,
                                                                     rival_id=rival)
                r = rules.check_blockade(cmd.player_id, rival, cmd.rival_known, already)
            if r is not None:
                return r
            await tx.protections.schedule_protection(Protection(
                cmd.card_id, cmd.kind, cmd.player_id, cmd.territory_id if cmd.kind == "freeze" else None,
                cmd.rival_id if cmd.kind == "blockade" else None, on, "scheduled"), cmd.command_id, now)
            return EffectApplied(command_id=cmd.command_id, kind=cmd.kind, active_on=on,
                                 territory_id=cmd.territory_id if cmd.kind == "freeze" else None)

        return await self._run(cmd, "schedule_" + cmd.kind, body)

    async def unschedule(self, cmd: UnscheduleEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            p = await tx.protections.protection_for_update(cmd.card_id)
            if p is None or p.player_id != cmd.player_id:
                return refuse("not_found", "No scheduled card with that id is yours.")
            if p.state != "scheduled":
                return refuse("conflict", f"That card is no longer scheduled (it is {p.state}).")
            await tx.protections.resolve_protection(cmd.card_id, "cancelled", now)
            return EffectApplied(command_id=cmd.command_id, kind="unschedule_" + p.kind, active_on=p.day)

        return await self._run(cmd, "unschedule", body, any_hour=cmd.correction)

    # ---- R18 Trade --------------------------------------------------------------------------------------------
    async def trade(self, cmd: TradeEffect) -> Reply:
        async def body(tx: ClaimsTx, now: datetime, day: date) -> Refused | EffectApplied:
            x, y = cmd.offer_territory_id, cmd.want_territory_id
            if x not in self.names or y not in self.names or x == y:
                return refuse("trade_no_longer_valid")
            rows = {tid: await tx.ownership.territory(tid, lock=True) for tid in sorted((x, y))}
            fx, fy = rows[x], rows[y]
            assert fx is not None and fy is not None
            r = rules.check_trade_acceptance(
                cmd.proposer_id, cmd.player_id, offer_owner=fx.owner_id, want_owner=fy.owner_id,
                proposer_has_trade=True, partner_has_trade=True,  # the cards service holds both reserved
                offer_in_dispute=await self._in_dispute(tx, now, x, fx.owner_id),
                want_in_dispute=await self._in_dispute(tx, now, y, fy.owner_id))
            if r is not None:
                return r
            # R11/R18: the fortification state travels with each territory
            own = tx.ownership
            await own.change_territory(TerritoryChange(x, cmd.player_id, cmd.proposer_id, fx.fort, "trade"), now)
            await own.change_territory(TerritoryChange(y, cmd.proposer_id, cmd.player_id, fy.fort, "trade"), now)
            return EffectApplied(command_id=cmd.command_id, kind="trade", territory_id=y, owner_id=cmd.proposer_id)

        return await self._run(cmd, "trade", body, players=[cmd.proposer_id])

    async def _in_dispute(self, tx: ClaimsTx, now: datetime, territory_id: str, owner: str | None) -> bool:
        """R14: the victim's War window is open, or (amended) an attacker's reclaim window on it is (R8.2's fact:
        its holder; a disqualified holder's window has ended, R28). A disqualified victim's War window holds
        nothing over the attacker any more (R28, amended: they can no longer play War)."""
        cfg = self.boards.config_at(now)
        facts = await tx.cards.card_facts(territory_id, owner, "", gametime.local_date(cfg, now), now)
        steal = await tx.claims.take_record(territory_id, owner)
        if steal is not None and steal.previous_owner_id in await tx.exclusions.excluded_players():
            steal = None
        return rules.in_dispute(cfg, now, steal, owner, facts.war_reclaim_holder)

    async def trade_check(self, q: TradeCheck) -> TradeFacts:
        """R18's facts about a proposed trade's two territories: known, owners, in a War dispute (a read)."""
        now = await self.clock.now()
        x, y = q.offer_territory_id, q.want_territory_id
        cfg = await self.boards.at(now)
        async with self.store.connect(cfg.season_id) as tx:
            owners = await tx.ownership.owners((x, y))
            xo, yo = owners.get(x), owners.get(y)
            return TradeFacts(offer_known=x in self.names, want_known=y in self.names and y != x,
                              offer_owner=xo, want_owner=yo,
                              offer_in_dispute=await self._in_dispute(tx, now, x, xo) if xo else False,
                              want_in_dispute=await self._in_dispute(tx, now, y, yo) if yo else False)
