"""Hands (R12): seeded draws at each day start and at verification, each season's seed commitment and reveal, the
players the service deals to (R31: a season's joined and verified players), and the organizer's hand corrections
(R28)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import structlog

from turf_cards.context import Cards, dealt_event_id
from turf_cards.ports import CardsTx, Saga
from turf_cards.saga import Sagas
from turf_cards.trades import cancel_without_cards, close_open_trades
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal
from turf_common.contracts.cards import (
    AdjustHand,
    AdjustReply,
    CardDrawn,
    CardOut,
    HandAdjusted,
    HandReply,
    HandsDealt,
    SeedCommitted,
    SeedReply,
    SeedRevealed,
)
from turf_common.contracts.clock import DayStarted, SeasonEnded, SeasonStarted
from turf_common.contracts.effects import EffectApplied, UnscheduleEffect
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules import cards as rules
from turf_common.rules import gametime

log = structlog.get_logger(__name__)

DrawReason = Literal["week_start", "day_start", "verification"]


class SeedChanged(RuntimeError):
    """R12.1: the service was started with another seed than the one its season began on."""


def withdraw_saga_id(correction_id: str, i: int) -> str:
    """The saga (and claims command) id of a correction's ``i``-th withdrawal of a scheduled card: derived from the
    correction, so a retried correction finds what its first run withdrew."""
    return hashlib.sha256(f"withdraw|{correction_id}|{i}".encode()).hexdigest()[:32]


@dataclass
class Hands:
    cx: Cards
    sagas: Sagas

    # ---- reads
    async def hand(self, player_id: str, season_id: str | None = None) -> HandReply:
        """``cards.hand``: the player's unused cards (ready + reserved) in the season in force (R31), in draw
        order."""
        if season_id is None:
            season_id = self.cx.season_at(await self.cx.clock.now()).season_id
        cards = await self.cx.store.hand(season_id, player_id)
        return HandReply(player_id=player_id, cards=[CardOut(id=c.id, type=c.card_type, state=c.state) for c in cards])

    async def seed_info(self) -> SeedReply:
        """``cards.seed`` (R12.1) for the season in force (R31): its commitment, its seed once it has closed."""
        now = await self.cx.clock.now()
        season = self.cx.season_at(now)
        seed = self.cx.seed_of(season.season_id)
        st = gametime.season_state(season, now)
        return SeedReply(season_id=season.season_id, commitment=rules.seed_commitment(seed),
                         seed=seed if st == "closed" else None)

    # ---- the season
    async def pin_seed(self) -> None:
        """R12.1 at every start: the first start records the configuration file's season's seed commitment; a later
        start whose seed has another commitment raises ``SeedChanged``, since every draw and the commitment already
        published depend on it (and every later season's seed is derived from it)."""
        season_id = self.cx.file_season.season_id
        commitment = rules.seed_commitment(self.cx.seed_of(season_id))
        async with self.cx.store.begin() as tx:
            recorded = await tx.season.record_season(season_id, commitment)
        if recorded != commitment:
            raise SeedChanged(f"season {season_id} began on the seed with SHA-256 {recorded}; TURF_SEED now "
                              f"has SHA-256 {commitment}: every draw and the published commitment depend on the "
                              "first seed (R12.1), so restore it")

    async def season_started(self, ev: SeasonStarted) -> None:
        """R12.1: commit to the season's own seed (``card.seed_committed``) before its first draw. R31: the season
        starts with no hands (hands are kept by season), its players are those who joined it."""
        season = await self.cx.season_of(ev.season_id, ev.at)
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.CLOCK_SEASON_STARTED):
                return
            commitment = rules.seed_commitment(self.cx.seed_of(season.season_id))
            await tx.season.record_season(season.season_id, commitment)
            await tx.messages.stage(subjects.CARD_SEED_COMMITTED, SeedCommitted(
                event_id=f"seed_committed:{season.season_id}", occurred_at=ev.at, season_id=season.season_id,
                commitment=commitment))

    async def season_ended(self, ev: SeasonEnded) -> None:
        """Reveal the season's seed (``card.seed_revealed``, R12.1); R18: open proposals end with the season."""
        season = await self.cx.season_of(ev.season_id, ev.at)
        seed = self.cx.seed_of(season.season_id)
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.CLOCK_SEASON_ENDED):
                return
            await tx.messages.stage(subjects.CARD_SEED_REVEALED, SeedRevealed(
                event_id=f"seed_revealed:{season.season_id}", occurred_at=ev.at, season_id=season.season_id,
                commitment=rules.seed_commitment(seed), seed=seed))
            await close_open_trades(tx, "season_ended", ev.at)

    async def day_started(self, ev: DayStarted) -> None:
        """R12 at the day start: Monday tops every hand up to 3 unused cards (scheduled ones count), Tuesday to
        Saturday add one card; R31: to the players who joined the day's season and are verified, in their hands of
        that season. Stages ``card.dealt`` and then each ``card.drawn``."""
        season = await self.cx.season_of(ev.season_id, ev.at)
        sid = season.season_id
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.CLOCK_DAY_STARTED):
                return
            week = rules.is_week_start(season, ev.game_day)
            pids = await tx.players.verified_players(sid)
            hands = {p: await tx.hands.unused(sid, p) for p in pids}
            draws = {p: rules.day_start_draws(season, ev.game_day, n) for p, n in hands.items()}
            reason: Literal["week_start", "day_start"] = "week_start" if week else "day_start"
            await tx.messages.stage(subjects.CARD_DEALT, HandsDealt(
                event_id=dealt_event_id(sid, ev.game_day), occurred_at=ev.at,
                season_id=sid, game_day=ev.game_day, reason=reason, hands=hands, draws=draws))
            for p in pids:
                await self._draw(tx, sid, p, draws[p], reason, ev.at)
        log.info("hands_dealt", season_id=sid, game_day=ev.game_day.isoformat(), players=len(pids),
                 cards=sum(draws.values()))

    # ---- players
    async def player_verified(self, ev: PlayerVerified) -> None:
        """A newly verified account. R31: a player takes part in the seasons they joined (``season.joined``); the
        configuration file's season's players were verified before seasons were joined, so until it closes a
        verification also joins it. R12: verified while a season they joined runs → its Monday top-up now."""
        season = self.cx.season_at(ev.at)
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.PLAYER_VERIFIED):
                return
            if await tx.players.player_known(ev.player_id):
                return
            await tx.players.add_player(ev.player_id, ev.at)
            if season.season_id == self.cx.file_season.season_id and gametime.season_state(season, ev.at) != "closed":
                await tx.players.join(season.season_id, ev.player_id, ev.at)
            if await tx.players.joined(season.season_id, ev.player_id):
                await self._top_up(tx, season, ev.player_id, ev.at)

    async def season_joined(self, ev: SeasonJoined) -> None:
        """R31: the player takes part in the season. R12: joined by a verified player while it runs → the Monday
        top-up now, as for a player verified while it runs; joined before it opens → dealt at its first day start
        like everyone; a player not yet verified is dealt once verified."""
        season = await self.cx.season_of(ev.season_id, ev.occurred_at)
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.SEASON_JOINED):
                return
            if not await tx.players.join(ev.season_id, ev.player_id, ev.occurred_at):
                return
            if season.season_id == ev.season_id and await tx.players.is_verified(ev.player_id):
                await self._top_up(tx, season, ev.player_id, ev.occurred_at)

    async def _top_up(self, tx: CardsTx, season: gametime.SeasonConfig, player_id: str, at: datetime) -> None:
        """R12: the Monday top-up at ``at`` if ``season`` runs then (nothing before it opens or after it closes)."""
        sid = season.season_id
        n = rules.verification_draws(season, at, await tx.hands.unused(sid, player_id))
        await self._draw(tx, sid, player_id, n, "verification", at)

    async def player_disqualified(self, ev: PlayerDisqualified) -> None:
        """No more deals for the player; R18: their open proposals are cancelled."""
        async with self.cx.store.begin() as tx:
            if not await tx.messages.first_time(ev.event_id, subjects.PLAYER_DISQUALIFIED):
                return
            await tx.players.disqualify(ev.player_id, ev.at)
            await close_open_trades(tx, "disqualified", ev.at, ev.player_id)

    async def _draw(self, tx: CardsTx, season_id: str, player_id: str, n: int, reason: DrawReason,
                    at: datetime) -> None:
        """R12: the player's next ``n`` cards of the season from its seed, by the season's draw index (R31: each
        season counts from 0), ``card.drawn`` each."""
        if n <= 0:
            return
        seed = self.cx.seed_of(season_id)
        first = await tx.players.draws_for_update(season_id, player_id)
        for i in range(first, first + n):
            kind = rules.draw_card(seed, season_id, player_id, i)
            cid = uuid.uuid4().hex
            await tx.hands.add_card(season_id, cid, player_id, kind, i, reason, at)
            await tx.messages.stage(subjects.CARD_DRAWN, CardDrawn(
                event_id=f"draw:{season_id}:{player_id}:{i}", occurred_at=at, season_id=season_id,
                player_id=player_id, card_id=cid, card_type=kind, draw_index=i, reason=reason))
        await tx.players.set_draws(season_id, player_id, first + n)

    # ---- corrections (R28)
    async def adjust(self, cmd: AdjustHand) -> AdjustReply | Refusal:
        """``cards.adjust``: the organizer's ``adjust_hand`` (R28); added cards are not draws (no seed). A removal
        takes a ready card of the type first (last drawn first), then a reserved one: a scheduled Freeze/Blockade,
        whose schedule is withdrawn (claims' ``unschedule``, as a ``withdraw`` saga: the card is removed only once
        claims confirms, so a protection never activates for a card the hand no longer holds; one that already
        activated or lapsed stays as it is). A card held by a saga in flight is not taken. A repeated
        ``correction_id`` changes nothing and answers what the first did (the gateway asks again after losing an
        answer). The reply carries the hand after."""
        now = await self.cx.clock.now()
        sid = self.cx.season_at(now).season_id   # R31: the hand of the season in force
        event_id = f"adjusted:{cmd.correction_id}"[:64]
        withdrawals: list[str] = []
        async with self.cx.store.begin() as tx:
            await tx.hands.lock_hand(cmd.player_id)
            if not await tx.messages.first_time("adjust:" + cmd.correction_id, subjects.CARDS_ADJUST):
                first = await tx.messages.staged(event_id)
                if first is None:
                    return Refusal(reason="conflict", message="That correction was already applied.")
                done = HandAdjusted.model_validate_json(first)
                removed = list(done.removed) + await self._withdrawn(tx, cmd)
                return AdjustReply(correction_id=cmd.correction_id, player_id=done.player_id, added=done.added,
                                   removed=removed, cards=(await self.hand(done.player_id, done.season_id)).cards)
            added, removed = [], []
            for kind in cmd.add:
                cid = uuid.uuid4().hex
                await tx.hands.add_card(sid, cid, cmd.player_id, kind, None, "correction", now)
                added.append(CardOut(id=cid, type=kind, state="ready"))
            for kind in cmd.remove:
                found = await tx.hands.newest_ready_for_update(sid, cmd.player_id, kind)
                if found is not None:
                    await tx.hands.set_card(found, "removed", now)
                    removed.append(CardOut(id=found, type=kind, state="removed"))
                    continue
                held = await tx.hands.newest_scheduled_for_update(sid, cmd.player_id, kind)
                if held is not None:
                    sid = withdraw_saga_id(cmd.correction_id, len(withdrawals))
                    effect = UnscheduleEffect(command_id=sid, player_id=cmd.player_id, card_id=held,
                                              correction=True)   # R28: at any hour
                    await tx.hands.set_card(held, "reserved", now, saga_id=sid)
                    await tx.sagas.add_saga(Saga(id=sid, kind="withdraw", player_id=cmd.player_id, card_type=kind,
                                           card_ids=[held], subject=subjects.CLAIMS_EFFECT_UNSCHEDULE,
                                           command=effect.model_dump_json(), trade_id=cmd.correction_id))
                    withdrawals.append(sid)
            await tx.messages.stage(subjects.CARD_ADJUSTED, HandAdjusted(
                event_id=event_id, occurred_at=now, season_id=sid,
                correction_id=cmd.correction_id, player_id=cmd.player_id, added=added, removed=removed))
            if removed:
                await cancel_without_cards(tx, sid, [cmd.player_id], now)
        await self.cx.relay.flush()
        for sid in withdrawals:
            out = await self.sagas.drive(sid)
            if isinstance(out, CardOut):
                removed.append(out)
        hand = await self.hand(cmd.player_id, sid)
        return AdjustReply(correction_id=cmd.correction_id, player_id=cmd.player_id, added=added, removed=removed,
                           cards=hand.cards)

    async def _withdrawn(self, tx: CardsTx, cmd: AdjustHand) -> list[CardOut]:
        """The scheduled cards a correction's first run withdrew (their ``card.adjusted``)."""
        out: list[CardOut] = []
        for i in range(len(cmd.remove)):
            raw = await tx.messages.staged(f"adjusted:{withdraw_saga_id(cmd.correction_id, i)}")
            if raw is not None:
                out += HandAdjusted.model_validate_json(raw).removed
        return out

    async def complete_withdraw(self, tx: CardsTx, saga: Saga, out: EffectApplied | Refusal,
                                now: datetime) -> Message:
        """R28: claims withdrew the schedule → the card is removed (its own ``card.adjusted``, same correction);
        refused (it activated or lapsed meanwhile, or the game is closed) → the card stays as it is, free of the
        saga, and the refusal is the reply."""
        card_id = saga.card_ids[0]
        if isinstance(out, Refusal):
            await tx.hands.clear_card_saga(card_id)
            return Refusal(reason=out.reason, message=out.message)
        card = await tx.hands.card_for_update(card_id)
        await tx.hands.set_card(card_id, "removed", now, saga_id=None, scheduled_for=None)
        gone = CardOut(id=card_id, type=saga.card_type, state="removed")
        correction_id = saga.trade_id or ""   # a withdrawal keeps its correction's id there
        season_id = card.season_id if card is not None else self.cx.season_at(now).season_id
        await tx.messages.stage(subjects.CARD_ADJUSTED, HandAdjusted(
            event_id=f"adjusted:{saga.id}", occurred_at=now, season_id=season_id,
            correction_id=correction_id, player_id=saga.player_id, added=[], removed=[gone]))
        await cancel_without_cards(tx, season_id, [saga.player_id], now)
        return gone
