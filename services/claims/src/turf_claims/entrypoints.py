"""NATS subscribers of the claims service: decode, call a handler, reply."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from turf_claims.corrections import correct, release_player
from turf_claims.effects import subscribe_effects
from turf_claims.handlers import ClaimsService
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import CorrectOwnership, PlayerRequest, StateRequest, SubmitClaim
from turf_common.contracts.clock import DayStarted
from turf_common.contracts.players import PlayerDisqualified
from turf_common.legacy_bus import Bus, Delivery

QUEUE = "claims"


async def subscribe(bus: Bus, svc: ClaimsService) -> Callable[[], Awaitable[None]]:
    async def submit(data: bytes) -> Message:
        return await svc.submit(SubmitClaim.model_validate_json(data))

    async def check(data: bytes) -> Message:
        return await svc.check(SubmitClaim.model_validate_json(data))

    async def state(data: bytes) -> Message:
        return await svc.state(StateRequest.model_validate_json(data).territory_id)

    async def player(data: bytes) -> Message:
        return await svc.player(PlayerRequest.model_validate_json(data).player_id)

    async def flags(_: bytes) -> Message:
        return await svc.flags()

    await bus.serve(subjects.CLAIMS_FLAGS, QUEUE, flags)
    await bus.serve(subjects.CLAIMS_SUBMIT, QUEUE, submit)
    await bus.serve(subjects.CLAIMS_CHECK, QUEUE, check)
    await bus.serve(subjects.CLAIMS_STATE, QUEUE, state)
    await bus.serve(subjects.CLAIMS_PLAYER, QUEUE, player)
    await subscribe_effects(bus, svc, QUEUE)  # card effects (#5)
    async def on_day_started(d: Delivery) -> None:
        await svc.day_started(DayStarted.model_validate_json(d.data))

    await bus.consume("claims", [subjects.CLOCK_DAY_STARTED], on_day_started)
    async def on_correct(data: bytes) -> Message:
        return await correct(svc, CorrectOwnership.model_validate_json(data))

    await bus.serve(subjects.CLAIMS_CORRECT, QUEUE, on_correct)

    async def on_disqualified(d: Delivery) -> None:
        await release_player(svc, PlayerDisqualified.model_validate_json(d.data))

    await bus.consume("claims-players", [subjects.PLAYER_DISQUALIFIED], on_disqualified)
    sweeper = asyncio.create_task(svc.relay.run())

    async def cleanup() -> None:
        sweeper.cancel()
        close_clock = getattr(svc.clock, "close", None)
        if close_clock is not None:
            await close_clock()
        await svc.engine.dispose()

    return cleanup
