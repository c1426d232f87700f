"""R18 races between a proposal (or an acceptance) and an ownership change committed meanwhile, on fakes: claims'
owners are read again once the proposal is open and idle, so one that can never succeed does not stay open."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from cards_world import BEFORE, OPEN, FakeClaims, World, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.cards import ProposeTrade, TradeAction, TradeEvent, TradeReply
from turf_common.contracts.effects import EffectApplied, TradeCheck, TradeFacts
from turf_common.contracts.players import PlayerDisqualified

FACTS = TradeFacts(offer_known=True, want_known=True, offer_owner="ann", want_owner="bob", offer_in_dispute=False,
                   want_in_dispute=False)
#: the same territories once rex stole T001 from ann
STOLEN = FACTS.model_copy(update={"offer_owner": "rex"})


@dataclass
class RacingClaims(FakeClaims):
    """Claims whose owners change between two reads: each ``trade_check`` answers the next of ``script`` (the
    last one again once it runs out)."""

    script: list[TradeFacts] = field(default_factory=list)
    checks: int = 0

    async def trade_check(self, q: TradeCheck) -> TradeFacts | Refusal:
        self.checks += 1
        return self.script[min(self.checks, len(self.script)) - 1]


async def traders(claims: RacingClaims) -> World:
    w = world(claims=claims)
    for pid in ("ann", "bob"):
        await w.verify(pid, at=BEFORE)
        await w.give(pid, "trade")
    return w


def trade_events(w: World) -> list[tuple[str, str | None]]:
    return [(s, e.reason) for s, e in w.published("trade.") if isinstance(e, TradeEvent)]


async def test_r18_a_proposal_made_while_a_steal_of_its_territory_commits_is_cancelled_not_left_open() -> None:
    # claims' facts said ann owned T001; rex's steal committed before the proposal did, and its territory.changed
    # found no proposal to cancel: the proposal is checked again once committed, and cancelled, both told
    w = await traders(RacingClaims(script=[FACTS, STOLEN]))
    reply = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                  offer_territory_id="T001", want_territory_id="T002"))
    assert isinstance(reply, TradeReply) and reply.trade.state == "cancelled", reply
    assert trade_events(w) == [("trade.proposed", None), ("trade.cancelled", "territory_lost")]
    assert (await w.h.trades.list("ann")).trades == [] and (await w.h.trades.list("bob")).trades == []


async def test_r18_a_proposal_still_possible_after_its_commit_stays_open() -> None:
    w = await traders(RacingClaims(script=[FACTS]))
    reply = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                  offer_territory_id="T001", want_territory_id="T002"))
    assert isinstance(reply, TradeReply) and reply.trade.state == "open", reply
    assert trade_events(w) == [("trade.proposed", None)]


async def test_r18_an_acceptance_in_flight_when_ownership_changes_does_not_reopen_the_proposal() -> None:
    # the swap is refused for another reason (here a War dispute) while rex steals T001; the territory.changed
    # came while the acceptance was in flight (so the consumer skipped the proposal): it must not reopen
    dispute = Refusal(reason="territory_in_dispute", message="That territory is in dispute.")
    w = await traders(RacingClaims(script=[FACTS, FACTS, STOLEN], answer=lambda subject, cmd: dispute))
    made = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                 offer_territory_id="T001", want_territory_id="T002"))
    assert isinstance(made, TradeReply) and made.trade.state == "open"
    reply = await w.h.trades.accept(TradeAction(player_id="bob", player_status="verified", trade_id=made.trade.id))
    assert reply == dispute
    assert (await w.h.trades.list("ann")).trades == []
    assert trade_events(w) == [("trade.proposed", None), ("trade.cancelled", "territory_lost")]
    assert sorted((await w.states("ann")).values()) == ["ready"]     # R13: no card consumed


@dataclass
class HeldClaims(RacingClaims):
    """Claims that answers a trade effect only once :attr:`release` is set (an acceptance held in flight)."""

    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def apply(self, subject: str, command: str) -> EffectApplied | Refusal | None:
        await self.release.wait()
        return await super().apply(subject, command)


async def _disqualified_during_acceptance(answer: EffectApplied | Refusal) -> tuple[World, object]:
    claims = HeldClaims(script=[FACTS], answer=lambda subject, cmd: answer.model_copy(
        update={"command_id": cmd["command_id"]}) if isinstance(answer, EffectApplied) else answer)
    w = await traders(claims)
    made = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                 offer_territory_id="T001", want_territory_id="T002"))
    assert isinstance(made, TradeReply)
    accepting = asyncio.create_task(w.h.trades.accept(TradeAction(player_id="bob", player_status="verified",
                                                                  trade_id=made.trade.id)))
    await asyncio.sleep(0.05)                         # the saga is in flight, both Trade cards reserved
    await w.h.on_event(PlayerDisqualified(occurred_at=OPEN, player_id="ann", at=OPEN))
    claims.release.set()
    return w, await asyncio.wait_for(accepting, 2.0)


async def test_r28_r18_a_disqualification_while_an_acceptance_is_in_flight_cancels_the_proposal_once() -> None:
    # R28: ann's open trades are cancelled at her disqualification (both told, once); the swap claims then
    # refuses releases both cards and does not close the proposal a second time (one trade.cancelled)
    refused = Refusal(reason="trade_no_longer_valid", message="That trade can no longer succeed.")
    w, reply = await _disqualified_during_acceptance(refused)
    assert reply == refused
    assert trade_events(w) == [("trade.proposed", None), ("trade.cancelled", "disqualified")]
    assert sorted((await w.states("ann")).values()) == ["ready"] and sorted((await w.states("bob")).values()) == [
        "ready"]
    assert (await w.h.trades.list("bob")).trades == []


async def test_r18_a_swap_claims_made_before_the_disqualification_reached_it_is_recorded_as_accepted() -> None:
    applied = EffectApplied(command_id="-", kind="trade", territory_id="T002", owner_id="ann")
    w, reply = await _disqualified_during_acceptance(applied)
    assert isinstance(reply, TradeReply) and reply.trade.state == "accepted", reply
    assert trade_events(w)[-1] == ("trade.accepted", None)
    assert sorted((await w.states("ann")).values()) == ["consumed"]
