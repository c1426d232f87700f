"""Benchmarks 2–4 and the geo.locate latency: on a real stack (embedded NATS, PostgreSQL, Redis, every service as
its own process, the gateway), driven through the public HTTP API on loopback with the manual game clock.

Players are written straight into the gateway's tables (with a session token each): registration runs argon2 and
is not what these benchmarks measure. Everything else goes through the API: the organizer moves the clock, players
claim with ``POST /api/v1/claims``, spectators listen on ``WS /api/v1/ws/scores``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench import loadgen
from bench.common import Row, Section, loadavg, percentile
from bench.profiling import cpu_seconds, start_py_spy, summarize, tree_cpu_seconds
from turf_common.board import load_board
from turf_common.rules import gametime
from turf_common.settings import get_settings
from turfwar.embedded import free_port
from turfwar.stack import Stack

API = "/api/v1"
FAN_RATE = 2.0  # claims/s during the fan-out (each puts two messages on the feed)
PACED_RATE = 5.0  # claims/s for the feed latency (at 20/s, with 2,000 players, scoring falls behind)
CONNECT_BATCH = 1000  # spectators connecting at the same moment
SPECTATOR_PROCS = 2   # processes the fan-out's reading spectators live in (one per core)
ORGANIZER = ("organizer@bench.turfwar", "bench-organizer-1")


@dataclass
class Player:
    id: str
    token: str


@dataclass
class Round:
    day: int
    replicas: int
    sent: int
    accepted: int
    wall_s: float
    latencies_ms: list[float]
    refusals: dict[str, int] = field(default_factory=dict)
    gateways: int = 1

    @property
    def rate(self) -> float:
        return self.accepted / self.wall_s if self.wall_s else 0.0


class BenchStack:
    def __init__(self, small: bool) -> None:
        self.small = small
        self.dir = Path(tempfile.mkdtemp(prefix="turf-bench-"))
        self.stack = Stack(data_dir=self.dir, http_port=free_port(), env={
            "TURF_CLOCK": "manual",
            "TURF_CLOCK_START": "2026-10-05T05:00:00-04:00",
            "TURF_ORGANIZER_EMAIL": ORGANIZER[0],
            "TURF_ORGANIZER_PASSWORD": ORGANIZER[1],
            "TURF_LOG_LEVEL": "INFO",  # the default
            "TURF_WS_MAX_PER_IP": "5000",   # the fan-out's 1,000 spectators all come from 127.0.0.1
        })
        self.board = load_board()
        self.season = gametime.load_season(get_settings().season_file)
        self.days = [d.opens + timedelta(hours=1) for d in gametime._schedule(self.season)]
        self.day_i = 0
        self.players: list[Player] = []
        self.extra: list[subprocess.Popen[bytes]] = []
        self.ports = [self.stack.http_port]   # the gateways claims are sent to (one or two)
        self.cpu_used: dict[str, float] = {}  # CPU seconds per process during claim rounds (clock moves excluded)
        self.cpu_refused: dict[str, float] = {}   # the same during the refused rounds
        self.org_token = ""
        # one point per territory, well inside it
        self.points: dict[str, tuple[float, float]] = {}
        for tid, ter in self.board.territories.items():
            loc = self.board.locate(*ter.label_point)
            if loc.territory_id == tid and (loc.border_distance_m or 0) > 5:
                self.points[tid] = ter.label_point
        self.tids = sorted(self.points)

    # ---- life ---------------------------------------------------------------------------------
    def start(self) -> None:
        self.stack.start_servers()
        self.stack.start_services()
        with httpx.Client(base_url=self.stack.base_url, timeout=30) as http:
            r = http.post(API + "/sessions", json={"email": ORGANIZER[0], "password": ORGANIZER[1]})
            r.raise_for_status()
            self.org_token = r.json()["token"]

    def stop(self) -> None:
        for p in self.extra:
            if p.poll() is None:
                p.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(10)
        self.stack.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def db(self) -> str:
        return self.stack.env["TURF_DATABASE_URL"]

    def seed_players(self, n: int) -> None:
        """Write ``n`` more verified players, each with a session, numbered after those already written (a ladder
        seeds again before each larger rung)."""
        import psycopg

        rows, sess = self.new_players(n, datetime.now(UTC))
        with psycopg.connect(self.db) as c, c.cursor() as cur:
            cur.executemany(
                "insert into gateway.players (id, name, email, email_norm, discord, discord_norm, home_address, "
                "password_hash, status, role, created_at) values (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)", rows)
            cur.executemany("insert into gateway.sessions (token_hash, player_id, expires_at) values (%s,%s,%s)",
                            sess)

    def new_players(self, n: int, now: datetime) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The rows of ``n`` players after the ``len(self.players)`` already made (their names, e-mails and Discord
        handles are unique columns), added to :attr:`players`; and their sessions' rows."""
        pw = "$argon2id$v=19$m=65536,t=3,p=4$YmVuY2hiZW5jaA$dW51c2FibGUgaGFzaCBmb3IgYmVuY2g"  # never signs in
        rows: list[tuple[Any, ...]] = []
        sess: list[tuple[Any, ...]] = []
        for k in range(len(self.players), len(self.players) + n):
            pid, token, tag = uuid.uuid4().hex, secrets.token_urlsafe(32), f"b{k:06d}"
            rows.append((pid, f"Bench {k}", f"{tag}@bench.example", f"{tag}@bench.example", tag, tag,
                         "1 Main St, Hoboken, NJ", pw, "verified", "player", now))
            sess.append((hashlib.sha256(token.encode()).hexdigest(), pid, now + timedelta(days=30)))
            self.players.append(Player(pid, token))
        return rows, sess

    def next_day(self) -> datetime:
        at = self.days[self.day_i]
        self.day_i += 1
        with httpx.Client(base_url=self.stack.base_url, timeout=120) as http:
            r = http.post(API + "/admin/clock", json={"now": at.isoformat()},
                          headers={"Authorization": f"Bearer {self.org_token}"})
            r.raise_for_status()
        return at

    def add_claims_replica(self) -> None:
        log = self.dir / "logs" / "claims.log"
        before = log.read_text(errors="replace").count("service_started") if log.exists() else 0
        first = self.stack.procs["claims"]
        second = self.stack.start_process("claims")
        self.stack.procs["claims"] = first
        self.extra.append(second)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if second.poll() is not None:
                raise RuntimeError("second claims replica exited")
            text = log.read_text(errors="replace") if log.exists() else ""
            if text.count("service_started") > before or ("service_started" in text[-20000:] and before == 0):
                break
            time.sleep(0.2)
        time.sleep(1.0)

    def add_gateway(self) -> None:
        """A second gateway (the scale-out row) on a port of its own, sharing everything else."""
        port = free_port()
        self.stack.proc_env["gateway#2"] = {"TURF_HTTP_PORT": str(port)}
        self.stack.start_process("gateway#2")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    self.ports.append(port)
                    return
            time.sleep(0.2)
        raise RuntimeError("second gateway did not answer /health")

    def remove_gateway(self) -> None:
        p = self.stack.procs.pop("gateway#2", None)
        if p is not None:
            p.terminate()
            p.wait(10)
        self.ports[1:] = []

    def remove_claims_replica(self) -> None:
        for p in self.extra:
            p.terminate()
            p.wait(10)
        self.extra.clear()

    def pids(self) -> dict[str, int]:
        out = {n: p.pid for n, p in self.stack.procs.items()}
        out |= {f"claims#{k + 2}": p.pid for k, p in enumerate(self.extra)}
        out |= {n: s.proc.pid for n, s in self.stack.servers.items()}
        return out

    def cpu(self) -> dict[str, float]:
        return {n: tree_cpu_seconds(pid) for n, pid in self.pids().items()}

    # ---- claims -------------------------------------------------------------------------------
    def claim_requests(self, at: datetime, day: int, count: int,
                       players: list[Player] | None = None) -> list[loadgen.Request]:
        """One claim per territory, each by a different player than the day before (steals, never fortified)."""
        pool = players or self.players
        n = len(pool)
        tids = self.tids[:count]
        start = (day * len(tids)) % n
        fix = (at - timedelta(seconds=3)).isoformat()
        reqs = []
        for k, tid in enumerate(tids):
            p = pool[(start + k) % n]
            lat, lon = self.points[tid]
            reqs.append(loadgen.Request("POST", API + "/claims", {"Authorization": f"Bearer {p.token}"},
                                        {"lat": lat, "lon": lon, "accuracy_m": 5.0 + day * 0.01, "fix_time": fix}))
        return reqs

    def claims_round(self, count: int, concurrency: int, replicas: int,
                     rate: float | None = None, refused: bool = False) -> Round:
        """One game day of claims, one per territory. ``refused``: on the day just played instead, by other
        players, so every claim is refused ``locked_today`` (R10): the season-opening crowd after the first claims,
        whose CPU goes to ``cpu_refused`` instead of ``cpu_used``."""
        if refused:
            at, day = self.days[self.day_i - 1], self.day_i
            reqs = self.claim_requests(at, day + 7, count)   # other players than the day's claimants
        else:
            at = self.next_day()
            day = self.day_i
            reqs = self.claim_requests(at, day, count)
        cpu0 = self.cpu()
        results, wall = asyncio.run(self._send(reqs, concurrency, rate))
        time.sleep(0.5)  # let the consumers (scoring, cards, gateway feed) finish this round's events
        cpu1 = self.cpu()
        used = self.cpu_refused if refused else self.cpu_used
        for n, v in cpu1.items():
            used[n] = used.get(n, 0.0) + v - cpu0.get(n, v)
        refusals: dict[str, int] = {}
        for r in results:
            if r.status != 201:
                try:
                    code = json.loads(r.body).get("reason")   # API.md: every error body is {reason, message}
                except ValueError:
                    code = None
                key = f"{r.status}:{code}"
                refusals[key] = refusals.get(key, 0) + 1
        return Round(day, replicas, len(results), sum(r.status == 201 for r in results), wall,
                     [r.latency_s * 1000 for r in results], refusals, gateways=len(self.ports))

    async def _send(self, reqs: list[loadgen.Request], concurrency: int,
                    rate: float | None) -> tuple[list[loadgen.Result], float]:
        """The requests shared out among the gateways (every n-th to the n-th), the connections too."""
        n = len(self.ports)
        if n == 1:
            return await loadgen.run("127.0.0.1", self.ports[0], reqs, concurrency, rate)
        parts = await asyncio.gather(*(loadgen.run("127.0.0.1", port, reqs[k::n], max(1, concurrency // n),
                                                   None if rate is None else rate / n)
                                       for k, port in enumerate(self.ports)))
        return [r for res, _ in parts for r in res], max(w for _, w in parts)


# ---------------------------------------------------------------------------------------------------
def pgbench_anchor(db_url: str, seconds: int) -> dict[int, float]:
    """Raw PostgreSQL single-row update commit rate on the stack's own server: 1, 4 and 16 clients."""
    exe = shutil.which("pgbench")
    if exe is None:
        return {}
    import psycopg

    # a schema of the stack's own database: the services' role owns it but may not create databases
    url = db_url
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("drop schema if exists bench_anchor cascade")
        c.execute("create schema bench_anchor")
        c.execute("create table bench_anchor.row_update (id int primary key, v bigint not null)")
        c.execute("insert into bench_anchor.row_update select g, 0 from generate_series(1, 10000) g")
    script = Path(tempfile.mkstemp(suffix=".sql")[1])
    script.write_text("\\set id random(1, 10000)\nUPDATE bench_anchor.row_update SET v = v + 1 WHERE id = :id;\n")
    out: dict[int, float] = {}
    for clients in (1, 4, 16):
        p = subprocess.run([exe, "-n", "-f", str(script), "-c", str(clients), "-j", str(min(clients, 4)),
                            "-T", str(seconds), url], capture_output=True, text=True)
        m = re.search(r"tps = ([0-9.]+)", p.stdout)
        if m:
            out[clients] = float(m.group(1))
    script.unlink()
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("drop schema if exists bench_anchor cascade")
    return out


async def geo_over_nats(nats_url: str, n: int) -> tuple[list[float], list[float]]:
    """``geo.locate`` request/reply latency, one at a time, for points inside and outside the board."""
    import nats

    from bench.geo import random_points
    from turf_common.contracts import subjects
    from turf_common.contracts.geo import LocatePoint

    board = load_board()
    lats, lons = random_points(board, n, seed=11)
    nc = await nats.connect(nats_url)
    lat_ms, payloads = [], [LocatePoint(lat=a, lon=b).model_dump_json().encode()
                            for a, b in zip(lats.tolist(), lons.tolist(), strict=True)]
    for p in payloads[:50]:
        await nc.request(subjects.GEO_LOCATE, p, timeout=5)
    for p in payloads:
        t = time.perf_counter()
        await nc.request(subjects.GEO_LOCATE, p, timeout=5)
        lat_ms.append((time.perf_counter() - t) * 1000)
    # the NATS round trip alone, to a trivial responder in this process
    async def echo(m: Any) -> None:
        await m.respond(b"{}")

    await nc.subscribe("bench.echo", cb=echo)
    base_ms = []
    for _ in range(min(n, 2000)):
        t = time.perf_counter()
        await nc.request("bench.echo", b"{}", timeout=5)
        base_ms.append((time.perf_counter() - t) * 1000)
    await nc.close()
    return lat_ms, base_ms


class FeedProbe:
    """Listens on NATS (territory.changed, score.updated) and on spectator websockets; records arrival times."""

    TID = re.compile(rb'"territory_id": ?"([^"]*)"')
    TIDS = re.compile(rb'"territory_ids": ?\[([^\]]*)\]')
    TYPE = re.compile(rb'"type": ?"([^"]*)"')

    @classmethod
    def territories(cls, data: bytes) -> list[str]:
        """The territories a ``score.updated`` follows: one event may follow a batch of changes
        (``territory_ids``, in order; ``territory_id`` is the batch's last)."""
        head = data[:4000]
        many = cls.TIDS.search(head)
        if many and many.group(1).strip():
            return [t.strip().strip(b'"').decode() for t in many.group(1).split(b",")]
        one = cls.TID.search(head)
        return [one.group(1).decode()] if one and one.group(1) else []

    def __init__(self, nats_url: str, ws_url: str) -> None:
        self.nats_url, self.ws_url = nats_url, ws_url
        self.changed: dict[str, float] = {}   # territory id -> first arrival of territory.changed (this round)
        self.scored: dict[str, float] = {}    # territory id -> arrival of score.updated on NATS
        self.ws_times: list[dict[str, float]] = []  # per client: territory id -> arrival of score.updated
        self.resync: list[bool] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.nc: Any = None
        self.release = asyncio.Event()
        self.size = 0  # largest score.updated seen on a websocket, bytes
        self.received: list[int] = []  # messages received per client after the snapshot
        self.connect_failures = 0
        self.workers: list[tuple[Any, Any, int, int]] = []   # (process, pipe, first client index, clients)
        self.worker_cpu = 0.0   # CPU seconds the spectator processes used

    async def start(self, clients: int, slow: int = 0, procs: int = 0) -> None:
        """Connect ``clients`` reading spectators and ``slow`` non-reading ones. With ``procs``, the reading
        spectators live in that many processes of their own (like a real audience on many devices), so the
        benchmark's own websocket clients are not one event loop that every delivery has to queue for; their
        arrival times (CLOCK_MONOTONIC, comparable across processes) come back at :meth:`stop`."""
        import nats

        self.nc = await nats.connect(self.nats_url)

        async def on_changed(m: Any) -> None:
            t = time.perf_counter()
            tid = json.loads(m.data)["territory_id"]
            self.changed.setdefault(tid, t)

        async def on_scored(m: Any) -> None:
            t = time.perf_counter()
            for tid in self.territories(m.data):
                self.scored.setdefault(tid, t)

        await self.nc.subscribe("territory.changed", cb=on_changed)
        await self.nc.subscribe("score.updated", cb=on_scored)
        # every spectator connects at once (a season-opening burst); a socket closed without a snapshot is
        # retried and counted (the gateway shares one snapshot request among them, so there should be none)
        total = clients + slow
        self.ws_times = [{} for _ in range(total)]
        self.resync = [False] * total
        self.received = [0] * total
        self.tasks = [asyncio.create_task(asyncio.sleep(0)) for _ in range(total)]
        if procs:
            await self._start_workers(clients, procs)
        for first in range(clients if procs else 0, total, CONNECT_BATCH):
            todo = list(range(first, min(first + CONNECT_BATCH, total)))
            for _attempt in range(5):
                futs: dict[int, asyncio.Future[None]] = {}
                for k in todo:
                    futs[k] = asyncio.get_running_loop().create_future()
                    self.tasks[k] = asyncio.create_task(self._client(k, futs[k], slow=k >= clients))
                done = await asyncio.wait_for(asyncio.gather(*futs.values(), return_exceptions=True), 120)
                todo = [k for k, res in zip(futs, done, strict=True) if isinstance(res, BaseException)]
                self.connect_failures += len(todo)
                if not todo:
                    break
                await asyncio.sleep(0.5)
            if todo:
                raise RuntimeError(f"{len(todo)} spectators could not connect")

    async def _client(self, k: int, ready: asyncio.Future[None], slow: bool) -> None:
        import websockets

        sock = None
        if slow:  # a small receive buffer, so the gateway's queue for it fills soon instead of the kernel's
            import socket
            from urllib.parse import urlparse

            u = urlparse(self.ws_url)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((u.hostname, u.port))
            sock.setblocking(False)
        try:
            # the slow client also declines compression: compressed, hundreds of updates fit in the kernel's
            # buffers and the gateway's queue for it would never fill
            ws = await websockets.connect(self.ws_url, max_size=None, open_timeout=60, sock=sock,
                                          compression=None if slow else "deflate")
            await ws.recv()  # snapshot
        except Exception as e:
            ready.set_exception(e)
            return
        ready.set_result(None)
        async with ws:
            if slow:  # reads nothing until released: its queue on the gateway must overflow, alone
                await self.release.wait()

            def seen(data: bytes, score: bool) -> None:
                self.received[k] += 1
                if score:
                    self.size = max(self.size, len(data))

            self.resync[k] = await _read_feed(ws, self.ws_times[k], seen)

    async def _start_workers(self, clients: int, procs: int) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        per = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
        first = 0
        for n in per:
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_spectator_worker, args=(self.ws_url, n, theirs), daemon=True)
            proc.start()
            self.workers.append((proc, mine, first, n))
            first += n
        for _proc, conn, _first, _n in self.workers:   # every spectator connected, snapshot received
            kind, failures = await asyncio.to_thread(conn.recv)
            if kind != "ready":
                raise RuntimeError(f"a spectator process failed: {failures}")
            self.connect_failures += failures

    async def _stop_workers(self) -> None:
        for proc, conn, first, n in self.workers:
            conn.send("stop")
            _, times, counts, size, cpu = await asyncio.to_thread(conn.recv)
            self.worker_cpu += cpu
            self.ws_times[first:first + n] = times
            self.received[first:first + n] = counts
            self.size = max(self.size, size)
            await asyncio.to_thread(proc.join, 30)
        self.workers.clear()

    def reset(self) -> None:
        self.changed.clear()
        self.scored.clear()
        for d in self.ws_times:
            d.clear()

    async def stop(self) -> None:
        await self._stop_workers()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.nc is not None:
            await self.nc.close()


async def _read_feed(ws: Any, times: dict[str, float], seen: Any) -> bool:
    """Read a spectator's socket until it closes: the first arrival of each territory's ``score.updated`` goes
    into ``times``, ``seen(data, is_score_updated)`` hears of every message. True when told to resync."""
    import websockets

    while True:
        try:
            data = await ws.recv(decode=False)
        except websockets.ConnectionClosed:
            return False
        t = time.perf_counter()
        head = data[:400]
        ty = FeedProbe.TYPE.search(head)
        if ty and ty.group(1) == b"resync":
            seen(data, False)
            return True
        score = bool(ty and ty.group(1) == b"score.updated")
        seen(data, score)
        if score:
            for tid in FeedProbe.territories(data):
                times.setdefault(tid, t)


def _spectator_worker(ws_url: str, n: int, conn: Any) -> None:
    """A process of ``n`` reading spectators (see FeedProbe.start): connect them all (retrying a socket closed
    before its snapshot), say "ready", record when each score.updated arrives per territory, and send the times
    back when told to stop."""
    import uvloop
    import websockets

    async def main() -> None:
        times: list[dict[str, float]] = [{} for _ in range(n)]
        counts = [0] * n
        size = 0
        failures = 0

        async def client(k: int, ready: asyncio.Future[None]) -> None:
            nonlocal size, failures
            for attempt in range(5):
                try:
                    ws = await websockets.connect(ws_url, max_size=None, open_timeout=60)
                    await ws.recv()   # snapshot
                    break
                except Exception as e:
                    failures += 1
                    if attempt == 4:
                        ready.set_exception(e)
                        return
                    await asyncio.sleep(0.5)
            ready.set_result(None)
            def seen(data: bytes, score: bool) -> None:
                nonlocal size
                counts[k] += 1
                if score:
                    size = max(size, len(data))

            async with ws:
                await _read_feed(ws, times[k], seen)

        loop = asyncio.get_running_loop()
        futs = [loop.create_future() for _ in range(n)]
        tasks = [asyncio.create_task(client(k, f)) for k, f in enumerate(futs)]
        done = await asyncio.gather(*futs, return_exceptions=True)
        bad = [d for d in done if isinstance(d, BaseException)]
        conn.send(("ready", failures) if not bad else ("failed", repr(bad[0])))
        await asyncio.to_thread(conn.recv)   # "stop"
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        conn.send(("times", times, counts, size, time.process_time()))

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(main())


async def _paced_with_probe(bs: BenchStack, probe: FeedProbe, count: int, rate: float, clients: int,
                            slow: int, players: list[Player] | None = None, procs: int = 0) -> tuple[Round, float]:
    await probe.start(clients, slow, procs)
    probe.reset()
    at = await asyncio.to_thread(bs.next_day)
    day = bs.day_i
    probe.reset()
    reqs = bs.claim_requests(at, day, count, players)
    results, wall = await loadgen.run("127.0.0.1", bs.stack.http_port, reqs, 8, rate)
    await asyncio.sleep(3.0)  # let the last updates arrive
    rnd = Round(day, 1, len(results), sum(r.status == 201 for r in results), wall,
                [r.latency_s * 1000 for r in results])
    return rnd, wall


async def slow_client_burst(nats_url: str, ws_url: str, messages: int, size: int) -> dict[str, Any]:
    """One reading and one non-reading spectator; a burst of large feed messages (``announcement.published`` with
    a long body: only the gateway consumes it, and it passes the feed's contract check). The reader must
    get every message; the other must be dropped and told to resync once released."""
    probe = FeedProbe(nats_url, ws_url)
    await probe.start(1, 1)
    now = datetime.now(UTC).isoformat()
    t0 = time.perf_counter()
    for k in range(messages):
        body = json.dumps({"type": "announcement.published", "event_id": uuid.uuid4().hex, "occurred_at": now,
                           "announcement_id": f"bench-{k}", "at": now, "title": "Bench burst",
                           "body": "x" * size}).encode()
        await probe.nc.publish("announcement.published", body)
    await probe.nc.flush()
    for _ in range(2400):  # up to 120 s
        if probe.received[0] >= messages:
            break
        await asyncio.sleep(0.05)
    reader_s = time.perf_counter() - t0
    probe.release.set()
    for _ in range(200):
        if probe.resync[1] or probe.tasks[1].done():
            break
        await asyncio.sleep(0.05)
    out = {"reader_got": probe.received[0], "reader_s": reader_s, "slow_resync": probe.resync[1],
           "slow_got": probe.received[1]}
    await probe.stop()
    return out


def _feed_latencies(probe: FeedProbe, clients: int) -> tuple[list[float], list[float], list[float], int]:
    to_score = [(probe.scored[t] - c) * 1000 for t, c in probe.changed.items() if t in probe.scored]
    to_ws: list[float] = []
    from_score: list[float] = []
    missing = 0
    for k in range(clients):
        times = probe.ws_times[k]
        for t, c in probe.changed.items():
            if t in times:
                to_ws.append((times[t] - c) * 1000)
                if t in probe.scored:
                    from_score.append((times[t] - probe.scored[t]) * 1000)
            elif t in probe.scored:
                missing += 1
    return to_score, to_ws, from_score, missing


def run(small: bool = False) -> list[Section]:
    claims_sec = Section("2. claims end to end")
    feed_sec = Section("3. scoring: territory.changed → score.updated → spectator")
    fan_sec = Section("4. spectator fan-out")
    geo_sec = Section("1b. geo.locate over NATS")
    t0 = time.perf_counter()
    bs = BenchStack(small)
    per_round = 60 if small else len(bs.tids)
    n_players = 300 if small else 2000
    rounds_each = 1 if small else 4
    conc = 32 if small else 64
    try:
        bs.start()
        bs.seed_players(n_players)
        t_setup = time.perf_counter() - t0

        # ---- geo.locate over NATS ----
        nats_url = bs.stack.env["TURF_NATS_URL"]
        geo_ms, echo_ms = asyncio.run(geo_over_nats(nats_url, 300 if small else 3000))
        geo_sec.rows.append(Row("geo", "geo.locate over NATS, p50 / p99", statistics.median(geo_ms), "ms",
                                "NATS echo round trip p50", statistics.median(echo_ms), higher_is_better=False,
                                note=f"p99 {percentile(geo_ms, 99):.2f} ms (echo p99 {percentile(echo_ms, 99):.2f} ms)"
                                     f"; {len(geo_ms):,} sequential requests"))

        ws_url = f"ws://127.0.0.1:{bs.stack.http_port}{API}/ws/scores"
        # ---- fan-out: many websocket clients, one slow ----
        n_clients = 50 if small else 1000
        probe2 = FeedProbe(nats_url, ws_url)

        async def fan() -> tuple[Round, bool]:
            count = min(per_round, 150)
            rnd, _ = await _paced_with_probe(bs, probe2, count, 30.0 if small else FAN_RATE, n_clients, 1,
                                             bs.players[:count], procs=SPECTATOR_PROCS)
            probe2.release.set()  # the slow client reads now: it should find "resync" and the socket closed
            for _ in range(100):
                if probe2.resync[n_clients] or probe2.tasks[n_clients].done():
                    break
                await asyncio.sleep(0.1)
            slow_told = probe2.resync[n_clients]
            await probe2.stop()
            return rnd, slow_told

        t_fan = time.perf_counter()
        # the benchmark's own CPU: this process (the stack's processes are its children, not counted here) and
        # the spectator processes (they report their own)
        fan_cpu0, fan_self0 = bs.cpu(), cpu_seconds(os.getpid())
        fan_spy = None if small else start_py_spy(bs.pids()["gateway"], 90, bs.dir / "gateway-fanout.raw")
        rnd2, slow_told = asyncio.run(fan())
        if fan_spy is not None:
            fan_spy.wait()
            fan_sec.profile = summarize(bs.dir / "gateway-fanout.raw", "gateway during the fan-out (py-spy)")
        fan_cpu1, fan_self1 = bs.cpu(), cpu_seconds(os.getpid()) + probe2.worker_cpu
        fan_wall = time.perf_counter() - t_fan
        _, to_ws2, from_score2, missing2 = _feed_latencies(probe2, n_clients)
        gw_log = (bs.dir / "logs" / "gateway.log").read_text(errors="replace")
        dropped = gw_log.count("ws_client_dropped")
        fan_sec.rows += [
            Row("fan-out", f"score.updated on NATS → each of {n_clients:,} websockets, p99",
                percentile(from_score2, 99), "ms", goal="< 250 ms", met=percentile(from_score2, 99) < 250,
                note=f"p50 {percentile(from_score2, 50):.1f} ms; {len(from_score2):,} deliveries, "
                     f"{missing2} missing"),
            Row("fan-out", "territory.changed → websocket (same run), p99", percentile(to_ws2, 99), "ms"),
            Row("fan-out", "a non-reading client during this phase: dropped?", 1.0 if slow_told else 0.0, "",
                note=f"{dropped} client(s) dropped by the hub, {missing2} deliveries missing among the others; "
                     "at this rate its socket buffers absorb the phase's updates before its queue of 256 fills, "
                     "so the drop is tested by the burst row below"),
        ]
        fan_sec.notes.append(
            f"CPU during the fan-out phase ({fan_wall:.0f} s): gateway "
            f"{fan_cpu1['gateway'] - fan_cpu0['gateway']:.1f} s, the benchmark's own {n_clients:,} websocket "
            f"clients {fan_self1 - fan_self0:.1f} s, scoring {fan_cpu1['scoring'] - fan_cpu0['scoring']:.1f} s.")
        fan_sec.notes.append(f"{rnd2.accepted} claims at {30 if small else FAN_RATE:g}/s (first game day, "
                             f"{len(bs.players[:rnd2.sent])} players) "
                             f"while {n_clients:,} spectators and one non-reading client were connected; each claim "
                             "puts a territory.changed and a score.updated (a delta: the changed standings and "
                             f"the side quests, at most {probe2.size:,} bytes here) on the feed; fan-out phase "
                             f"{time.perf_counter() - t_fan:.0f} s. All {n_clients + 1:,} spectators connect at "
                             f"once; {probe2.connect_failures} connection attempts got no snapshot and were "
                             "retried (the gateway shares one leaderboard request among concurrent snapshots, and "
                             "services use a blocking Redis pool: before, such a burst hit 'Too many "
                             "connections' in scoring and sockets closed without a snapshot).")
        # ---- claims: warm-up day (takes), then 1 replica, then 2 replicas ----
        warm = bs.claims_round(per_round, conc, 1)
        rounds: list[Round] = []
        load_claims = loadavg()
        bs.cpu_used.clear()
        for _ in range(rounds_each):
            rounds.append(bs.claims_round(per_round, conc, 1))
        used = dict(bs.cpu_used)
        # the opening bell's crowd after the first claim of each town: every claim refused (R10)
        bs.cpu_refused.clear()
        refused = bs.claims_round(per_round, conc, 1, refused=True)
        # latency at 80 % of the rate just measured (open loop), where queueing no longer dominates
        rate_1 = sum(r.accepted for r in rounds) / (sum(r.wall_s for r in rounds) or 1.0)
        at80 = bs.claims_round(per_round, conc, 1, rate=0.8 * rate_1)
        bs.add_claims_replica()
        for _ in range(rounds_each):
            rounds.append(bs.claims_round(per_round, conc, 2))
        bs.add_gateway()   # two claims replicas behind two gateways
        for _ in range(rounds_each):
            rounds.append(bs.claims_round(per_round, conc, 2))
        bs.remove_gateway()
        bs.remove_claims_replica()
        accepted_1 = sum(r.accepted for r in rounds if r.replicas == 1) or 1
        wall_1 = sum(r.wall_s for r in rounds if r.replicas == 1) or 1.0
        per_claim = sorted(((n, v * 1000 / accepted_1) for n, v in used.items()), key=lambda x: -x[1])
        claims_sec.notes.append(
            "CPU per accepted claim by process (1 replica, from /proc, during the rounds plus 0.5 s after each "
            "for the consumers; clock moves excluded): " + ", ".join(
                f"{n} {ms:.1f} ms" for n, ms in per_claim if ms >= 0.05)
            + f"; total {sum(ms for _, ms in per_claim):.1f} ms per claim, i.e. "
            f"{sum(ms for _, ms in per_claim) * accepted_1 / 1000 / wall_1:.2f} cores busy on average for the stack "
            f"during the rounds; load average at the start of the rounds {load_claims} on {os.cpu_count()} cores.")
        # one more day, not counted, with py-spy on the busiest processes
        if not small:
            expect = max(5, int(wall_1 / max(rounds_each, 1) * 1.5) + 3)
            spies = {n: start_py_spy(bs.pids()[n], expect, bs.dir / f"{n}.raw")
                     for n in ("claims", "gateway", "scoring", "cards")}
            time.sleep(1.0)
            bs.claims_round(per_round, conc, 1)
            for spy in spies.values():
                if spy is not None:
                    spy.wait()
            claims_sec.profile = "\n\n".join(summarize(bs.dir / f"{n}.raw", f"{n} (py-spy, one game day of claims)")
                                              for n in spies)

        # ---- anchor: pgbench on the same PostgreSQL ----
        pg = pgbench_anchor(bs.db, 3 if small else 10)

        def agg(rs: list[Round]) -> tuple[float, float, float, int, dict[str, int]]:
            acc = sum(r.accepted for r in rs)
            wall = sum(r.wall_s for r in rs)
            lat = [x for r in rs for x in r.latencies_ms]
            ref: dict[str, int] = {}
            for r in rs:
                for k, v in r.refusals.items():
                    ref[k] = ref.get(k, 0) + v
            return acc / wall if wall else 0.0, percentile(lat, 50), percentile(lat, 99), acc, ref

        one = agg([r for r in rounds if r.replicas == 1])
        two = agg([r for r in rounds if r.replicas == 2 and r.gateways == 1])
        two_gw = agg([r for r in rounds if r.gateways == 2])
        pg16 = pg.get(16)
        claims_sec.rows += [
            Row("claims", "accepted claims/s, 1 claims replica", one[0], "/s", "pgbench 16 clients, tps", pg16,
                goal="≥ 350/s", met=one[0] >= 350,
                note=f"{one[3]:,} accepted in {rounds_each} game days × {per_round} territories, "
                     f"{conc} connections"),
            Row("claims", "latency p50, 1 replica", one[1], "ms"),
            Row("claims", "latency p99, 1 replica, at full load", one[2], "ms",
                note="closed loop: every connection sends again at once, so this is mostly queueing"),
            Row("claims", "latency p99 at 80 % of that rate (open loop)", percentile(at80.latencies_ms, 99), "ms",
                goal="< 100 ms", met=percentile(at80.latencies_ms, 99) < 100,
                note=f"{0.8 * rate_1:,.0f} claims/s offered, {at80.rate:,.0f}/s accepted, "
                     f"p50 {percentile(at80.latencies_ms, 50):.1f} ms"),
            Row("claims", "CPU per accepted claim, whole stack (1 replica)", sum(ms for _, ms in per_claim), "ms",
                goal="≤ 5 ms", met=sum(ms for _, ms in per_claim) <= 5.0,
                note="from /proc, every process of the stack; the split is in the notes"),
            Row("claims", "refused claims/s (R10 locked_today), 1 claims replica", refused.sent / refused.wall_s,
                "/s", "accepted, 1 replica", one[0],
                note=f"{refused.refusals.get('409:locked_today', 0):,} of {refused.sent:,} refused locked_today, "
                     f"p50 {percentile(refused.latencies_ms, 50):.0f} ms"),
            Row("claims", "CPU per refused claim, whole stack (1 replica)",
                sum(bs.cpu_refused.values()) * 1000 / max(refused.sent, 1), "ms",
                note=", ".join(f"{n} {v * 1000 / max(refused.sent, 1):.1f}" for n, v in sorted(
                    bs.cpu_refused.items(), key=lambda x: -x[1]) if v * 1000 / max(refused.sent, 1) >= 0.05)),
            Row("claims", "accepted claims/s, 2 claims replicas", two[0], "/s", "1 replica", one[0],
                note=f"p50 {two[1]:.1f} ms, p99 {two[2]:.1f} ms"),
            Row("claims", "accepted claims/s, 2 claims replicas behind 2 gateways", two_gw[0], "/s", "1 replica",
                one[0], note=f"p50 {two_gw[1]:.1f} ms, p99 {two_gw[2]:.1f} ms; load split evenly between them"),
            Row("claims", "pgbench single-row update, 1 / 4 / 16 clients", pg.get(1), "tps",
                note=" / ".join(f"{pg.get(c, 0):,.0f}" for c in (1, 4, 16)) if pg else "pgbench missing"),
        ]
        claims_sec.notes.append(
            f"Warm-up game day (all takes): {warm.accepted}/{warm.sent} accepted at {warm.rate:,.0f}/s, "
            "not counted. Measured days are all steals (each territory claimed by a player other than its "
            "owner), one claim per territory per game day, because R10 locks a territory for the day once "
            "claimed: a game day has at most one accepted claim per territory, so the run moves the manual "
            "clock one game day per round (clock moves not timed). Refusals in measured rounds: "
            f"{one[4] or 'none'} (1 replica), {two[4] or 'none'} (2 replicas).")
        claims_sec.notes.append("Per-round rates: " + ", ".join(
            f"day {r.day} ({r.replicas}r{f', {r.gateways}gw' if r.gateways > 1 else ''}) {r.rate:,.0f}/s"
            for r in rounds))

        # ---- scoring / feed latency at a paced rate ----
        probe = FeedProbe(nats_url, ws_url)

        async def paced() -> tuple[Round, FeedProbe]:
            rnd, _ = await _paced_with_probe(bs, probe, min(per_round, 150), PACED_RATE, 1, 0)
            await probe.stop()
            return rnd, probe

        paced_rnd, _ = asyncio.run(paced())
        claims_sec.rows.append(Row(
            "claims", f"latency at a paced {PACED_RATE:g} claims/s, p50", percentile(paced_rnd.latencies_ms, 50),
            "ms",
            note=f"p99 {percentile(paced_rnd.latencies_ms, 99):.1f} ms; {paced_rnd.accepted}/{paced_rnd.sent} "
                 "accepted; the rows above are at full load, where latency is mostly queueing "
                 f"({conc} connections / rate)"))
        to_score, to_ws, _, missing = _feed_latencies(probe, 1)
        feed_sec.rows += [
            Row("scoring", "territory.changed → score.updated, p50", percentile(to_score, 50), "ms",
                note=f"p99 {percentile(to_score, 99):.1f} ms over {len(to_score)} changes at {PACED_RATE:g} "
                     f"claims/s, {len(bs.players):,} players registered"),
            Row("scoring", "territory.changed → spectator websocket, p99", percentile(to_ws, 99), "ms",
                goal="< 20 ms", met=percentile(to_ws, 99) < 20,
                note=f"p50 {percentile(to_ws, 50):.1f} ms; {missing} missing"),
        ]

        # ---- a slow spectator under a burst: dropped alone, told to resync ----
        log_path = bs.dir / "logs" / "gateway.log"
        drops_before = log_path.read_text(errors="replace").count("ws_client_dropped")
        n_burst, size_burst = 800, 50_000
        b = asyncio.run(slow_client_burst(nats_url, ws_url, n_burst, size_burst))
        drops = log_path.read_text(errors="replace").count("ws_client_dropped") - drops_before
        fan_sec.rows.append(Row(
            "fan-out", f"slow client under a burst of {n_burst} × {size_burst // 1000} kB: dropped alone, resync",
            1.0 if b["slow_resync"] else 0.0, "", goal="yes, alone",
            met=bool(b["slow_resync"]) and drops == 1 and b["reader_got"] == n_burst,
            note=f"reader received {b['reader_got']}/{n_burst} in {b['reader_s']:.1f} s; the non-reading client "
                 f"got {b['slow_got']} when released, then {'resync' if b['slow_resync'] else 'no resync'}; "
                 f"{drops} client(s) dropped by the hub"))
        claims_sec.notes.append(f"Stack start and seeding {n_players:,} players took {t_setup:.0f} s.")
    finally:
        bs.stop()
    claims_sec.seconds = time.perf_counter() - t0
    return [geo_sec, claims_sec, feed_sec, fan_sec]
