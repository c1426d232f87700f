"""Organizer corrections of ownership (R28), applied by the claims service:

* ``reverse_claim``: what the claim replaced comes back (owner and fortification), the claim is marked undone;
  only the territory's latest standing claim can be reversed (later moves first);
* ``set_owner``: the territory goes to a player, keeping its fortification state (R11: it belongs to the
  territory), or becomes unclaimed (fortification cleared);
* a disqualified player (``player.disqualified``) is out (R16: their Blockades, and those against them, lapse) and
  every territory they own becomes unclaimed (R28).

Corrections are allowed whether the game is open or not, and after the season closes (R25: flagged post-season
by the gateway). R31: each applies to one season's board: a reversal to the board its claim moved (a correction
after a season's close belongs to that season, R28), the others to the board of the season in force. Each is
idempotent by its command id (a disqualification by its event id) and each ownership
change is a ``territory.changed``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from turf_claims.boards import Boards
from turf_claims.daymemory import DayMemory
from turf_claims.days import lapse_protections_of
from turf_claims.effects import UNCLAIMED, returned_to
from turf_claims.ports import Cause, ClaimsStore, ClaimsTx, Clock, TerritoryChange
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.claims import CorrectOwnership, OwnershipCorrected
from turf_common.contracts.players import FixOut, PlayerDisqualified
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime


@dataclass
class Corrections:
    store: ClaimsStore
    clock: Clock
    relay: OutboxFlush
    #: R31: the season in force and its board
    boards: Boards
    #: the claims' memory of the day's growing facts, tainted before a correction or disqualification applies
    memory: DayMemory | None = None

    async def _changing(self) -> str:
        """Taint today's memory; the season in force (its board made)."""
        now = await self.clock.now()
        cfg = await self.boards.at(now)
        if self.memory is not None:
            self.memory.taint(gametime.game_day_at(cfg, now))
        return cfg.season_id

    async def player_disqualified(self, ev: PlayerDisqualified) -> list[str]:
        """R16: remember the player is out; R28: every territory they own becomes unclaimed, their open War
        reclaim windows end and their scheduled Freezes/Blockades (and Blockades against them) lapse (amended),
        once per event id. Their same-day locks end with the exclusion (R28,
        amended: the store's R10 facts leave out excluded players), as does any later return of a territory to them
        (Mulligan, reversal: :func:`~turf_claims.effects.returned_to`). Returns the freed territory ids."""
        freed: list[str] = []
        season_id = await self._changing()   # R31: the player's territories on the board in force go
        async with self.store.begin(season_id) as tx:
            # a set_owner naming the player waits, or is waited for (the gateway holds no lock for it)
            await tx.locks.lock("player:" + ev.player_id)
            first = await tx.messages.first_time(ev.event_id, subjects.PLAYER_DISQUALIFIED)
            # idempotent by itself, so recorded even for an event a consumer of an older version took (its inbox
            # row is there, its exclusion may not be)
            await tx.exclusions.exclude_player(ev.player_id, ev.at)
            if ev.withdrawn:   # R30: their location fixes go (idempotent, so on every delivery)
                await tx.trail.erase_fixes(ev.player_id)
                await tx.claims.erase_claim_places(ev.player_id)   # the claims stay in the log, their places go
                await tx.trail.erase_flag_places(ev.player_id)   # the flags stay, their coordinates go
            if first:
                await tx.cards.end_war_windows(ev.player_id)
                await lapse_protections_of(tx, ev.player_id, ev.at)   # R28 (amended), R16
                # R30: a player who withdrew frees their towns as a disqualification does, but is told as leaving
                cause: Cause = "withdrawal" if ev.withdrawn else "disqualification"
                for terr in await tx.ownership.owned_for_update(ev.player_id):
                    await tx.ownership.change_territory(TerritoryChange(terr.id, None, ev.player_id, UNCLAIMED,
                                                                        cause), ev.at)
                    freed.append(terr.id)
        await self.relay.flush()
        return freed

    async def player_fixes(self, player_id: str) -> list[FixOut]:
        """R30: the player's fixes kept here, oldest first (their export); read without a transaction."""
        async with self.store.connect(await self._in_force()) as tx:   # fixes are no board's
            return await tx.trail.player_fixes(player_id)

    async def erase_trails(self) -> int:
        """R30: every location fix goes, a set time after the season's close (the gateway's retention job asks),
        and so do the coordinates kept as evidence on flags and the positions of claims (the flags and claims
        stay); how many fixes were deleted and claim positions erased now (the organizer's log counts both as
        location fixes)."""
        async with self.store.begin(await self._in_force()) as tx:   # every season's places go
            await tx.trail.erase_flag_places(None)
            return await tx.claims.erase_claim_places(None) + await tx.trail.erase_all_fixes()

    async def correct(self, cmd: CorrectOwnership) -> OwnershipCorrected | Refusal:
        """Apply one ownership correction; a repeat of ``command_id`` answers the first reply. Refusals:
        ``not_found`` (unknown claim or territory), ``conflict`` (claim already undone, or not the territory's
        latest standing move), ``invalid_input`` (missing argument), ``invalid_target`` (``set_owner`` naming a
        disqualified player, R28 amended; that the player is verified is the gateway's check: claims knows only
        who is excluded). A reversal that would return the territory to a disqualified player leaves it unclaimed
        (R28, amended)."""
        season_id = await self._changing()
        now = await self.clock.now()
        if cmd.action == "reverse_claim" and cmd.claim_id:
            # R31, R28: a reversal applies to the board its claim moved, a closed season's too
            async with self.store.connect(season_id) as tx:
                claim = await tx.claims.claim(cmd.claim_id)
            if claim is not None and claim.season_id is not None and claim.season_id != season_id:
                season_id = claim.season_id
                await self.boards.ready(season_id)
        async with self.store.begin(season_id) as tx:
            prev = await tx.replies.command_reply(cmd.command_id)
            if prev is not None:
                return decode_reply(prev, OwnershipCorrected)  # type: ignore[return-value]
            reply = await _apply(tx, now, cmd)
            await tx.replies.store_command_reply(cmd.command_id, "correction_" + cmd.action, cmd.player_id or "",
                                                 reply, now)
        await self.relay.flush()
        return reply

    async def _in_force(self) -> str:
        return self.boards.config_at(await self.clock.now()).season_id


async def _apply(tx: ClaimsTx, now: datetime, cmd: CorrectOwnership) -> OwnershipCorrected | Refusal:
    if cmd.action == "reverse_claim":
        if not cmd.claim_id:
            return Refusal(reason="invalid_input", message="reverse_claim needs a claim_id.")
        claim = await tx.claims.claim(cmd.claim_id)
        if claim is None:
            return Refusal(reason="not_found", message="No claim with that id.")
        before = await tx.ownership.territory(claim.territory_id, lock=True)
        assert before is not None
        if claim.undone_by is not None:
            return Refusal(reason="conflict", message=f"That claim was already undone ({claim.undone_by}).")
        if await tx.claims.standing_claim_after(claim.territory_id, claim.at) or before.owner_id != claim.player_id:
            return Refusal(reason="conflict",
                           message="The territory changed hands after that claim; reverse the later moves first.")
        back_to, fort = await returned_to(tx, claim.previous_owner_id, claim.fort_before)   # R28
        await tx.claims.undo_claim(claim.id, "correction")
        await tx.ownership.change_territory(TerritoryChange(claim.territory_id, back_to, claim.player_id,
                                                  fort, "correction", claim.id), now)
        tid = claim.territory_id
    else:
        if not cmd.territory_id:
            return Refusal(reason="invalid_input", message="set_owner needs a territory_id.")
        if cmd.player_id is not None:
            # R28: one at a time with the player's disqualification, so the new owner is either refused (already
            # out) or freed by it (not yet out): never a disqualified owner
            await tx.locks.lock("player:" + cmd.player_id)
        if cmd.player_id is not None and cmd.player_id in await tx.exclusions.excluded_players():
            return Refusal(reason="invalid_target", message="set_owner names a disqualified player.")   # R28
        found = await tx.ownership.territory(cmd.territory_id, lock=True)
        if found is None:
            return Refusal(reason="not_found", message="No territory with that id.")
        before = found
        fort = UNCLAIMED if cmd.player_id is None else before.fort
        await tx.ownership.change_territory(TerritoryChange(cmd.territory_id, cmd.player_id, before.owner_id, fort,
                                                  "correction"), now)
        tid = cmd.territory_id
    after = await tx.ownership.territory(tid)
    assert after is not None
    return OwnershipCorrected(command_id=cmd.command_id, territory_id=tid, before=before.out(), after=after.out())
