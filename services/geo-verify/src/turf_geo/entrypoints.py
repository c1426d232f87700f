"""NATS subscribers of geo-verify: decode, call a handler, reply."""

from __future__ import annotations

from typing import Annotated, Any

from faststream.exceptions import SkipMessage
from faststream.nats import NatsRouter
from pydantic import ValidatorFunctionWrapHandler, WrapValidator

from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, SubmitClaim
from turf_common.contracts.geo import Located, LocatePoint, Verified, VerifyFixes
from turf_common.contracts.players import EraseTrails, PlayerFixes, PlayerFixesRequest, TrailsErased
from turf_geo.claimpath import ClaimPath
from turf_geo.handlers import GeoHandlers

QUEUE = "geo-verify"
#: claims and checks taken at a time: each as it arrives (its window to be handed on starts then), the claim path
#: bounding the work (turf_geo.claimpath.AT_ONCE); past this many the subscription's pending buffer holds them
CLAIM_WORKERS = 1024


def _as_sent(reply: Any, validate: ValidatorFunctionWrapHandler) -> Any:
    """The claims service's reply relayed as the bytes it sent (FastStream validates a handler's return against
    its annotation, which documents the reply in the AsyncAPI document: the bytes pass as they are)."""
    return reply if isinstance(reply, bytes) else validate(reply)


ClaimReply = Annotated[ClaimAcceptedReply | Refusal, WrapValidator(_as_sent)]
CheckAnswer = Annotated[CheckReply | Refusal, WrapValidator(_as_sent)]


def router(h: GeoHandlers, stream: str, path: ClaimPath | None = None) -> NatsRouter:
    """``stream`` is unused: geo-verify consumes and publishes no events (kept for the one shape). ``path``: the
    claim path's first stage (``claims.submit``, ``claims.check``); None serves only ``geo.locate``/``geo.verify``."""
    r = NatsRouter()

    # the lookup is pure CPU and never awaits: one worker answers each request before taking the next
    @r.subscriber(subjects.GEO_LOCATE, queue=QUEUE, title="geo.locate")
    async def locate(q: LocatePoint) -> Located:
        return h.locate(q)

    # R7 and R7.1 for a batch of fixes whose trails the asker carries: pure CPU as well
    @r.subscriber(subjects.GEO_VERIFY, queue=QUEUE, title=subjects.GEO_VERIFY)
    async def verify(q: VerifyFixes) -> Verified:
        return h.verify(q)

    if path is not None:
        _claim_path(r, path)
    return r


def _claim_path(r: NatsRouter, path: ClaimPath) -> None:
    """The claim path's first stage: the claims service's answer is relayed as its bytes (no second decode)."""

    @r.subscriber(subjects.CLAIMS_SUBMIT, queue=QUEUE, max_workers=CLAIM_WORKERS, title=subjects.CLAIMS_SUBMIT)
    async def submit(cmd: SubmitClaim) -> ClaimReply:
        return _relayed(await path.submit(cmd))

    # R30: a withdrawn player's trail, or every trail once the season is long closed (the gateway asks)
    @r.subscriber(subjects.GEO_ERASE_TRAILS, queue=QUEUE, title=subjects.GEO_ERASE_TRAILS)
    async def erase_trails(q: EraseTrails) -> TrailsErased | Refusal:
        return await path.erase_trails(q)

    @r.subscriber(subjects.GEO_PLAYER_FIXES, queue=QUEUE, title=subjects.GEO_PLAYER_FIXES)
    async def player_fixes(q: PlayerFixesRequest) -> PlayerFixes | Refusal:
        return await path.player_fixes(q)   # R30: the player's export

    @r.subscriber(subjects.CLAIMS_CHECK, queue=QUEUE, max_workers=CLAIM_WORKERS, title=subjects.CLAIMS_CHECK)
    async def check(cmd: SubmitClaim) -> CheckAnswer:
        return _relayed(await path.check(cmd))


def _relayed(reply: bytes | None) -> Any:
    """The claims service's answer as its bytes (they pass :func:`_as_sent`); None, a claim not handed on in
    time: no reply at all (SkipMessage: FastStream sends none), as for a request never begun."""
    if reply is None:
        raise SkipMessage
    return reply
