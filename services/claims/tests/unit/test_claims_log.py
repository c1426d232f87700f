"""The organizer's claim log (``claims.list``) over the in-memory store — oldest first, narrowed by game
day and player, cut at the limit with a cursor to the rest, reversals shown (R19 Mulligan, R28)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from claims_world import DAY1, World
from pydantic import ValidationError
from test_claims_trail_r7_1 import HOBOKEN, NEWARK

from turf_claims.ports import Claim
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import (
    CLAIMS_PAGE,
    ClaimAcceptedReply,
    ClaimRecord,
    ClaimsListReply,
    ClaimsListRequest,
)
from turf_common.rules.claims import Fortification

T0 = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)


async def test_the_log_lists_claims_oldest_first_narrowed_by_day_and_player_and_cut_at_the_limit(w: World) -> None:
    first = await w.submit(w.cmd("ann", "hoboken", where=HOBOKEN, accuracy_m=8.0))
    w.clock.at += timedelta(hours=1)
    second = await w.submit(w.cmd("bob", "newark", where=NEWARK, accuracy_m=8.0))
    assert isinstance(first, ClaimAcceptedReply) and isinstance(second, ClaimAcceptedReply)

    log = await w.h.claims.log(ClaimsListRequest())
    assert isinstance(log, ClaimsListReply)
    assert [(c.id, c.player_id, c.territory_id, c.kind, c.game_day, c.normal, c.undone_by) for c in log.claims] == [
        (first.claim_id, "ann", "hoboken", "take", DAY1, True, None),
        (second.claim_id, "bob", "newark", "take", DAY1, True, None)]
    assert log.next is None
    bob = await w.h.claims.log(ClaimsListRequest(player_id="bob"))
    assert isinstance(bob, ClaimsListReply) and [c.id for c in bob.claims] == [second.claim_id]
    later = await w.h.claims.log(ClaimsListRequest(game_day=DAY1 + timedelta(days=1)))
    assert isinstance(later, ClaimsListReply) and later.claims == []
    cut = await w.h.claims.log(ClaimsListRequest(limit=1))
    assert isinstance(cut, ClaimsListReply)
    assert ([c.id for c in cut.claims], cut.next) == ([first.claim_id], first.claim_id)


def logged(w: World, n: int) -> list[str]:
    """``n`` claims put straight into the log (the memory store's state), in log order; their ids."""
    ids = []
    for i in range(n):
        cid = f"c{i:05d}"
        w.store.state.claims[cid] = Claim(cid, f"p{i % 7}", "hoboken", "take", True, DAY1, T0 + timedelta(seconds=i),
                                          40.0, -74.0, 8.0, T0, None, None, Fortification(0, None, False))
        w.store.state.seq[cid] = len(w.store.state.seq) + 1
        ids.append(cid)
    return ids


async def test_the_claim_log_crosses_the_bus_a_page_at_a_time(w: World) -> None:
    """The whole log in one reply (up to 100,000 claims) outgrew NATS's payload limit; now a page is at most
    CLAIMS_PAGE claims and ``next`` (the last claim's id) leads through them all, in order, each once."""
    ids = logged(w, 2 * CLAIMS_PAGE + 5)
    pages, after = [], None
    while True:
        page = await w.h.claims.log(ClaimsListRequest(after=after))
        assert isinstance(page, ClaimsListReply)
        pages.append([c.id for c in page.claims])
        if page.next is None:
            break
        assert page.next == page.claims[-1].id
        after = page.next
    assert [len(p) for p in pages] == [CLAIMS_PAGE, CLAIMS_PAGE, 5]
    assert [c for p in pages for c in p] == ids
    exact = await w.h.claims.log(ClaimsListRequest(limit=5, player_id="p0"))   # p0: every 7th claim
    assert isinstance(exact, ClaimsListReply)
    assert ([c.id for c in exact.claims], exact.next) == (ids[0:35:7], ids[28])
    last = await w.h.claims.log(ClaimsListRequest(after=ids[-2]))
    assert isinstance(last, ClaimsListReply) and ([c.id for c in last.claims], last.next) == ([ids[-1]], None)
    with pytest.raises(ValidationError):
        ClaimsListRequest(limit=CLAIMS_PAGE + 1)


async def test_a_claim_log_cursor_that_is_no_logged_claim_is_invalid_input(w: World) -> None:
    logged(w, 3)
    reply = await w.h.claims.log(ClaimsListRequest(after="c99999"))
    assert isinstance(reply, Refusal) and reply.reason == "invalid_input"


def test_a_full_page_of_the_claim_log_stays_far_below_the_payload_limit() -> None:
    """The worst case of one logged claim: ids and names as long as the store's columns take (64 characters, a
    territory id of 16, kind and undone_by of 16), a time with microseconds, every flag kind R7.1 raises. A full
    page of them, with the reply around it, stays under half NATS's 1 MiB payload limit."""
    worst = ClaimRecord(id="c" * 64, at=datetime(2026, 10, 5, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-4))),
                        game_day=DAY1, player_id="p" * 64, territory_id="t" * 16, kind="war_reclaim", normal=False,
                        previous_owner_id="q" * 64, undone_by="u" * 16,
                        flags=["impossible_travel", "repeated_fix", "zero_accuracy", "day_start_jump"])
    size = len(worst.model_dump_json())
    page = len(ClaimsListReply(claims=[worst] * CLAIMS_PAGE, next="c" * 64).model_dump_json())
    assert size <= 520 and page < (1 << 20) // 2, (size, page)
