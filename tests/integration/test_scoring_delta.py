"""``score.updated`` is a delta: the scoring service, on a real Redis and the real board, publishes
the standing of every player whose figures changed (R23 base and outposts, R24 side-quest bonuses, R28
adjustments) and nobody else's; a client that applies the deltas to its snapshot and re-ranks (R25) holds exactly
the leaderboard the service would build from scratch."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.servers import redis_server
from turf_common import redisconn
from turf_common.board import load_board
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.players import PlayerDisqualified
from turf_common.contracts.scoring import AdjustScore, Leaderboard
from turf_common.rules.scoring import TerritoryStats, competition_ranks
from turf_scoring import bootstrap
from turf_scoring.adapters.redis_store import RedisScoreStore
from turf_scoring.handlers import ScoringHandlers

HOBOKEN, NEWARK = "3401732250", "3401351000"
FIGURES = ("base", "outposts", "bonuses", "total", "territories")


class RecordingBus:
    """Keeps what the service publishes (the bus itself is tested elsewhere; here the payload matters)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, subject: str, data: bytes, msg_id: str, **_: Any) -> None:
        self.sent.append((subject, json.loads(data)))


def _service(redis_url: str, bus: Any, board: Any, stats: dict[str, TerritoryStats],
             prefix: str) -> tuple[ScoringHandlers, RedisScoreStore]:
    """The handlers over the real Redis store (keys under ``prefix``) and ``bus`` as the publisher."""
    store = RedisScoreStore(redisconn.connect(redis_url), prefix=prefix)
    return bootstrap.handlers(store, bus, board.graph, stats), store


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory, "redis") as url:
        yield url


def _rows(lb: Leaderboard) -> dict[str, dict[str, int]]:
    return {s.player_id: {f: getattr(s, f) for f in FIGURES} for s in lb.standings}


def _apply(held: dict[str, dict[str, int]], upd: dict[str, Any]) -> None:
    """What the pages do with a delta (static/js/api.js applyScoreDelta), in Python."""
    for c in upd["changes"]:
        held[c["player_id"]] = {f: c[f] for f in FIGURES}
    for pid in upd["removed"]:
        held.pop(pid, None)


def test_r23_r24_delta_names_exactly_the_changed_standings_and_replays_to_the_leaderboard(redis_url: str) -> None:
    board = load_board()
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}
    tids = sorted(board.territories)

    async def main() -> None:
        bus = RecordingBus()
        svc, store = _service(redis_url, bus, board, stats, "delta:")
        version: dict[str, int] = {}
        owner: dict[str, str | None] = dict.fromkeys(tids)

        async def change(tid: str, pid: str | None) -> dict[str, Any]:
            version[tid] = version.get(tid, 0) + 1
            await svc.apply(TerritoryChanged(
                occurred_at=datetime.now(UTC), territory_id=tid, owner_id=pid, previous_owner_id=owner[tid],
                progress=1, fortified=False, version=version[tid], cause="claim", claim_id=None))
            owner[tid] = pid
            return bus.sent[-1][1]

        held = _rows(await svc.leaderboard())
        assert held == {}

        # R24: Ann leads every side quest alone with Hoboken; Ben takes Newark (more land, more residents), so
        # Ann's bonus drops although the change did not touch her: she must be in the delta.
        first = await change(HOBOKEN, "ann")
        _apply(held, first)
        assert [c["player_id"] for c in first["changes"]] == ["ann"] and first["players"] == ["ann"]
        assert stats[NEWARK].population > stats[HOBOKEN].population
        assert stats[NEWARK].land_area_m2 > stats[HOBOKEN].land_area_m2
        second = await change(NEWARK, "ben")
        _apply(held, second)
        assert second["players"] == ["ben"] and {c["player_id"] for c in second["changes"]} == {"ann", "ben"}
        ann = next(c for c in second["changes"] if c["player_id"] == "ann")
        assert ann["bonuses"] < first["changes"][0]["bonuses"] and "rank" not in ann
        assert second["side_quests"]["social_butterfly"]["leaders"] == ["ben"]

        # a random stretch of play: after every event the held standings equal the service's own leaderboard,
        # and the delta lists exactly the players whose figures moved
        rng = random.Random(9)
        players = ["ann", "ben", "cat", "dan", "eve"]
        for _ in range(60):
            before = _rows(await svc.leaderboard())
            upd = await change(rng.choice(tids[:40]), rng.choice([*players, None]))
            after = _rows(await svc.leaderboard())
            moved = {p for p in after.keys() | before.keys() if after.get(p) != before.get(p)}
            assert {c["player_id"] for c in upd["changes"]} >= moved
            assert {c["player_id"] for c in upd["changes"]} <= moved | set(upd["players"])
            _apply(held, upd)
            assert held == after

        # R28: an adjustment and a disqualification are deltas too; ranks re-derived from the held totals (R25)
        # match the service's ranking
        await svc.adjust(AdjustScore(command_id="c1", player_id="cat", points=7))
        _apply(held, bus.sent[-1][1])
        await svc.disqualify(PlayerDisqualified(occurred_at=datetime.now(UTC), player_id="dan",
                                                at=datetime.now(UTC)))
        dq = bus.sent[-1][1]
        assert dq["removed"] == ["dan"]
        _apply(held, dq)
        final = await svc.leaderboard()
        assert held == _rows(final)
        assert [(r, p) for r, p, _ in competition_ranks({p: v["total"] for p, v in held.items()})] == [
            (s.rank, s.player_id) for s in final.standings]
        await store.redis.aclose()

    asyncio.run(main())


def test_r23_two_replicas_applying_at_once_never_leave_a_stale_score(redis_url: str) -> None:
    """R23 with two scoring replicas on one Redis: changes applied concurrently, each by either replica; every
    stored score equals the clusters of the player's final territory set (a score computed from a set that changed
    meanwhile is never written)."""
    from turf_common.rules.scoring import player_score

    board = load_board()
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}
    tids = sorted(board.territories)[:60]   # a small area, so players' sets touch and change often

    async def main() -> None:
        replicas = [_service(redis_url, RecordingBus(), board, stats, "race:") for _ in range(2)]
        rng = random.Random(4)
        version: dict[str, int] = {}
        events = []
        for _ in range(400):
            tid = rng.choice(tids)
            version[tid] = version.get(tid, 0) + 1
            events.append(TerritoryChanged(
                occurred_at=datetime.now(UTC), territory_id=tid, owner_id=rng.choice(["ann", "ben", "cat"]),
                previous_owner_id=None, progress=1, fortified=False, version=version[tid], cause="claim",
                claim_id=None))
        for k in range(0, len(events), 8):   # eight at a time, spread over both replicas
            await asyncio.gather(*(replicas[i % 2][0].apply(ev) for i, ev in enumerate(events[k:k + 8])))
        store = replicas[0][1]
        owned = await store.owned_by()
        raw = await store.redis.hgetall("race:score")  # type: ignore[misc]
        for pid in ("ann", "ben", "cat"):
            want = player_score(board.graph, pid, owned.get(pid, set()))
            got = json.loads(raw[pid.encode()])
            assert (got["base"], got["outposts"], got["territories"]) == (want.base, want.outposts, want.territories)
        for _, r in replicas:
            await r.redis.aclose()

    asyncio.run(main())


def test_r23_a_score_computed_from_a_set_that_changed_meanwhile_is_computed_again(redis_url: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """R23, the optimistic write: another replica changes Ann's territory set between this replica's read of it
    and its write of her score; the stale score is refused and computed again from the new set."""
    import redis as redis_sync

    from turf_scoring import handlers
    from turf_scoring.adapters import redis_store

    board = load_board()
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}
    jersey_city = "3401736000"
    assert board.graph.has_edge(HOBOKEN, jersey_city)
    other = redis_sync.Redis.from_url(redis_url)
    real, fired = handlers.player_score, []

    def meanwhile(graph: Any, pid: str, owned: set[str]) -> Any:
        if pid == "ann" and not fired:   # the other replica's change lands while this one computes
            fired.append(sorted(owned))
            other.eval(redis_store.APPLY, 3, "stale:ver", "stale:own", "stale:pv", jersey_city, 1, "ann", "stale:p:")
        return real(graph, pid, owned)

    monkeypatch.setattr(handlers, "player_score", meanwhile)

    async def main() -> None:
        svc, store = _service(redis_url, RecordingBus(), board, stats, "stale:")
        await svc.apply(TerritoryChanged(occurred_at=datetime.now(UTC), territory_id=HOBOKEN, owner_id="ann",
                                         previous_owner_id=None, progress=1, fortified=False, version=1,
                                         cause="claim", claim_id=None))
        assert fired == [[HOBOKEN]]   # the first computation saw Hoboken alone
        stored = json.loads(await store.redis.hget("stale:score", "ann"))  # type: ignore[misc]
        assert (stored["base"], stored["territories"]) == (2, 2)   # Hoboken and Jersey City, one cluster
        await store.redis.aclose()

    asyncio.run(main())
    other.close()


def test_r24_a_redelivered_change_publishes_the_same_delta(redis_url: str) -> None:
    """R24 under redelivery: an event handled again (its first publish may have been lost) lists again the player
    whose side-quest bonus it moved, though the bonuses in Redis already reflect it."""
    board = load_board()
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}

    async def main() -> None:
        bus = RecordingBus()
        svc, store = _service(redis_url, bus, board, stats, "redo:")
        now = datetime.now(UTC)
        await svc.apply(TerritoryChanged(occurred_at=now, territory_id=HOBOKEN, owner_id="ann", previous_owner_id=None,
                                         progress=1, fortified=False, version=1, cause="claim", claim_id=None))
        newark = TerritoryChanged(occurred_at=now, territory_id=NEWARK, owner_id="ben", previous_owner_id=None,
                                  progress=1, fortified=False, version=1, cause="claim", claim_id=None)
        assert await svc.apply(newark) is True
        first = bus.sent[-1][1]
        assert await svc.apply(newark) is False            # the redelivery
        again = bus.sent[-1][1]
        assert {c["player_id"] for c in first["changes"]} == {"ann", "ben"}
        assert again["changes"] == first["changes"] and again["side_quests"] == first["side_quests"]
        await store.redis.aclose()

    asyncio.run(main())


def test_r23_a_batch_of_changes_is_applied_in_order_in_one_round_trip(redis_url: str) -> None:
    """``apply_and_read`` runs the APPLY script per change in one transaction: each answer is what applying
    the changes one at a time would have said in that order (the previous owner, "" for none, None for a change not
    newer than the stored one), and what it reads back is the state they leave: the players' sets, the owners, the
    adjustments."""

    async def main() -> None:
        store = RedisScoreStore(redisconn.connect(redis_url), prefix="batch:")
        await store.add_adjustment("cat", -2)
        got = await store.apply_and_read([(HOBOKEN, 1, "ann"), (NEWARK, 1, "ben"), (HOBOKEN, 1, "cat"),
                                          (HOBOKEN, 2, "ben"), (NEWARK, 2, None)], ["ann", "ben", "cat"])
        assert got.previous == ["", "", None, "ann", "ben"]
        assert {s.player_id: s.territories for s in got.sets} == {"ann": set(), "ben": {HOBOKEN}, "cat": set()}
        assert got.sets == await store.territory_sets(["ann", "ben", "cat"])
        assert got.live.owned_by == {"ben": {HOBOKEN}} and not got.live.closed
        assert got.adjustments == {"ann": 0, "ben": 0, "cat": -2}
        nothing = await store.apply_and_read([], [])
        assert nothing.previous == [] and nothing.sets == [] and nothing.adjustments == {}
        await store.redis.aclose()

    asyncio.run(main())
