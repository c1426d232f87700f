"""The feed log, one contract for the memory fake and PostgreSQL (see conftest.py): a message is
stored once per stream sequence (the first kept, as a redelivery must change nothing); each history reads a page
oldest first with the next page's cursor, None on the last."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from turf_common.contracts import subjects
from turf_gateway.ports import FeedLog

T0 = datetime(2026, 10, 6, 13, 0, tzinfo=UTC)


def row(seq: int, type_: str = subjects.TERRITORY_CHANGED, territory: str | None = "t1",
        players: tuple[str, ...] = ("ann",), minutes: int | None = None) -> dict[str, Any]:
    at = T0 + timedelta(minutes=seq if minutes is None else minutes)
    return {"seq": seq, "type": type_, "at": at, "territory_id": territory, "players": list(players),
            "body": {"seq": seq, "type": type_, "at": at.isoformat(), "territory_id": territory,
                     "nested": {"players": list(players)}}}


#: the rows the cases store: seq → fields other than row()'s defaults
ROWS: dict[int, dict[str, Any]] = {1: {}, 2: {"territory": "t2", "players": ("bob",)}, 3: {"players": ("ann", "bob")},
        4: {"type_": subjects.CARD_PLAYED, "territory": None, "players": ("bob",)},
        5: {"type_": subjects.CLAIM_ACCEPTED}, 7: {"players": ()}, 8: {"players": ("cy", "ann")}}
BODY_OF = {s: row(s, **kw)["body"] for s, kw in ROWS.items()}


async def stored(log: FeedLog) -> None:
    # out of order and in two batches, as redeliveries come
    await log.store([row(s, **ROWS[s]) for s in (5, 7, 8)])
    await log.store([row(s, **ROWS[s]) for s in (1, 2, 3, 4)])


def b(*seqs: int) -> list[dict[str, Any]]:
    return [BODY_OF[s] for s in seqs]


async def test_a_sequence_is_stored_once_and_the_first_body_kept(feed_log: FeedLog) -> None:
    await feed_log.store([])
    await feed_log.store([row(1), row(1, players=("bob",))])          # a batch that repeats itself
    await feed_log.store([row(1, territory="t9")])                     # a redelivery
    assert await feed_log.territory_changes("t1") == ([row(1)["body"]], None)
    assert await feed_log.territory_changes("t9") == ([], None)
    assert await feed_log.player_messages("bob") == ([], None)
    assert await feed_log.replay_page(None, None, 0, 10) == ([row(1)["body"]], None)


async def test_a_towns_history_is_its_territory_changes_oldest_first_by_pages(feed_log: FeedLog) -> None:
    await stored(feed_log)
    assert await feed_log.territory_changes("t1") == (b(1, 3, 7, 8), None)   # not 5 (a claim), not 2 (t2)
    assert await feed_log.territory_changes("t1", 0, 2) == (b(1, 3), 3)
    assert await feed_log.territory_changes("t1", 3, 2) == (b(7, 8), None)   # exactly the last page: no next
    assert await feed_log.territory_changes("t1", 1, 1) == (b(3), 3)
    assert await feed_log.territory_changes("t1", 8) == ([], None)
    assert await feed_log.territory_changes("t2") == (b(2), None)
    assert await feed_log.territory_changes("zz") == ([], None)


async def test_a_players_journal_is_every_message_naming_them_by_pages(feed_log: FeedLog) -> None:
    await stored(feed_log)
    assert await feed_log.player_messages("ann") == (b(1, 3, 5, 8), None)
    assert await feed_log.player_messages("bob") == (b(2, 3, 4), None)
    assert await feed_log.player_messages("bob", 0, 2) == (b(2, 3), 3)
    assert await feed_log.player_messages("bob", 3, 2) == (b(4), None)
    assert await feed_log.player_messages("cy", 0, 1) == (b(8), None)
    assert await feed_log.player_messages("an") == ([], None)          # a player id is matched whole


async def test_the_replay_is_start_inclusive_end_exclusive_by_pages(feed_log: FeedLog) -> None:
    await stored(feed_log)
    assert await feed_log.replay_page(None, None, 0, 100) == (b(1, 2, 3, 4, 5, 7, 8), None)
    assert await feed_log.replay_page(None, None, 0, 3) == (b(1, 2, 3), 3)
    assert await feed_log.replay_page(None, None, 3, 3) == (b(4, 5, 7), 7)
    assert await feed_log.replay_page(None, None, 7, 3) == (b(8), None)
    start, end = T0 + timedelta(minutes=2), T0 + timedelta(minutes=7)
    assert await feed_log.replay_page(start, end, 0, 100) == (b(2, 3, 4, 5), None)
    assert await feed_log.replay_page(start, end, 0, 2) == (b(2, 3), 3)
    assert await feed_log.replay_page(start, end, 3, 2) == (b(4, 5), None)
    assert await feed_log.replay_page(start, None, 4, 100) == (b(5, 7, 8), None)
    assert await feed_log.replay_page(None, end, 0, 100) == (b(1, 2, 3, 4, 5), None)
    assert await feed_log.replay_page(end, end, 0, 100) == ([], None)


async def test_the_replay_follows_the_stream_not_the_clock(feed_log: FeedLog) -> None:
    """A later sequence with an earlier game time (a correction published late) keeps its stream place."""
    await feed_log.store([row(1, minutes=10), row(2, minutes=5), row(3, minutes=20)])
    got, nxt = await feed_log.replay_page(T0, T0 + timedelta(minutes=15), 0, 10)
    assert [m["seq"] for m in got] == [1, 2] and nxt is None


async def test_r31_a_seasons_histories_read_only_the_messages_of_its_window(feed_log: FeedLog) -> None:
    await feed_log.store([row(s, **kw) for s, kw in ROWS.items()])
    window = (T0 + timedelta(minutes=2), T0 + timedelta(minutes=8))   # [seq 2's instant, seq 8's)
    towns, _ = await feed_log.territory_changes("t1", 0, 10, window)
    assert [m["seq"] for m in towns] == [3, 7]
    mine, _ = await feed_log.player_messages("ann", 0, 10, window)
    assert [m["seq"] for m in mine] == [3, 5]
    since, _ = await feed_log.player_messages("ann", 0, 10, (T0 + timedelta(minutes=5), None))
    assert [m["seq"] for m in since] == [5, 8]
