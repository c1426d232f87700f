"""Group commit (turf_claims.group.GroupCommit) without a database: who runs alone, who shares a batch,
what happens when a batch fails as a whole, and that no submitter waits for other claims' batches."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from turf_claims.group import GroupCommit


class Recorder:
    def __init__(self, fail_batches: int = 0, fail_item: int | None = None) -> None:
        self.calls: list[tuple[str, list[int]]] = []
        self.fail_batches, self.fail_item = fail_batches, fail_item

    async def one(self, item: int) -> str:
        self.calls.append(("one", [item]))
        await asyncio.sleep(0.01)
        if item == self.fail_item:
            raise ValueError(f"claim {item} fails")
        return f"r{item}"

    async def many(self, items: Sequence[int]) -> list[str]:
        self.calls.append(("many", list(items)))
        await asyncio.sleep(0.01)
        if self.fail_batches > 0 or self.fail_item in items:
            self.fail_batches -= 1
            raise RuntimeError("deadlock detected")
        return [f"r{i}" for i in items]


async def test_a_claim_in_a_quiet_moment_runs_alone_and_at_once() -> None:
    r = Recorder()
    g = GroupCommit(r.one, r.many)
    assert await g.submit(1) == "r1"
    assert await g.submit(2) == "r2"
    assert r.calls == [("one", [1]), ("one", [2])] and g.batches == 0


async def test_claims_arriving_while_others_run_share_batches_in_arrival_order_each_with_its_answer() -> None:
    r = Recorder()
    g = GroupCommit(r.one, r.many, max_batch=8, max_running=1)
    answers = await asyncio.gather(*(g.submit(i) for i in range(20)))
    assert answers == [f"r{i}" for i in range(20)]
    assert r.calls[0] == ("one", [0])                         # the first found nothing running
    batched = [items for kind, items in r.calls if kind == "many"]
    assert [i for items in batched for i in items] == list(range(1, 20))   # every other claim, once, in order
    assert all(len(items) <= 8 for items in batched) and g.batches == len(batched) >= 2


async def test_a_batch_that_fails_as_a_whole_is_run_claim_by_claim_and_only_the_bad_claim_fails() -> None:
    r = Recorder(fail_item=3)
    g = GroupCommit(r.one, r.many, max_running=1)
    results = await asyncio.gather(*(g.submit(i) for i in range(6)), return_exceptions=True)
    assert [x if isinstance(x, str) else type(x).__name__ for x in results] == [
        "r0", "r1", "r2", "ValueError", "r4", "r5"]
    assert g.fallbacks == 1
    assert [items for kind, items in r.calls if kind == "one"] == [[0], [1], [2], [3], [4], [5]]


async def test_no_submitter_waits_for_the_batches_after_its_own() -> None:
    """The first submitter drains the queue in its own task only until its own claim is answered; later
    batches run in a task of their own (its answer does not wait for a steady stream of others)."""
    r = Recorder()
    g = GroupCommit(r.one, r.many, max_running=1)
    first = asyncio.ensure_future(g.submit(0))
    await asyncio.sleep(0)
    rest = [asyncio.ensure_future(g.submit(i)) for i in range(1, 5)]
    assert await asyncio.wait_for(first, 1) == "r0"
    assert not all(f.done() for f in rest)        # its answer came before the others' batch ran
    assert await asyncio.gather(*rest) == ["r1", "r2", "r3", "r4"]
    assert g._running == 0


@pytest.mark.parametrize("running", [1, 2])
async def test_at_most_max_running_batches_at_once(running: int) -> None:
    live = peak = 0

    async def many(items: Sequence[int]) -> list[int]:
        nonlocal live, peak
        live += 1
        peak = max(peak, live)
        await asyncio.sleep(0.01)
        live -= 1
        return list(items)

    async def one(item: int) -> int:
        return (await many([item]))[0]

    g = GroupCommit(one, many, max_batch=4, max_running=running)
    assert await asyncio.gather(*(g.submit(i) for i in range(40))) == list(range(40))
    assert peak == running
