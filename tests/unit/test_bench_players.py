"""The bell benchmark's ladder seeds players again before each larger rung: the players of a second seeding must
not repeat the first's unique columns (e-mail, Discord handle), or the rung crashes on a duplicate key."""

from __future__ import annotations

from datetime import UTC, datetime

from bench.stackbench import BenchStack


def test_seeding_twice_gives_players_distinct_in_every_unique_column() -> None:
    bs = BenchStack.__new__(BenchStack)   # no stack, no board: only the players' bookkeeping is exercised
    bs.players = []
    now = datetime(2026, 10, 5, 11, tzinfo=UTC)
    first, first_sessions = bs.new_players(3, now)
    second, second_sessions = bs.new_players(2, now)
    rows = first + second
    assert len(bs.players) == 5
    for col in (0, 2, 3, 4, 5):   # id, email, email_norm, discord, discord_norm
        assert len({r[col] for r in rows}) == 5, [r[col] for r in rows]
    assert [r[2] for r in second] == ["b000003@bench.example", "b000004@bench.example"]
    assert len({s[0] for s in first_sessions + second_sessions}) == 5   # one token per player
    assert [s[1] for s in first_sessions + second_sessions] == [p.id for p in bs.players]
