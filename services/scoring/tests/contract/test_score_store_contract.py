"""The score store's contract (cosmicpython's repository tests): each case runs on the memory fake and on
Redis (``store``, see conftest.py) and checks exact answers, role by role (ports.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from turf_common.contracts.scoring import FinalResults, FinalStanding, ScoreAdjusted
from turf_common.rules.scoring import PlayerScore
from turf_scoring.ports import Applied, LiveFacts, OwnedSet, ScoreStore

T0 = datetime(2026, 10, 25, 21, 0, tzinfo=UTC)


async def test_ownership_applies_changes_in_version_order_once(store: ScoreStore) -> None:
    got = await store.ownership.apply_and_read([("a", 1, "ann"), ("b", 1, "ann"), ("a", 2, "bob"),
                                                ("a", 2, "cat"), ("b", 1, "cat"), ("c", 3, None)], ["ann", "bob"])
    assert got == Applied(previous=["", "", "ann", None, None, ""],
                          sets=[OwnedSet("ann", "3", {"b"}), OwnedSet("bob", "1", {"a"})],
                          live=LiveFacts({"ann": {"b"}, "bob": {"a"}}, set(), False),
                          adjustments={"ann": 0, "bob": 0})
    again = await store.ownership.apply_and_read([("b", 2, None)], ["ann", "cat"])
    assert again.previous == ["ann"]
    assert again.sets == [OwnedSet("ann", "4", set()), OwnedSet("cat", "0", set())]
    assert await store.ownership.territory_sets(["bob", "dan"]) == [OwnedSet("bob", "1", {"a"}),
                                                                     OwnedSet("dan", "0", set())]
    assert await store.ownership.owned_by() == {"bob": {"a"}}
    assert await store.ownership.live() == LiveFacts({"bob": {"a"}}, set(), False)


async def test_standings_written_only_while_the_set_holds(store: ScoreStore) -> None:
    await store.ownership.apply_and_read([("a", 1, "ann"), ("b", 1, "bob")], [])
    ann, bob = await store.ownership.territory_sets(["ann", "bob"])
    await store.ownership.apply_and_read([("c", 1, "bob")], [])          # bob's set moves: his read is stale
    stale = await store.standings.write_scores([(ann, PlayerScore("ann", 1, 0, 1)),
                                                (bob, PlayerScore("bob", 1, 0, 1))])
    assert stale == ["bob"]
    assert await store.standings.scores() == {"ann": {"base": 1, "outposts": 0, "territories": 1}}
    assert await store.standings.has_score("ann") is True
    assert await store.standings.has_score("bob") is False
    (bob,) = await store.ownership.territory_sets(["bob"])
    stale, before = await store.standings.write_scores_and_swap_bonuses(
        [(bob, PlayerScore("bob", 2, 0, 2))], {"bob": 3}, "ev-1")
    assert (stale, before) == ([], {})
    assert await store.standings.standings_of(["bob", "ann", "cat"]) == [
        ({"base": 2, "outposts": 0, "territories": 2}, 0), ({"base": 1, "outposts": 0, "territories": 1}, 0),
        (None, 0)]


async def test_bonuses_swapped_and_remembered_per_source(store: ScoreStore) -> None:
    assert await store.standings.swap_bonuses({"ann": 3}, "ev-1") == {}
    assert await store.standings.swap_bonuses({"bob": 5}, "ev-2") == {"ann": 3}
    # ev-1 handled again: the bonuses from before its first handling, not its own
    assert await store.standings.swap_bonuses({"ann": 3}, "ev-1") == {}
    assert await store.standings.swap_bonuses({}, "ev-3") == {"ann": 3}


async def test_organizer_adjustments_add_up_and_replies_are_kept(store: ScoreStore) -> None:
    assert await store.organizer.adjustment("ann") == 0
    assert await store.organizer.add_adjustment("ann", 5) == 5
    assert await store.organizer.add_adjustment("ann", -7) == -2
    assert await store.organizer.add_adjustment("bob", 0) == 0
    assert await store.organizer.adjustment("ann") == -2
    assert await store.organizer.adjustments() == {"ann": -2, "bob": 0}
    reply = ScoreAdjusted(command_id="c1", player_id="ann", before=5, after=-2)
    assert await store.organizer.adjustment_reply("c1") is None
    await store.organizer.remember_adjustment(reply)
    assert await store.organizer.adjustment_reply("c1") == reply
    assert (await store.ownership.apply_and_read([], ["ann"])).adjustments == {"ann": -2}
    assert await store.standings.standings_of(["ann"]) == [(None, -2)]


async def test_season_record_disqualified_closed_and_final(store: ScoreStore) -> None:
    await store.season.disqualify("ann")
    await store.season.disqualify("ann")
    await store.season.disqualify("bob")
    assert await store.season.disqualified() == {"ann", "bob"}
    assert await store.season.final() is None
    assert (await store.ownership.live()).closed is False
    await store.season.close_season(T0)
    assert await store.ownership.live() == LiveFacts({}, {"ann", "bob"}, True)
    results = FinalResults(standings=[FinalStanding(place=1, player_id="cat", base=4, bonuses=3, total=7,
                                                    prize="100.00")])
    await store.season.save_final(results)
    assert await store.season.final() == results


async def test_snapshots_keep_pages_for_a_while_and_at_most_a_few(store: ScoreStore) -> None:
    """Pages kept under an id read back by number (None past the last, before the first, for an unknown id); the
    cap evicts the oldest (a snapshot kept again counts as new); the time-to-live expires them."""
    cap: Any = store
    cap.keep_at_most, cap.ttl_s = 2, 60
    await store.snapshots.keep("s1", [b'{"n":0}', b'{"n":1}', b'{"n":2}'])
    assert [await store.snapshots.page("s1", n) for n in (0, 1, 2, 3, -1)] == [b'{"n":0}', b'{"n":1}', b'{"n":2}',
                                                                               None, None]
    assert await store.snapshots.page("s0", 0) is None
    await store.snapshots.keep("s2", [b"a", b"b"])
    await store.snapshots.keep("s1", [b'{"n":0}', b'{"n":1}', b'{"n":2}'])   # kept again: now the newest
    await store.snapshots.keep("s3", [b"c", b"d"])                           # s2 is the oldest: evicted
    assert [await store.snapshots.page(s, 1) for s in ("s1", "s2", "s3")] == [b'{"n":1}', None, b"d"]
    cap.ttl_s = 0.2
    await store.snapshots.keep("s4", [b"e", b"f"])
    assert await store.snapshots.page("s4", 1) == b"f"
    await asyncio.sleep(0.4)
    assert await store.snapshots.page("s4", 1) is None
