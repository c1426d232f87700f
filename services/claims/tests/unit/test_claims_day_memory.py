"""Refusals from memory: the facts of a game day that only grow (R6/R8 claims made, R10 towns locked) answer a
refusal and a refused check with no transaction; an acceptance is still decided under the locks; anything that
may shrink those facts or raise an allowance (a card effect, a correction, another replica's) stops memory for
the day. Over the in-memory fakes (claims_world) and the pure rule."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from claims_world import DAY1, DAY2, World

from turf_claims.testing import MemoryClaimsTx
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply
from turf_common.contracts.effects import DoubleTroubleEffect
from turf_common.rules.claims import certain_refusal


def count_transactions(w: World) -> list[int]:
    """The number of units of work begun from now on, as a one-item list the test reads."""
    n = [0]
    begin = w.store.begin

    @asynccontextmanager
    async def counted(season_id: str) -> AsyncIterator[MemoryClaimsTx]:
        n[0] += 1
        async with begin(season_id) as tx:
            yield tx

    w.store.begin = counted  # type: ignore[method-assign]
    return n


def refusal(r: Any, reason: str) -> None:
    assert isinstance(r, Refusal) and r.reason == reason, r


def test_r8_certain_refusals_follow_the_rulings_order_and_an_open_war_window_makes_none_certain() -> None:
    assert certain_refusal(False, 1, 1, True, True).reason == "not_eligible"      # type: ignore[union-attr]
    assert certain_refusal(True, 1, 1, True, False).reason == "no_claims_left"    # type: ignore[union-attr]
    assert certain_refusal(True, 0, 1, True, False).reason == "locked_today"      # type: ignore[union-attr]
    assert certain_refusal(True, 0, 1, False, False) is None                      # never an acceptance
    # R8.2/R14: its holder is exempt from R6 and R10, anyone else refused war_reclaim_window first
    assert certain_refusal(True, 1, 1, True, True) is None


async def test_r10_a_town_claimed_today_refuses_another_player_from_memory_with_no_transaction(w: World) -> None:
    assert isinstance(await w.claim("ann", "hoboken"), ClaimAcceptedReply)
    n = count_transactions(w)
    refusal(await w.claim("bob", "hoboken"), "locked_today")
    check = await w.check("cat", "hoboken")
    assert isinstance(check, CheckReply) and (check.allowed, check.reason) == (False, "locked_today")
    assert n[0] == 0
    assert isinstance(await w.claim("bob", "newark"), ClaimAcceptedReply) and n[0] == 1   # accepted: locked
    # the refusal was kept as the locked path keeps it: claim.rejected through the outbox
    assert [e.reason for e in w.sent(subjects.CLAIM_REJECTED)] == ["locked_today"]  # type: ignore[attr-defined]


async def test_r6_r8_a_player_with_no_claims_left_is_refused_from_memory(w: World) -> None:
    await w.claim("ann", "hoboken")
    n = count_transactions(w)
    refusal(await w.claim("ann", "newark"), "no_claims_left")
    assert n[0] == 0


async def test_r8_a_pending_player_is_refused_not_eligible_from_memory(w: World) -> None:
    n = count_transactions(w)
    cmd = w.cmd("pat", "hoboken").model_copy(update={"player_status": "pending"})
    refusal(await w.submit(cmd), "not_eligible")
    assert n[0] == 0


async def test_r17_after_a_double_trouble_memory_refuses_nothing_more_that_day(w: World) -> None:
    await w.claim("ann", "hoboken")
    refusal(await w.claim("ann", "newark"), "no_claims_left")   # memory knows her one claim
    await w.h.effects.double_trouble(DoubleTroubleEffect(command_id="dt", player_id="ann"))
    second = await w.claim("ann", "newark")                      # decided under the lock: her second claim
    assert isinstance(second, ClaimAcceptedReply) and second.claims_left_today == 0
    await w.start(DAY2)                                           # a new day: memory answers again
    await w.claim("ann", "jersey")
    n = count_transactions(w)
    refusal(await w.claim("ann", "hoboken"), "no_claims_left")
    assert n[0] == 0


async def test_r10_another_replicas_claim_arrives_as_its_event_and_refuses_here(w: World) -> None:
    await w.h.claims.memory.ready(DAY1, w.clock.at)
    w.h.claims.memory.claimed(DAY1, "c-elsewhere", "zed", "jersey", True)   # claim.accepted from a replica
    n = count_transactions(w)
    refusal(await w.claim("bob", "jersey"), "locked_today")
    assert n[0] == 0


async def test_an_idempotency_key_repeats_its_first_answer_even_when_memory_would_refuse(w: World) -> None:
    first = await w.claim("ann", "hoboken", key="k1")
    assert isinstance(first, ClaimAcceptedReply)
    assert await w.claim("ann", "hoboken", key="k1") == first    # not no_claims_left: the first answer
    refused = await w.claim("ann", "newark", key="k2")
    refusal(refused, "no_claims_left")
    assert await w.claim("ann", "newark", key="k2") == refused
    assert len(w.sent(subjects.CLAIM_REJECTED)) == 1              # the repeat staged nothing more
