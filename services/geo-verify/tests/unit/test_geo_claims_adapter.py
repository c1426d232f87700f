"""geo-verify hands a verified claim on to the claims service: while no claims process listens (a rolling
restart) the claim, which nobody took, is asked again until one answers; a claim taken and not answered in time is
never asked twice (it may have been decided) and is ``unavailable``."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

import nats
import pytest

from turf_common.contracts.base import Message, Refusal
from turf_common.contracts.claims import Fix, SubmitClaim
from turf_common.contracts.geo import Located, Verdict, VerifiedClaim
from turf_common.rules import gametime
from turf_common.rules.claims import ClaimLimits
from turf_common.testing import FakeClock
from turf_geo.adapters.claims import NatsClaims
from turf_geo.bootstrap import handlers
from turf_geo.claimpath import ClaimPath
from turf_geo.ports import Unavailable
from turf_geo.testing import FunctionClaims, MemoryTrails, PointsBoard

AT = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
CLAIM = VerifiedClaim(claim=SubmitClaim(player_id="ann", player_status="verified",
                                        fix=Fix(lat=40.0, lon=-74.0, accuracy_m=8.0, fix_time=AT)),
                      received_at=AT, verdict=Verdict(located=Located(territory_id="t", border_distance_m=250.0)))


class Broker:
    """Answers each request with the next of ``answers`` (an exception is raised); counts the requests."""

    def __init__(self, *answers: Any) -> None:
        self.answers, self.asked = list(answers), 0

    async def request(self, body: bytes, subject: str, **kwargs: Any) -> Any:
        self.asked += 1
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return SimpleNamespace(body=a)


async def test_while_no_claims_process_listens_the_claim_is_asked_again_until_one_answers() -> None:
    broker = Broker(nats.errors.NoRespondersError(), nats.errors.NoRespondersError(), b'{"ok": true}')
    assert await NatsClaims(cast(Any, broker), retry_for=2.0).ask("claims.verified.submit", CLAIM) == b'{"ok": true}'
    assert broker.asked == 3


async def test_a_claim_taken_and_not_answered_in_time_is_not_asked_again() -> None:
    broker = Broker(nats.errors.TimeoutError(), b'{"ok": true}')
    with pytest.raises(Unavailable):
        await NatsClaims(cast(Any, broker), retry_for=2.0).ask("claims.verified.submit", CLAIM)
    assert broker.asked == 1


async def test_nobody_listening_for_the_whole_wait_is_unavailable() -> None:
    broker = Broker(*[nats.errors.NoRespondersError() for _ in range(10)])
    with pytest.raises(Unavailable):
        await NatsClaims(cast(Any, broker), retry_for=0.5).ask("claims.verified.submit", CLAIM)
    assert 2 <= broker.asked <= 4


async def test_a_claim_that_waited_past_its_window_for_a_place_is_not_handed_on_nor_answered() -> None:
    """A claim is handed on within ``hand_on_s`` of its arrival or not at all: behind a burst it could otherwise be
    decided after its requester gave up (committed, and answered to nobody). It is not answered (None: no reply)."""
    release = asyncio.Event()

    async def answer(subject: str, v: VerifiedClaim) -> Message:
        await release.wait()
        return Refusal(reason="not_owner", message="answered")

    claims = FunctionClaims(answer)
    path = ClaimPath(geo=handlers(PointsBoard(), ClaimLimits()), trails=MemoryTrails(), clock=FakeClock(AT),
                     claims=claims, season=gametime.load_season(), hand_on_s=0.2, places=asyncio.Semaphore(1))
    first = asyncio.create_task(path.submit(CLAIM.claim))
    second = asyncio.create_task(path.submit(CLAIM.claim))
    await asyncio.sleep(0.3)        # the second waited for the one place past its window
    release.set()
    assert await second is None
    assert await first is not None
    assert len(claims.asked) == 1
