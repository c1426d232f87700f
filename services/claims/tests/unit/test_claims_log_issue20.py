"""Issue 20: the organizer's claim log (``claims.list``) over the in-memory store — oldest first, narrowed by game
day and player, cut at the limit with ``truncated``, reversals shown (R19 Mulligan, R28)."""

from __future__ import annotations

from datetime import timedelta

from claims_world import DAY1, World
from test_claims_trail_r7_1 import HOBOKEN, NEWARK

from turf_common.contracts.claims import ClaimAcceptedReply, ClaimsListRequest


async def test_the_log_lists_claims_oldest_first_narrowed_by_day_and_player_and_cut_at_the_limit(w: World) -> None:
    first = await w.h.claims.submit(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    w.clock.at += timedelta(hours=1)
    second = await w.h.claims.submit(w.cmd("bob", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(first, ClaimAcceptedReply) and isinstance(second, ClaimAcceptedReply)

    log = await w.h.claims.log(ClaimsListRequest())
    assert [(c.id, c.player_id, c.territory_id, c.kind, c.game_day, c.normal, c.undone_by) for c in log.claims] == [
        (first.claim_id, "ann", "hoboken", "take", DAY1, True, None),
        (second.claim_id, "bob", "newark", "take", DAY1, True, None)]
    assert log.truncated is False
    assert [c.id for c in (await w.h.claims.log(ClaimsListRequest(player_id="bob"))).claims] == [second.claim_id]
    assert (await w.h.claims.log(ClaimsListRequest(game_day=DAY1 + timedelta(days=1)))).claims == []
    cut = await w.h.claims.log(ClaimsListRequest(limit=1))
    assert ([c.id for c in cut.claims], cut.truncated) == ([first.claim_id], True)
