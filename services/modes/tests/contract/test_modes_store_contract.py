"""The modes store's contract: each case runs on the memory fake and on PostgreSQL (``store``, see conftest.py)
and checks exact answers; the last ones run the use cases on it (T9, K5: a turn resolves exactly once)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from modes_world import SEED, fields, world
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied
from turf_common.contracts import subjects as s
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.modes import CreateTeamTurf, JoinGame, OpenHill, PlaceTroops, ResolveReply, ResolveTurn
from turf_common.rules import modereplay
from turf_common.rules.seeded import seed_commitment
from turf_modes import games, snapshots
from turf_modes.adapters import store as store_module
from turf_modes.adapters import tables as t
from turf_modes.adapters.store import SqlModesStore
from turf_modes.ports import GameRow, ModesStore
from turf_modes.testing import MemoryModesStore

T0 = datetime(2026, 10, 5, 16, 0, tzinfo=UTC)


def _game(gid: str, at: datetime = T0, mode: str = "hill") -> GameRow:
    return GameRow(gid, mode, "running", "ann", at, "seed", "c0ffee", {"hill": "C", "players": ["ann"]},  # type: ignore[arg-type]
                   turn=1, next_at=at + timedelta(minutes=10))


async def test_games_round_trip_with_their_actions(store: ModesStore) -> None:
    async with store.tx() as tx:
        await tx.games.insert("cmd1", _game("g1"))
        await tx.games.insert("cmd2", _game("g2", T0 + timedelta(seconds=1), "team_turf"))
    async with store.tx() as tx:
        assert await tx.games.by_command("cmd1") == "g1" and await tx.games.by_command("cmd9") is None
        g = await tx.games.lock("g1")
        assert g is not None and g.actions == [] and g.config == {"hill": "C", "players": ["ann"]}
        await tx.games.append("g1", 0, {"kind": "choose", "player": "ann", "round": 1, "choice": "attack"})
        await tx.games.append("g1", 1, {"kind": "resolve"})
        g.status, g.turn, g.next_at, g.config = "finished", 2, None, {"hill": "C", "players": ["ann", "bo"]}
        await tx.games.save(g)
        assert await tx.games.lock("nope") is None
    got = await store.get("g1")
    assert got is not None and (got.status, got.turn, got.next_at) == ("finished", 2, None)
    assert got.config["players"] == ["ann", "bo"] and [a["kind"] for a in got.actions] == ["choose", "resolve"]
    assert [a["kind"] for a in await store.actions("g1", 1, 10)] == ["resolve"]
    assert await store.actions("g1", 0, 1) == [{"kind": "choose", "player": "ann", "round": 1, "choice": "attack"}]
    assert [g.game_id for g in await store.latest(None, 10)] == ["g2", "g1"]
    assert [g.game_id for g in await store.latest("hill", 10)] == ["g1"]
    assert await store.due(T0 + timedelta(hours=1)) == [("g2", 1)]   # g1 finished: nothing due
    assert await store.due(T0) == []


async def test_a_turn_is_marked_resolved_once(store: ModesStore) -> None:
    async with store.tx() as tx:
        await tx.games.insert("cmd1", _game("g1"))
        assert await tx.games.mark_resolved("g1", 1, T0) is True
        assert await tx.games.mark_resolved("g1", 1, T0) is False
        assert await tx.games.mark_resolved("g1", 2, T0) is True


async def test_a_unit_of_work_that_raises_leaves_nothing(store: ModesStore) -> None:
    with pytest.raises(RuntimeError):
        async with store.tx() as tx:
            await tx.games.insert("cmd1", _game("g1"))
            raise RuntimeError("boom")
    assert await store.get("g1") is None


async def _published(store: ModesStore, w_events: int, subject: str) -> int:
    if isinstance(store, SqlModesStore):
        async with store.engine.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(t.outbox)
                                           .where(t.outbox.c.subject == subject))).scalar_one())
    return w_events


async def test_t9_the_same_resolution_asked_twice_at_once_resolves_once(store: ModesStore) -> None:
    w = world(store)
    gid = (await w.h.create_team_turf(CreateTeamTurf(command_id="c", organizer_id="org", teams=["red", "blue"],
                                                     homes={"red": "A", "blue": "E"}))).game_id  # type: ignore[union-attr]
    for p, team, town in (("r1", "red", "A"), ("b1", "blue", "E")):
        await w.h.join(JoinGame(game_id=gid, player_id=p, team=team))
        await w.h.place(PlaceTroops(game_id=gid, player_id=p, town=town, n=2))
    replies = await asyncio.gather(*(w.h.resolve(ResolveTurn(game_id=gid, turn=1)) for _ in range(3)))
    assert sorted(r.first for r in replies if isinstance(r, ResolveReply)) == [False, False, True]
    assert await _published(store, len(w.events(s.MODE_TURN_RESOLVED)), s.MODE_TURN_RESOLVED) == 1
    g = await store.get(gid)
    assert g is not None and g.turn == 2 and [a["kind"] for a in await store.actions(gid, 0, 100)].count("resolve") == 1
    if isinstance(store, MemoryModesStore):
        assert list(store.state.resolutions) == [(gid, 1)]


class _Crash(Exception):
    pass


class _DiesWritingTheTurn:
    """``store`` whose transactions fail as a turn's event is written: the process dying mid-turn, before commit."""

    def __init__(self, inner: ModesStore) -> None:
        self.inner = inner

    def tx(self) -> Any:
        @contextlib.asynccontextmanager
        async def cm() -> AsyncIterator[Any]:
            async with self.inner.tx() as tx:
                stage = tx.messages.stage

                async def dying(subject: str, event: Event) -> None:
                    if subject == s.MODE_TURN_RESOLVED:
                        raise _Crash
                    await stage(subject, event)
                tx.messages.stage = dying  # type: ignore[method-assign]
                yield tx
        return cm()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_t9_a_death_mid_turn_leaves_no_trace_and_the_retry_resolves_once(store: ModesStore) -> None:
    w = world(store)
    gid = (await w.h.create_team_turf(CreateTeamTurf(command_id="c", organizer_id="org", teams=["red", "blue"],
                                                     homes={"red": "A", "blue": "E"}))).game_id  # type: ignore[union-attr]
    for p, team, town in (("r1", "red", "A"), ("b1", "blue", "E")):
        await w.h.join(JoinGame(game_id=gid, player_id=p, team=team))
        await w.h.place(PlaceTroops(game_id=gid, player_id=p, town=town, n=2))
    dying = world(_DiesWritingTheTurn(store))  # type: ignore[arg-type]
    with pytest.raises(_Crash):
        await dying.h.resolve(ResolveTurn(game_id=gid, turn=1))
    g = await store.get(gid)
    assert g is not None and g.turn == 1 and [a["kind"] for a in await store.actions(gid, 0, 100)].count("resolve") == 0
    with pytest.raises(_Crash):   # a probe, rolled back: no resolution was recorded
        async with store.tx() as tx:
            assert await tx.games.mark_resolved(gid, 1, T0) is True
            raise _Crash
    assert await _published(store, len(w.events(s.MODE_TURN_RESOLVED)), s.MODE_TURN_RESOLVED) == 0
    reply = await w.h.resolve(ResolveTurn(game_id=gid, turn=1))   # the timer asks again after the restart
    assert isinstance(reply, ResolveReply) and reply.first is True
    assert await _published(store, len(w.events(s.MODE_TURN_RESOLVED)), s.MODE_TURN_RESOLVED) == 1


async def test_two_replicas_racing_one_create_command_both_answer_the_one_game(store: ModesStore) -> None:
    inserted, release = asyncio.Event(), asyncio.Event()

    async def first() -> str:
        async with store.tx() as tx:
            gid = await tx.games.insert("cmd", _game("g1"))
            inserted.set()
            await release.wait()   # the other replica's insert arrives before this one commits
            return gid

    async def second() -> str:
        await inserted.wait()
        async with store.tx() as tx:
            return await tx.games.insert("cmd", _game("g2"))

    a, b = asyncio.create_task(first()), asyncio.create_task(second())
    await asyncio.sleep(0.2)
    release.set()
    assert await asyncio.gather(a, b) == ["g1", "g1"]
    assert [g.game_id for g in await store.latest(None, 10)] == ["g1"]


async def test_k19_seats_are_kept_per_game_and_player_and_freed(store: ModesStore) -> None:
    async with store.tx() as tx:
        await tx.games.insert("c1", _game("g1"))
        await tx.games.insert("c2", _game("g2", mode="team_turf"))
        for gid, mode in (("g1", "hill"), ("g2", "team_turf")):
            await tx.games.seat(gid, mode, "ann")  # type: ignore[arg-type]
            await tx.games.seat(gid, mode, "ann")  # type: ignore[arg-type]   # a repeat changes nothing
        await tx.games.seat("g1", "hill", "bo")
    async with store.tx() as tx:
        assert await tx.games.seats("ann") == ["g1", "g2"] and await tx.games.seats("ann", "hill") == ["g1"]
        await tx.games.unseat("g1", "ann")
        assert await tx.games.seats("ann") == ["g2"] and await tx.games.seats("bo") == ["g1"]
        await tx.games.unseat("g1")
        assert await tx.games.seats("bo") == []


async def test_t20_a_read_loads_the_snapshot_not_the_log_and_the_snapshot_is_the_logs_replay(store: ModesStore) -> None:
    w = world(store)
    gid = (await w.h.create_team_turf(CreateTeamTurf(command_id="c", organizer_id="org", teams=["red", "blue"],
                                                     homes={"red": "A", "blue": "E"}))).game_id  # type: ignore[union-attr]
    for p, team, town in (("r1", "red", "A"), ("b1", "blue", "E")):
        await w.h.join(JoinGame(game_id=gid, player_id=p, team=team))
        await w.h.place(PlaceTroops(game_id=gid, player_id=p, town=town, n=2))
    await w.h.resolve(ResolveTurn(game_id=gid, turn=1))
    g = await store.get(gid)
    log = await store.actions(gid, 0, 100)
    assert g is not None and g.actions == [] and g.base == len(log) == 5 and g.snapshot is not None
    fld = fields().field(None)
    replayed, _ = modereplay.replay_team_turf(gid, fld, ["red", "blue"], SEED, seed_commitment(SEED),
                                              [games.decode(a) for a in log], homes={"red": "A", "blue": "E"})
    assert snapshots.team_turf_state(g.snapshot) == replayed and replayed.turn == 2


async def test_t9_a_read_while_a_turn_resolves_sees_the_game_before_it_or_after_it_never_half(
        modes_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SqlModesStore(await emptied(modes_engine, t.metadata))
    async with store.tx() as tx:
        await tx.games.insert("cmd1", _game("g1", mode="team_turf"))
    real, resolved = store_module._actions, []

    async def a_turn_resolves_first(conn: Any, game_id: str, offset: int = 0, limit: int | None = None,
                                    ) -> list[dict[str, Any]]:
        if not resolved:   # between the read's game row and its actions, T9's resolution commits
            resolved.append(True)
            async with store.tx() as tx:
                g = await tx.games.lock("g1")
                assert g is not None
                await tx.games.append("g1", 0, {"kind": "resolve"})
                g.turn, g.next_at = 2, T0 + timedelta(days=1, minutes=10)
                await tx.games.save(g)
        return await real(conn, game_id, offset, limit)

    monkeypatch.setattr(store_module, "_actions", a_turn_resolves_first)
    before = await store.get("g1")
    assert resolved and before is not None
    assert (before.turn, before.next_at, before.actions) == (1, T0 + timedelta(minutes=10), [])
    after = await store.get("g1")
    assert after is not None and (after.turn, after.next_at, after.actions) == (
        2, T0 + timedelta(days=1, minutes=10), [{"kind": "resolve"}])


async def test_k19_two_seats_taken_at_once_in_two_rooms_are_counted_one_after_the_other(store: ModesStore) -> None:
    w = world(store)
    for i in range(2):
        await w.h.open_hill(OpenHill(command_id=f"mine{i}", player_id="ann", hill="C"))
    rooms = [(await w.h.open_hill(OpenHill(command_id=f"other{i}", player_id=f"o{i}", hill="D"))).game_id  # type: ignore[union-attr]
             for i in range(2)]
    replies = await asyncio.gather(*(w.h.join(JoinGame(game_id=gid, player_id="ann")) for gid in rooms))
    assert sorted(type(r).__name__ for r in replies) == ["GameView", "Refusal"]
    assert [r.reason for r in replies if isinstance(r, Refusal)] == ["too_many_rooms"]
    async with store.tx() as tx:
        assert len(await tx.games.seats("ann", "hill")) == 3
