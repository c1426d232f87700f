"""The claims subscribers without servers: FastStream's TestNatsBroker in front of the handlers on the in-memory
fakes. A command is decoded from its contract, answered with the use case's reply, and a body that does not fit
its contract is refused as invalid_input."""

from __future__ import annotations

from datetime import timedelta

from faststream.nats import NatsBroker, TestNatsBroker

from turf_claims import bootstrap, entrypoints
from turf_claims.testing import MemoryClaimsStore
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.claims import ClaimAcceptedReply, Fix, StateReply, StateRequest, SubmitClaim
from turf_common.contracts.geo import Located, Verdict, VerifiedClaim
from turf_common.rules import gametime
from turf_common.testing import FakeClock, RecordingPublisher

SEASON = gametime.load_season()
DAY1 = gametime.game_days(SEASON)[0]
AT = gametime.open_interval(SEASON, DAY1)[0] + timedelta(hours=1)


async def _broker() -> tuple[NatsBroker, MemoryClaimsStore]:
    store = MemoryClaimsStore()
    h = bootstrap.handlers(store, FakeClock(AT), RecordingPublisher(store.take_staged), SEASON, {"hoboken": "Hoboken"})
    await h.claims.seed_territories()
    store.state.days_started.add(DAY1)   # R5: the day's start work is done
    broker = make_broker("nats://test", "claims")
    broker.include_router(entrypoints.router(h, "TEST"))
    return broker, store


async def test_r9_a_verified_claim_is_decoded_decided_and_answered_with_the_accepted_reply() -> None:
    broker, store = await _broker()
    cmd = SubmitClaim(player_id="ann", player_status="verified",
                      fix=Fix(lat=40.0, lon=-74.0, accuracy_m=10.0, fix_time=AT - timedelta(seconds=3)))
    verdict = Verdict(located=Located(territory_id="hoboken", border_distance_m=250.0))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(VerifiedClaim(claim=cmd, received_at=AT, verdict=verdict),
                                subjects.CLAIMS_VERIFIED_SUBMIT)
        reply = decode_reply(resp.body, ClaimAcceptedReply)
        assert isinstance(reply, ClaimAcceptedReply)
        assert (reply.territory_id, reply.kind, reply.owner_id, reply.progress) == ("hoboken", "take", "ann", 1)
        state = StateReply.model_validate_json((await br.request(StateRequest(territory_id="hoboken"),
                                                                 subjects.CLAIMS_STATE)).body)
    assert [(t.id, t.owner_id) for t in state.territories] == [("hoboken", "ann")]
    assert store.state.territories["hoboken"].version == 1


async def test_a_submit_body_that_does_not_fit_its_contract_is_refused_as_invalid_input() -> None:
    broker, store = await _broker()
    async with TestNatsBroker(broker) as br:
        resp = await br.request({"claim": {"player_id": "ann", "player_status": "verified"}},
                                subjects.CLAIMS_VERIFIED_SUBMIT)
    assert decode_reply(resp.body, ClaimAcceptedReply) == Refusal(
        reason="invalid_input", message="The command does not fit its contract.")
    assert store.state.claims == {}
