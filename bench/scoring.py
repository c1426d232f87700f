"""Benchmark 3 (in process): one ``territory.changed`` applied incrementally (the scoring service's handler:
rescore the two players concerned, recompute the side quests, publish the delta) against a full recompute of every
player at 1,000 players. Uses a real Redis (embedded, as the stack does), the real handlers and Redis store; the
publisher is a stub that only counts publishes."""

from __future__ import annotations

import asyncio
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import Row, Section
from turf_common.board import load_board
from turf_common.contracts.claims import TerritoryChanged
from turf_common.rules.scoring import TerritoryStats, player_score
from turf_scoring import bootstrap
from turf_scoring.adapters.redis_store import RedisScoreStore


class StubBus:
    def __init__(self) -> None:
        self.published = 0

    async def publish(self, subject: str, data: bytes, msg_id: str, **_: Any) -> None:
        self.published += 1


def _profile_apply(svc: Any, events: list[TerritoryChanged]) -> str:
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()

    async def go() -> None:
        for ev in events:
            await svc.apply(ev)

    loop = asyncio.new_event_loop()
    try:
        prof.enable()
        loop.run_until_complete(go())
        prof.disable()
    finally:
        loop.close()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(r"turf_scoring|turf_common|json|pydantic", 14)
    keep = [ln for ln in out.getvalue().splitlines() if ln.strip() and ("(" in ln or "ncalls" in ln)]
    return "\n".join(keep[:18])


def run(small: bool = False) -> Section:
    from redis.asyncio import Redis

    from turfwar import embedded

    sec = Section("3b. scoring: incremental vs full recompute")
    t_start = time.perf_counter()
    n_players = 200 if small else 1000
    n_events = 50 if small else 300
    board = load_board()
    graph = board.graph
    tids = sorted(board.territories)
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}
    data = Path(tempfile.mkdtemp(prefix="turf-bench-redis-"))
    srv = embedded.start_redis(data)
    rng = random.Random(5)
    players = [f"p{k:05d}" for k in range(n_players)]
    version: dict[str, int] = {}
    owner: dict[str, str | None] = dict.fromkeys(tids)

    def change(tid: str, pid: str) -> TerritoryChanged:
        version[tid] = version.get(tid, 0) + 1
        ev = TerritoryChanged(occurred_at=datetime.now(UTC), territory_id=tid, owner_id=pid,
                              previous_owner_id=owner[tid], progress=1, fortified=False, version=version[tid],
                              cause="claim", claim_id=None)
        owner[tid] = pid
        return ev

    async def main() -> dict[str, Any]:
        redis = Redis.from_url(srv.url)
        store = RedisScoreStore(redis, prefix="bench:")
        svc = bootstrap.handlers(store, StubBus(), graph, stats)
        # every player owns something at some point (so all have a score entry) …
        for k, pid in enumerate(players):
            await svc.apply(change(tids[k % len(tids)], pid))
        # … and at the end regions grown from 120 seeds hold the board, as late in a season
        seeds = rng.sample(tids, 120)
        frontier = [(s, players[i]) for i, s in enumerate(seeds)]
        taken: set[str] = set()
        while frontier:
            tid, pid = frontier.pop(0)
            if tid in taken:
                continue
            taken.add(tid)
            await svc.apply(change(tid, pid))
            frontier += [(n, pid) for n in graph.neighbors(tid) if n not in taken]
        # incremental: steals along region borders, one event at a time, as the consumer does
        border = [(a, b) for a, b in graph.edges if owner[a] != owner[b] and owner[a] and owner[b]]
        events = []
        for _ in range(n_events):
            a, b = rng.choice(border)
            thief = owner[b]
            assert thief is not None
            events.append(change(a, thief))
        inc = []
        for ev in events:
            t = time.perf_counter()
            await svc.apply(ev)
            inc.append(time.perf_counter() - t)
        # full recompute of every player from the read model (what a handler without increments would do)
        full = []
        for _ in range(3 if small else 5):
            t = time.perf_counter()
            for pid in players:
                await svc.rescore(pid)
            await svc.leaderboard()
            full.append(time.perf_counter() - t)
        # the networkx part alone: every player vs the two players of one change
        owned = await store.owned_by()
        nx_full = []
        for _ in range(5):
            t = time.perf_counter()
            for pid in players:
                player_score(graph, pid, owned.get(pid, set()))
            nx_full.append(time.perf_counter() - t)
        nx_inc = []
        for ev in events[:100]:
            t = time.perf_counter()
            for who in (ev.owner_id, ev.previous_owner_id):
                if who:
                    player_score(graph, who, owned.get(who, set()))
            nx_inc.append(time.perf_counter() - t)
        lb = []
        for _ in range(20):
            t = time.perf_counter()
            await svc.leaderboard()
            lb.append(time.perf_counter() - t)
        standings = len((await svc.leaderboard()).standings)
        await redis.aclose()
        return {"inc": inc, "full": full, "nx_full": nx_full, "nx_inc": nx_inc, "lb": lb, "svc": svc,
                "events": events, "standings": standings, "owners": len({o for o in owner.values() if o})}

    try:
        r = asyncio.run(main())
        inc_ms = statistics.median(r["inc"]) * 1000
        full_ms = statistics.median(r["full"]) * 1000
        nx_inc_ms = statistics.median(r["nx_inc"]) * 1000
        nx_full_ms = statistics.median(r["nx_full"]) * 1000
        lb_ms = statistics.median(r["lb"]) * 1000
        sec.rows += [
            Row("scoring", f"one territory.changed, incremental handler ({n_players:,} players)", inc_ms, "ms",
                "full recompute of every player + leaderboard", full_ms, higher_is_better=False, goal="≥ 50×",
                met=full_ms >= 50 * inc_ms,
                note=f"p99 {sorted(r['inc'])[int(0.99 * (len(r['inc']) - 1))] * 1000:.1f} ms; leaderboard rebuild "
                     f"alone {lb_ms:.1f} ms"),
            Row("scoring", "networkx part only: two players vs every player", nx_inc_ms, "ms",
                "networkx, every player", nx_full_ms, higher_is_better=False),
        ]
        sec.notes.append(f"{n_players:,} players with a score entry, {r['standings']:,} on the leaderboard, "
                         f"{r['owners']} owning territories (regions grown from 120 seeds); {n_events} steals "
                         "along region borders applied one at a time; medians.")
        if full_ms < 50 * inc_ms:
            # rebuild a Redis for the profile (the service above is closed)
            sec.profile = "cProfile of the incremental handler (cumulative):\n" + _profile_apply_fresh(srv.url, graph,
                                                                                                       stats, r)
    finally:
        srv.stop()
        shutil.rmtree(data, ignore_errors=True)
    sec.seconds = time.perf_counter() - t_start
    return sec


def _profile_apply_fresh(url: str, graph: Any, stats: Any, r: dict[str, Any]) -> str:
    from redis.asyncio import Redis

    svc = bootstrap.handlers(RedisScoreStore(Redis.from_url(url), prefix="bench:"), StubBus(), graph, stats)
    evs = [ev.model_copy(update={"version": ev.version + 1000}) for ev in r["events"][:100]]
    return _profile_apply(svc, evs)
