"""Opening bell: N registered players arrive at the start of a game day, half of them in the first 10 s
and the rest over the next 50 s, and each does what the play page does at the bell (counted by the browser test
``tests/browser/test_bell_requests.py``): ``POST /claims/check`` at the opening, then ``POST /claims`` with an
``Idempotency-Key``, sent when the check answered. The page reads ``GET /me`` and ``GET /me/hand`` when it loads,
before the opening, and no more after a claim (its answer carries ``claims_left_today``): each player of a rung
makes those two reads before the bell, paced and not timed (the page's load), so the bell meets the gateway's
caches as a real opening would.

``bell`` runs it on the stack as ``turfwar up`` starts it (one gateway, one claims replica); ``bell2`` on two
gateways and two claims replicas on the same machine (players shared out between the gateways, the replicas in
one NATS queue group), to show that the bell scales out on the bus rather than in one process. ``--ladder
50,100`` replaces the ladder (the lead runs the full one; a loaded machine proves a small rung only).

Open loop: a player arrives at a scheduled instant whatever the stack is doing, and every latency is timed from
the instant the request was due (its arrival, or the previous answer), never from when the loader got round to
sending it, so a stack that falls behind shows it (no coordinated omission). The loader's own CPU is measured and
reported. The stack's CPU is read only once every consumer of the stream is idle, minus the idle baseline.

Reports the largest N (of a ladder) served in 60 s with p99 < 1 s and no errors, each player's wait (arrival to
their hand), and CPU-ms per player and, from single-kind phases, per request kind, by process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
import uuid
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bench import loadgen
from bench.common import Row, Section, percentile
from bench.profiling import cpu_seconds
from bench.stackbench import API, BenchStack, Player
from turf_common.bus import make_broker, wait_idle
from turf_common.settings import get_settings

BELL = ("check", "claim")       # what the play page sends at the bell
PAGE_LOAD = ("me", "hand")      # what it reads when it loads, before the opening
KINDS = BELL + PAGE_LOAD
PRELOAD_RATE = 400.0            # page loads (two reads each) per second before the bell: paced, not timed
WINDOW_S = 60.0
P99_GOAL_S = 1.0
LADDER = (125, 250, 500, 1000, 2000, 4000, 7000, 10000, 14000, 20000)
SMALL_LADDER = (50, 100)
CONNECTIONS = 512     # the loader's keep-alive connections (a request waits for a free one; that wait is counted)
REQUEST_TIMEOUT_S = 30.0
ERRORS_OK = {"claim": {409, 422}}   # refusals are answers (R10 locked_today, R7 …), not errors; 429/5xx are


def arrivals(n: int, seed: int = 30) -> list[float]:
    """Arrival offsets in seconds: half of ``n`` in [0, 10), the rest in [10, 60), evenly spread with jitter."""
    rng = random.Random(seed)
    first = n // 2
    out = [(k + rng.random()) * 10.0 / max(first, 1) for k in range(first)]
    rest = n - first
    out += [10.0 + (k + rng.random()) * 50.0 / max(rest, 1) for k in range(rest)]
    return out


@dataclass
class Outcome:
    kind: str
    status: int
    latency_s: float


@dataclass
class Trial:
    n: int
    outcomes: list[Outcome] = field(default_factory=list)
    waits_s: list[float] = field(default_factory=list)    # per player: arrival to the answer of the claim
    wall_s: float = 0.0
    loader_cpu_s: float = 0.0
    stack_cpu_s: dict[str, float] = field(default_factory=dict)   # by process, idle baseline subtracted
    statuses: Counter[str] = field(default_factory=Counter)

    @property
    def errors(self) -> int:
        return sum(1 for o in self.outcomes if not _answered(o))

    @property
    def p99_s(self) -> float:
        return percentile([o.latency_s for o in self.outcomes], 99) if self.outcomes else float("inf")

    @property
    def served(self) -> bool:
        return self.errors == 0 and self.p99_s < P99_GOAL_S and self.wall_s <= WINDOW_S + P99_GOAL_S


def _answered(o: Outcome) -> bool:
    return 200 <= o.status < 300 or o.status in ERRORS_OK.get(o.kind, set())


class Pool:
    """Keep-alive HTTP/1.1 connections to the gateway, lent one request at a time (reopened after a failure)."""

    def __init__(self, port: int, size: int) -> None:
        self.port, self.size = port, size
        self.free: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = asyncio.Queue()
        for _ in range(size):
            self.free.put_nowait(None)   # opened on first use

    async def send(self, req: loadgen.Request) -> int:
        """The answer's status, or 0 when none came (an error). A kept-alive connection the server closed while
        idle (uvicorn's keep-alive time-out) is reopened and the request sent again, as a browser does."""
        conn = await self.free.get()
        try:
            for fresh in ((False, True) if conn is not None else (True,)):
                if fresh:
                    conn = await asyncio.open_connection("127.0.0.1", self.port)
                assert conn is not None
                try:
                    conn[1].write(req.encode(f"127.0.0.1:{self.port}"))
                    status, _ = await asyncio.wait_for(loadgen._read_response(conn[0]), REQUEST_TIMEOUT_S)
                    return status
                except (ConnectionError, asyncio.IncompleteReadError):
                    conn[1].close()
                    conn = None
            return 0
        except (TimeoutError, OSError):
            if conn is not None:
                conn[1].close()
            conn = None
            return 0   # no answer in time, or no connection: an error
        finally:
            self.free.put_nowait(conn)

    async def close(self) -> None:
        while not self.free.empty():
            conn = self.free.get_nowait()
            if conn is not None:
                conn[1].close()


def player_requests(bs: BenchStack, p: Player, tid: str, at: datetime) -> list[tuple[str, loadgen.Request]]:
    """The play page's requests for player ``p`` standing well inside territory ``tid``: at the bell (``BELL``),
    then those of its load (``PAGE_LOAD``), sent before the bell."""
    lat, lon = bs.points[tid]
    auth = {"Authorization": f"Bearer {p.token}"}
    fix = {"lat": lat, "lon": lon, "accuracy_m": 8.0, "fix_time": (at - timedelta(seconds=2)).isoformat()}
    return [("check", loadgen.Request("POST", API + "/claims/check", auth, fix)),
            ("claim", loadgen.Request("POST", API + "/claims", auth | {"Idempotency-Key": uuid.uuid4().hex}, fix)),
            ("me", loadgen.Request("GET", API + "/me", auth)),
            ("hand", loadgen.Request("GET", API + "/me/hand", auth))]


def bell_plans(bs: BenchStack, n: int, at: datetime) -> list[list[tuple[str, loadgen.Request]]]:
    """Each of the first ``n`` players' requests at the bell, in a town drawn at random (seeded by ``n``)."""
    rng = random.Random(n)
    return [[(k, r) for k, r in player_requests(bs, bs.players[i], rng.choice(bs.tids), at) if k in BELL]
            for i in range(n)]


async def _page_loads(bs: BenchStack, n: int, at: datetime) -> None:
    """The first ``n`` players' pages load before the opening (``PAGE_LOAD``), paced, shared out between the
    gateways as at the bell."""
    by_port: dict[int, list[loadgen.Request]] = {}
    for i in range(n):
        port = bs.ports[i % len(bs.ports)]
        by_port.setdefault(port, []).extend(
            r for k, r in player_requests(bs, bs.players[i], bs.tids[0], at) if k in PAGE_LOAD)
    rate = PRELOAD_RATE * len(PAGE_LOAD) / len(by_port)
    await asyncio.gather(*(loadgen.run("127.0.0.1", port, reqs, 32, rate) for port, reqs in by_port.items()))


async def _bell(bs: BenchStack, n: int, at: datetime, trial: Trial) -> None:
    offsets = arrivals(n)
    plans = bell_plans(bs, n, at)
    # player i goes to gateway i mod len(ports): two gateways share the crowd (and the loader's connections)
    pools = [Pool(port, max(1, min(CONNECTIONS, n) // len(bs.ports))) for port in bs.ports]
    t0 = time.perf_counter() + 0.5

    async def player(i: int, offset: float, plan: list[tuple[str, loadgen.Request]]) -> None:
        pool = pools[i % len(pools)]
        due = t0 + offset
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        for kind, req in plan:
            status = await pool.send(req)
            done = time.perf_counter()
            trial.outcomes.append(Outcome(kind, status, done - due))
            trial.statuses[f"{kind} {status}"] += 1
            due = done   # the page sends the next request when this one answered
        trial.waits_s.append(due - (t0 + offset))

    await asyncio.gather(*(player(i, o, p) for i, (o, p) in enumerate(zip(offsets, plans, strict=True))))
    trial.wall_s = time.perf_counter() - t0
    for pool in pools:
        await pool.close()


async def _idle(bs: BenchStack, timeout: float = 300.0) -> None:
    async with make_broker(bs.stack.env["TURF_NATS_URL"], "bench-bell") as broker:
        await wait_idle(broker, get_settings().stream, timeout=timeout)


def idle_rates(bs: BenchStack, seconds: float = 5.0) -> dict[str, float]:
    """CPU seconds per second each process spends with nothing to do (timers, polls): subtracted from trials."""
    asyncio.run(_idle(bs))
    c0, t = bs.cpu(), time.perf_counter()
    time.sleep(seconds)
    c1, dt = bs.cpu(), time.perf_counter() - t
    return {k: max(0.0, (c1[k] - c0.get(k, c1[k])) / dt) for k in c1}


def measured(bs: BenchStack, baseline: dict[str, float],
             work: Coroutine[Any, Any, Any]) -> tuple[dict[str, float], float, float]:
    """Run the coroutine ``work``; return the stack's CPU by process (read once every consumer is idle, baseline
    subtracted), the loader's own CPU seconds and the wall seconds until idle."""
    c0, l0, t = bs.cpu(), cpu_seconds_self(), time.perf_counter()
    asyncio.run(work)
    loader = cpu_seconds_self() - l0
    asyncio.run(_idle(bs))
    c1, dt = bs.cpu(), time.perf_counter() - t
    return {k: max(0.0, c1[k] - c0.get(k, c1[k]) - baseline.get(k, 0.0) * dt) for k in c1}, loader, dt


def cpu_seconds_self() -> float:
    return cpu_seconds(os.getpid())


def trial(bs: BenchStack, n: int, baseline: dict[str, float]) -> Trial:
    """One opening bell of ``n`` players on a fresh game day (R10: one accepted claim per town per day)."""
    if len(bs.players) < n:
        bs.seed_players(n - len(bs.players))
    at = bs.next_day()
    asyncio.run(_idle(bs))   # the day start (R5: deal, Freezes) is not the bell's work
    asyncio.run(_page_loads(bs, n, at))   # nor are the pages' loads before it
    t = Trial(n)
    t.stack_cpu_s, t.loader_cpu_s, _ = measured(bs, baseline, _bell(bs, n, at, t))
    return t


def ladder_search(bs: BenchStack, ladder: tuple[int, ...], baseline: dict[str, float],
                  log: list[str]) -> tuple[Trial | None, list[Trial]]:
    """The largest N of ``ladder`` served (p99 < 1 s, no error): starting at 1,000 (or the ladder's middle), up
    while served, down while not. Returns the best served trial (None if none) and every trial run."""
    i = ladder.index(1000) if 1000 in ladder else len(ladder) // 2
    tried: dict[int, Trial] = {}
    while 0 <= i < len(ladder) and ladder[i] not in tried:
        t = trial(bs, ladder[i], baseline)
        tried[ladder[i]] = t
        log.append(f"N={t.n:,}: p99 {t.p99_s * 1000:,.0f} ms, errors {t.errors}, last answer at {t.wall_s:.1f} s, "
                   f"player wait p50 {percentile(t.waits_s, 50):.2f} s → {'served' if t.served else 'not served'}")
        print(f"     {log[-1]}", flush=True)
        i += 1 if t.served else -1
    served = [t for t in tried.values() if t.served]
    return (max(served, key=lambda t: t.n) if served else None), list(tried.values())


async def _one_kind(bs: BenchStack, reqs: list[loadgen.Request], rate: float) -> list[loadgen.Result]:
    results, _ = await loadgen.run("127.0.0.1", bs.ports[0], reqs, 64, rate)
    return results


def per_kind(bs: BenchStack, baseline: dict[str, float], m: int,
             rate: float) -> dict[str, tuple[dict[str, float], int]]:
    """CPU by process for each request kind alone, on a fresh game day: checks, accepted claims (one per town),
    refused claims (R10 locked_today: other players on the towns just taken), GET /me, GET /me/hand."""
    at = bs.next_day()
    asyncio.run(_idle(bs))
    pool = bs.players[:m]
    out: dict[str, tuple[dict[str, float], int]] = {}

    def run(kind: str, reqs: list[loadgen.Request]) -> None:
        cpu, _, _ = measured(bs, baseline, _one_kind(bs, reqs, rate))
        out[kind] = (cpu, len(reqs))

    def plan(kind: str, players: list[Player], towns: list[str]) -> list[loadgen.Request]:
        idx = KINDS.index(kind)
        return [player_requests(bs, p, towns[k % len(towns)], at)[idx][1] for k, p in enumerate(players)]

    towns = bs.tids[:min(m, len(bs.tids))]
    run("check", plan("check", pool, bs.tids))
    run("claim accepted", plan("claim", pool[:len(towns)], towns))
    run("claim refused", plan("claim", pool[len(towns):] or pool[:len(towns)][::-1], towns))
    run("me", plan("me", pool, bs.tids))
    run("hand", plan("hand", pool, bs.tids))
    return out


def _by_process(cpu: dict[str, float], per: int) -> str:
    top = sorted(((v * 1000 / per, k) for k, v in cpu.items() if v * 1000 / per >= 0.05), reverse=True)
    return ", ".join(f"{k} {v:.1f}" for v, k in top)


def anchor_health(bs: BenchStack, count: int) -> float:
    """The same loader against ``GET /health`` (no session, no bus): requests/s, the HTTP edge's ceiling."""
    reqs = [loadgen.Request("GET", "/health") for _ in range(count)]
    results, wall = asyncio.run(loadgen.run("127.0.0.1", bs.ports[0], reqs, 64))
    return sum(r.status == 200 for r in results) / wall


def run(small: bool = False, ladder: tuple[int, ...] | None = None, scale_out: bool = False) -> Section:
    """The bell's ladder (``ladder``, else the full or small one) on one gateway and one claims replica, or with
    ``scale_out`` on two of each (and then no single-kind phases: those are the one-process figures)."""
    sec = Section("7b. opening bell, 2 gateways and 2 claims replicas" if scale_out
                  else "7. opening bell")
    t_start = time.perf_counter()
    bs = BenchStack(small)
    rungs = ladder or (SMALL_LADDER if small else LADDER)
    with contextlib.ExitStack() as stop:
        stop.callback(bs.stop)
        bs.start()
        if scale_out:
            bs.add_claims_replica()
            bs.add_gateway()
        bs.seed_players(min(rungs[-1], SMALL_LADDER[-1] if small else 1000))
        baseline = idle_rates(bs, 3.0 if small else 5.0)
        health = anchor_health(bs, 500 if small else 5000)
        log: list[str] = []
        best, tried = ladder_search(bs, rungs, baseline, log)
        ref = best or min(tried, key=lambda t: t.n)
        total_ms = sum(ref.stack_cpu_s.values()) * 1000
        where = f"{len(bs.ports)} gateways, {1 + len(bs.extra)} claims replicas; " if scale_out else ""
        sec.rows += [
            Row("bell", "players served in 60 s with p99 < 1 s and no errors (largest N of the ladder)",
                float(best.n if best else 0), "players", "GET /health through the same loader, req/s", health,
                goal="≥ 10,000", met=bool(best and best.n >= 10000),
                note=f"{where}p99 {ref.p99_s * 1000:,.0f} ms at N={ref.n:,}; each player at the bell: "
                     f"{', '.join(BELL)} (its page's {', '.join(PAGE_LOAD)} before the opening, not timed)"),
            Row("bell", f"player wait, arrival → claim's answer, p50 at N={ref.n:,}",
                percentile(ref.waits_s, 50) * 1000, "ms", note=f"p99 {percentile(ref.waits_s, 99) * 1000:,.0f} ms"),
            Row("bell", f"stack CPU per player at the bell at N={ref.n:,} (idle baseline subtracted)",
                total_ms / ref.n, "ms",
                note=_by_process(ref.stack_cpu_s, ref.n) + f"; loader's own CPU {ref.loader_cpu_s * 1000 / ref.n:.1f} "
                     "ms per player"),
        ]
        if scale_out:
            _notes(sec, log, ref, baseline)
            sec.seconds = time.perf_counter() - t_start
            return sec
        kinds = per_kind(bs, baseline, 200 if small else 1000, 100.0 if small else 50.0)
        for kind, (cpu, count) in kinds.items():
            ms = sum(cpu.values()) * 1000 / count
            goal, met = {"claim accepted": ("≤ 5 ms", ms <= 5.0), "claim refused": ("≤ 1.5 ms", ms <= 1.5),
                         "check": ("≤ 1.5 ms", ms <= 1.5)}.get(kind, ("", None))
            sec.rows.append(Row("bell", f"CPU per request, {kind}, whole stack ({count:,} alone, paced)", ms, "ms",
                                goal=goal, met=met, note=_by_process(cpu, count)))
        _notes(sec, log, ref, baseline)
    sec.seconds = time.perf_counter() - t_start
    return sec


def _notes(sec: Section, log: list[str], ref: Trial, baseline: dict[str, float]) -> None:
    sec.notes += log
    statuses = ", ".join(f"{k} ×{v:,}" for k, v in sorted(ref.statuses.items()))
    sec.notes.append(f"Statuses at N={ref.n:,}: {statuses}")
    sec.notes.append("Idle baseline subtracted (CPU ms per second): "
                     + ", ".join(f"{k} {v * 1000:.1f}" for k, v in sorted(baseline.items()) if v > 0.0005))
