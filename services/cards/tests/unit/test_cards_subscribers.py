"""The cards subscribers on FastStream's TestNatsBroker (no server): typed decoding, the replies, and a body that
does not fit its contract."""

from __future__ import annotations

from typing import get_args

from cards_world import FakeClaims, World, world
from faststream.nats import TestNatsBroker
from pydantic import TypeAdapter

from turf_cards import entrypoints
from turf_cards.handlers import CardsEvent
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.cards import HandReply, PlayCard, PlayReply
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.effects import EffectApplied


async def test_cards_play_is_decoded_played_r13_and_answered() -> None:
    w = world(claims=FakeClaims(answer=lambda subject, cmd: EffectApplied(
        command_id=cmd["command_id"], kind="double_trouble", claims_left_today=2)))
    (card,) = await w.give("p1", "double_trouble")
    broker = make_broker("nats://test", "cards")
    broker.include_router(entrypoints.router(w.h, "TEST"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request(PlayCard(player_id="p1", player_status="verified", type="double_trouble"),
                                subjects.CARDS_PLAY)
        assert decode_reply(resp.body, PlayReply) == PlayReply(
            card_id=card, type="double_trouble", state="consumed", effect={"claims_left_today": 2})
        resp = await br.request({"player_id": "p1"}, subjects.CARDS_HAND)
        assert decode_reply(resp.body, HandReply) == HandReply(player_id="p1", cards=[])


async def test_a_play_that_does_not_fit_its_contract_is_answered_invalid_input(w: World) -> None:
    broker = make_broker("nats://test", "cards")
    broker.include_router(entrypoints.router(w.h, "TEST"))
    async with TestNatsBroker(broker) as br:
        resp = await br.request({"player_id": "p1", "player_status": "verified", "type": "ace"}, subjects.CARDS_PLAY)
        assert decode_reply(resp.body, PlayReply) == Refusal(
            reason="invalid_input", message="The command does not fit its contract.")
    assert w.claims.sent == [] and w.store.state.sagas == {}


def test_the_consumer_takes_exactly_the_subjects_its_event_union_decodes() -> None:
    """Every subject of the durable consumer is a ``type`` of :data:`CardsEvent`, and nothing else is."""
    union = get_args(get_args(CardsEvent)[0])
    types = {t for model in union for t in get_args(model.model_fields["type"].annotation)}
    assert types == set(entrypoints.CONSUMED)
    one = {"type": "territory.changed", "occurred_at": "2026-10-05T14:00:00Z", "territory_id": "T001",
           "owner_id": "p1", "previous_owner_id": None, "progress": 1, "fortified": False, "version": 1,
           "cause": "claim"}
    assert isinstance(TypeAdapter(list[CardsEvent]).validate_python([one])[0], TerritoryChanged)
