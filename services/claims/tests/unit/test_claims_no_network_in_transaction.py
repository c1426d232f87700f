"""No network round trip inside a claims transaction (docs/architecture/claim-path.md): the unit of work
marks its transaction open (turf_common.txguard) and every fake of a network port (the outbox relay's flush, the
clock's fresh read, the bus) refuses to run while it is. The claim path's use cases, run here end to end on the
fakes, make each of those calls, outside the transaction. (With geo-verify asked inside the transaction, as before
the pipeline, every claim here failed with NetworkInTransaction.)"""

from __future__ import annotations

from datetime import timedelta

from claims_world import World

from turf_common import txguard
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply
from turf_common.contracts.effects import DoubleTroubleEffect, EffectApplied

HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km from Hoboken: a flag (R7.1) a minute later


async def test_claims_checks_flags_and_effects_make_their_round_trips_outside_the_transaction(w: World) -> None:
    asked_in: list[str | None] = []
    ask = w.handed_on.answer

    async def watched(subject: str, v):  # type: ignore[no-untyped-def]
        asked_in.append(txguard.open_transaction())   # geo-verify's request to claims: no transaction around it
        return await ask(subject, v)

    w.handed_on.answer = watched
    assert isinstance(await w.check_cmd(w.cmd("ann", "hoboken", where=HOBOKEN)), CheckReply)
    w.clock.at += timedelta(minutes=1)
    assert isinstance(await w.submit(w.cmd("ann", "newark", where=NEWARK)), ClaimAcceptedReply)   # flagged
    assert isinstance(await w.h.effects.double_trouble(DoubleTroubleEffect(command_id="d", player_id="ann")),
                      EffectApplied)
    assert isinstance(await w.claim("ann", "jersey"), ClaimAcceptedReply)
    assert asked_in == [None, None, None]
    assert w.relay.flushes >= 3 and w.sent("flag.raised")   # each flush ran, guarded, after its commit
    assert txguard.open_transaction() is None
