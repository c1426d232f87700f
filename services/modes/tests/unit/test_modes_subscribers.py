"""The modes subscribers on FastStream's TestNatsBroker (no server): typed decoding, replies and refusals as the
gateway decodes them, a body that does not fit its contract."""

from __future__ import annotations

from faststream.nats import TestNatsBroker
from modes_world import World

from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.modes import GameView, OrderReply
from turf_modes import entrypoints


async def test_commands_round_trip_and_a_rule_refusal_comes_back_with_its_code(w: World) -> None:
    broker = make_broker("nats://test", "modes")
    broker.include_router(entrypoints.router(w.h, "TURF"))
    async with TestNatsBroker(broker) as br:
        r = await br.request({"command_id": "c", "player_id": "a", "hill": "C"}, subjects.MODES_OPEN_HILL)
        room = decode_reply(r.body, GameView)
        assert isinstance(room, GameView) and room.mode == "hill" and room.status == "lobby"
        r = await br.request({"game_id": room.game_id, "player_id": "a"}, subjects.MODES_JOIN)
        assert decode_reply(r.body, GameView) == Refusal(reason="already_joined",
                                                         message="You are already in this room.")
        r = await br.request({"game_id": room.game_id, "player_id": "a", "turn": 1, "kind": "move", "src": "A",
                              "dst": "B", "n": 1}, subjects.MODES_ORDER)
        refused = decode_reply(r.body, OrderReply)
        assert isinstance(refused, Refusal) and refused.reason == "invalid_input"   # not a Team Turf game


async def test_a_command_that_does_not_fit_its_contract_is_answered_invalid_input(w: World) -> None:
    broker = make_broker("nats://test", "modes")
    broker.include_router(entrypoints.router(w.h, "TURF"))
    async with TestNatsBroker(broker) as br:
        r = await br.request({"command_id": "c", "player_id": "a", "hill": "C", "round_seconds": 1},
                             subjects.MODES_OPEN_HILL)
        assert decode_reply(r.body, GameView) == Refusal(reason="invalid_input",
                                                         message="The command does not fit its contract.")
    assert await w.store.latest(None, 10) == []


async def test_k5_a_round_lasts_six_hours_at_most(w: World) -> None:
    broker = make_broker("nats://test", "modes")
    broker.include_router(entrypoints.router(w.h, "TURF"))
    async with TestNatsBroker(broker) as br:
        week = await br.request({"command_id": "w", "player_id": "a", "hill": "C", "round_seconds": 7 * 86400},
                                subjects.MODES_OPEN_HILL)
        refused = decode_reply(week.body, GameView)
        assert isinstance(refused, Refusal) and refused.reason == "invalid_input"   # one idle seat, a week a round
        six = await br.request({"command_id": "s", "player_id": "a", "hill": "C", "round_seconds": 6 * 3600},
                               subjects.MODES_OPEN_HILL)
        assert isinstance(decode_reply(six.body, GameView), GameView)
    assert [g.config["round_seconds"] for g in await w.store.latest(None, 10)] == [6 * 3600]
