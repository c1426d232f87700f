"""Trades on fakes (R18): a proposal's states, the acceptance saga, and the proposals that can no longer succeed."""

from __future__ import annotations

from cards_world import BEFORE, OPEN, FakeClaims, World, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.cards import ProposeTrade, TradeAction, TradeEvent, TradeReply
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.effects import TradeFacts
from turf_common.contracts.players import PlayerDisqualified

FACTS = TradeFacts(offer_known=True, want_known=True, offer_owner="ann", want_owner="bob", offer_in_dispute=False,
                   want_in_dispute=False)


async def two_traders(claims: FakeClaims | None = None) -> World:
    w = world(claims=claims or FakeClaims(facts=FACTS))
    w.claims.facts = FACTS
    for pid in ("ann", "bob"):
        await w.verify(pid, at=BEFORE)   # no seeded draws: the hands hold what the test gives
        await w.give(pid, "trade")
    return w


async def propose(w: World) -> str:
    reply = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                  offer_territory_id="T001", want_territory_id="T002"))
    assert isinstance(reply, TradeReply) and reply.trade.state == "open", reply
    return reply.trade.id


def act(pid: str, trade_id: str) -> TradeAction:
    return TradeAction(player_id=pid, player_status="verified", trade_id=trade_id)


def trade_events(w: World) -> list[tuple[str, str | None]]:
    return [(s, e.reason) for s, e in w.published("trade.") if isinstance(e, TradeEvent)]


async def test_r18_an_accepted_trade_consumes_one_trade_card_of_each_party() -> None:
    w = await two_traders()
    tid = await propose(w)
    reply = await w.h.trades.accept(act("bob", tid))
    assert isinstance(reply, TradeReply) and reply.trade.state == "accepted"
    assert [s for s, c in w.claims.sent] == ["claims.effect.trade"]
    assert w.claims.sent[0][1] | {"command_id": "-"} == {
        "command_id": "-", "player_id": "bob", "trade_id": tid, "proposer_id": "ann", "offer_territory_id": "T001",
        "want_territory_id": "T002", "schema_version": 1}
    played = [(e.player_id, e.effect) for _, e in w.published("card.played")]  # type: ignore[attr-defined]
    assert played == [("ann", {"trade_id": tid, "territory_id": "T002"}),
                      ("bob", {"trade_id": tid, "territory_id": "T001"})]
    assert trade_events(w) == [("trade.proposed", None), ("trade.accepted", None)]
    assert await w.h.trades.list("ann") == await w.h.trades.list("bob")
    assert (await w.h.trades.list("ann")).trades == []


async def test_r18_a_declined_trade_is_closed_and_can_no_longer_be_accepted_or_withdrawn() -> None:
    w = await two_traders()
    tid = await propose(w)
    assert (await w.h.trades.withdraw(act("bob", tid))).reason == "forbidden"  # type: ignore[union-attr]
    assert (await w.h.trades.decline(act("ann", tid))).reason == "forbidden"  # type: ignore[union-attr]
    assert (await w.h.trades.decline(act("eve", tid))).reason == "not_found"  # type: ignore[union-attr]
    declined = await w.h.trades.decline(act("bob", tid))
    assert isinstance(declined, TradeReply) and declined.trade.state == "declined"
    assert (await w.h.trades.accept(act("bob", tid))).reason == "trade_no_longer_valid"  # type: ignore[union-attr]
    assert (await w.h.trades.withdraw(act("ann", tid))).reason == "trade_no_longer_valid"  # type: ignore[union-attr]
    assert trade_events(w) == [("trade.proposed", None), ("trade.declined", "declined")]
    assert w.claims.sent == []


async def test_r18_a_withdrawn_trade_is_cancelled() -> None:
    w = await two_traders()
    tid = await propose(w)
    withdrawn = await w.h.trades.withdraw(act("ann", tid))
    assert isinstance(withdrawn, TradeReply) and withdrawn.trade.state == "cancelled"
    assert trade_events(w) == [("trade.proposed", None), ("trade.cancelled", "withdrawn")]


async def test_r18_a_proposal_needs_a_trade_card_on_both_sides_and_a_verified_partner() -> None:
    w = world(claims=FakeClaims(facts=FACTS))
    await w.verify("ann", at=BEFORE)
    await w.verify("bob", at=BEFORE)
    cmd = ProposeTrade(player_id="ann", player_status="verified", offer_territory_id="T001", want_territory_id="T002")
    assert (await w.h.trades.propose(cmd)).reason == "card_not_in_hand"  # type: ignore[union-attr]
    await w.give("ann", "trade")
    assert (await w.h.trades.propose(cmd)).reason == "invalid_target"  # type: ignore[union-attr]
    await w.give("bob", "trade")
    await w.h.on_event(PlayerDisqualified(occurred_at=OPEN, player_id="bob", at=OPEN))
    assert (await w.h.trades.propose(cmd)).reason == "invalid_target"  # type: ignore[union-attr]
    assert w.published("trade.") == []


async def test_r18_removing_a_partys_last_trade_card_cancels_the_proposal_and_acceptance_is_refused() -> None:
    w = await two_traders()
    tid = await propose(w)
    await w.give("bob", remove=("trade",))
    assert trade_events(w)[-1] == ("trade.cancelled", "no_trade_card")
    assert (await w.h.trades.accept(act("bob", tid))).reason == "trade_no_longer_valid"  # type: ignore[union-attr]


async def test_r18_a_swap_claims_refuses_returns_both_cards_and_cancels_the_proposal() -> None:
    no = Refusal(reason="trade_no_longer_valid", message="This trade can no longer succeed: …")
    w = await two_traders(FakeClaims(answer=lambda subject, cmd: no))
    tid = await propose(w)
    assert await w.h.trades.accept(act("bob", tid)) == no
    for pid in ("ann", "bob"):
        assert [c.state for c in await w.hand(pid) if c.card_type == "trade"] == ["ready"]
    assert trade_events(w)[-1] == ("trade.cancelled", "trade_no_longer_valid")


async def test_r18_a_territory_that_leaves_its_party_cancels_the_proposal_once_a_batch() -> None:
    """The consumer's batch handler: one read for the batch's ownership changes; only the change that takes
    ``T002`` from bob cancels (an unrelated territory and a change back to its party do nothing)."""
    w = await two_traders()
    await propose(w)
    reads: list[set[str]] = []
    real = w.store.traded_territories

    async def counted(ids):  # type: ignore[no-untyped-def]
        reads.append(set(ids))
        return await real(ids)

    w.store.traded_territories = counted  # type: ignore[method-assign]
    changes = [TerritoryChanged(occurred_at=OPEN, territory_id=t, owner_id=o, previous_owner_id=None, progress=1,
                                fortified=False, version=v, cause="claim")
               for v, (t, o) in enumerate([("T009", "eve"), ("T002", "bob"), ("T002", "eve"), ("T001", "eve")])]
    handle = w.h.batch(changes)
    for ev in changes:
        await handle(ev)
    assert reads == [{"T009", "T002", "T001"}]
    assert trade_events(w) == [("trade.proposed", None), ("trade.cancelled", "territory_lost")]


async def test_r18_open_proposals_end_with_the_season_and_the_seed_is_revealed() -> None:
    w = await two_traders()
    await propose(w)
    end = SeasonEnded(occurred_at=OPEN, at=OPEN, game_day=OPEN.date(), game_day_number=1, week=1,
                      season_id="s")
    await w.h.on_event(end)
    await w.h.on_event(end)   # a redelivery
    assert trade_events(w)[-1] == ("trade.cancelled", "season_ended")
    assert [s for s, _ in w.published("card.seed_revealed")] == ["card.seed_revealed"]


async def test_r18_one_open_proposal_per_pair_of_territories() -> None:
    """A second open proposal on the same two territories (the same offer again, or the partner's
    counter-offer of the same swap) is refused 409 ``conflict``; once the first is closed, a new one may be made.
    Before, a player could open any number of copies of one offer."""
    w = await two_traders()
    tid = await propose(w)
    again = await w.h.trades.propose(ProposeTrade(player_id="ann", player_status="verified",
                                                  offer_territory_id="T001", want_territory_id="T002"))
    w.claims.facts = TradeFacts(offer_known=True, want_known=True, offer_owner="bob", want_owner="ann",
                                offer_in_dispute=False, want_in_dispute=False)
    counter = await w.h.trades.propose(ProposeTrade(player_id="bob", player_status="verified",
                                                    offer_territory_id="T002", want_territory_id="T001"))
    for r in (again, counter):
        assert isinstance(r, Refusal) and r.reason == "conflict", r
    assert trade_events(w) == [("trade.proposed", None)]
    w.claims.facts = FACTS
    await w.h.trades.withdraw(act("ann", tid))
    assert await propose(w) != tid


async def test_r18_trade_holders_are_the_other_verified_players_with_a_ready_trade_card() -> None:
    # the play page's Trade form: R18 asks the partner to hold a Trade card, so only those are offered
    w = await two_traders()
    await w.verify("cat", at=BEFORE)
    await w.give("cat", "freeze")                                   # no Trade card: not a partner
    assert (await w.h.trades.holders("ann")).player_ids == ["bob"]
    assert (await w.h.trades.holders("cat")).player_ids == ["ann", "bob"]
    await w.h.on_event(PlayerDisqualified(occurred_at=OPEN, player_id="bob", at=OPEN))
    assert (await w.h.trades.holders("ann")).player_ids == []        # R28: out of the game
