"""The floor under the opening bell on this machine. CPU per request of the parts every request of the
bell passes through, each with nothing of ours in it:

- ``http``: uvicorn (uvloop, httptools, as the gateway runs it) serving a bare FastAPI app, one POST route that parses
  a pydantic body like a claim's and returns a response model; no middleware, no I/O. The server process's CPU;
- ``loader``: the benchmark's own load generator (bench/loadgen.py) sending those requests: this process's CPU;
- ``nats``: a FastStream request/reply on embedded NATS, a pydantic command in and a reply out, requester and
  subscriber in one process (both ends), with NATS's own CPU beside it;
- ``postgres``: one transaction inserting one row (SQLAlchemy async over psycopg 3, as the services write), 16 at
  once: this process's CPU and PostgreSQL's (postmaster and backends).

``python -m bench.floor [requests]``: prints each floor in ms of CPU per request and the arithmetic of the bell."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import loadgen
from bench.openingbell import WINDOW_S, arrivals
from turfwar.embedded import start_nats

APP = '''
from fastapi import FastAPI
from pydantic import BaseModel, Field

class Fix(BaseModel):
    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)
    accuracy_m: float = Field(gt=0, le=5000)
    fix_time: str

class Answer(BaseModel):
    allowed: bool
    territory_id: str | None
    reason: str | None

app = FastAPI()

@app.post("/check", response_model=Answer)
async def check(fix: Fix) -> Answer:
    return Answer(allowed=False, territory_id="34017-32250", reason="locked_today")
'''


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_floor(n: int) -> tuple[float, float]:
    """(server CPU ms per request, loader CPU ms per request) over ``n`` requests on 64 keep-alive connections."""
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "floorapp.py").write_text(APP)
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "floorapp:app", "--port", str(port),
                                 "--log-level", "warning", "--no-access-log"], cwd=d)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            body = {"lat": 40.7440, "lon": -74.0324, "accuracy_m": 8.0, "fix_time": "2026-10-05T06:00:01-04:00"}
            reqs = [loadgen.Request("POST", "/check", {"Authorization": "Bearer x" * 4}, body) for _ in range(n)]
            asyncio.run(loadgen.run("127.0.0.1", port, reqs[: n // 10], 64))   # warm up
            s0, l0 = cpu_s(proc.pid), cpu_s(os.getpid())
            results, _ = asyncio.run(loadgen.run("127.0.0.1", port, reqs, 64))
            s1, l1 = cpu_s(proc.pid), cpu_s(os.getpid())
            assert all(r.status == 200 for r in results), {r.status for r in results}
            return (s1 - s0) * 1000 / n, (l1 - l0) * 1000 / n
        finally:
            proc.terminate()
            proc.wait()


def nats_floor(n: int) -> tuple[float, float]:
    """(CPU ms per request/reply, both ends in this process; NATS server CPU ms per request)."""
    from bench.middleware import run as run_variant

    with tempfile.TemporaryDirectory() as d:
        srv = start_nats(Path(d))
        try:
            asyncio.run(run_variant(srv.url, "none", n // 10))   # warm up
            pid = srv.proc.pid
            n0 = cpu_s(pid)
            ms, _ = asyncio.run(run_variant(srv.url, "none", n))
            return ms, (cpu_s(pid) - n0) * 1000 / n
        finally:
            srv.stop()


def pg_floor(n: int) -> tuple[float, float]:
    """(client CPU ms per transaction, PostgreSQL CPU ms per transaction)."""
    from sqlalchemy import text

    from bench.profiling import tree_cpu_seconds
    from turf_common.db import make_engine
    from turfwar.embedded import start_postgres

    async def go(url: str, pid: int) -> tuple[float, float]:
        engine = make_engine(url.replace("postgresql://", "postgresql+psycopg://"), pool_size=16)
        async with engine.begin() as c:
            await c.execute(text("CREATE TABLE IF NOT EXISTS floor (id bigserial PRIMARY KEY, body jsonb)"))

        async def writer(k: int) -> None:
            for _ in range(k):
                async with engine.begin() as c:
                    await c.execute(text("INSERT INTO floor (body) VALUES (CAST(:b AS jsonb))"), {"b": '{"a": 1}'})

        await asyncio.gather(*(writer(n // 160) for _ in range(16)))   # warm up
        c0, p0 = cpu_s(os.getpid()), tree_cpu_seconds(pid)
        await asyncio.gather(*(writer(n // 16) for _ in range(16)))
        c1, p1 = cpu_s(os.getpid()), tree_cpu_seconds(pid)
        await engine.dispose()
        done = n // 16 * 16
        return (c1 - c0) * 1000 / done, (p1 - p0) * 1000 / done

    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)   # the pgserver user must reach its data directory
        srv = start_postgres(Path(d))
        try:
            return asyncio.run(go(srv.url, srv.proc.pid))
        finally:
            srv.stop()


def first_seconds_share(n: int, seconds: float) -> float:
    """The share of a bell of ``n`` players arriving in its first ``seconds``."""
    return sum(t < seconds for t in arrivals(n)) / n


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    server, loader = http_floor(n)
    nats_ms, nats_server = nats_floor(n // 4)
    pg_client, pg_server = pg_floor(n // 4)
    print(f"| floor | CPU ms per request |\n|---|---|\n| uvicorn + FastAPI, bare route | {server:.3f} |\n"
          f"| the loader (bench/loadgen.py) | {loader:.3f} |\n| FastStream request/reply, both ends | {nats_ms:.3f} |\n"
          f"| nats-server per request/reply | {nats_server:.3f} |\n"
          f"| one INSERT transaction, the client (SQLAlchemy + psycopg) | {pg_client:.3f} |\n"
          f"| one INSERT transaction, PostgreSQL | {pg_server:.3f} |")
    players, per_player = 10_000, 4
    share = first_seconds_share(players, 10.0)
    budget = 2 * 1000 * WINDOW_S / players
    burst = 2 * 1000 * 10.0 / (players * share)
    hop = nats_ms + nats_server
    # a lower bound of the bell's path with no code of ours: four HTTP requests (and the loader's four sends);
    # check and claim each ask claims, which asks geo-verify; GET /me asks claims, GET /me/hand cards; the claim
    # commits one transaction. Left out (all of them cost more): session lookups, rate limits, rules, the events a
    # claim publishes and every consumer of them, the hand's read
    floor = per_player * (server + loader) + 6 * hop + pg_client + pg_server
    print(f"\nThe bell's goal, {players:,} players in {WINDOW_S:.0f} s on 2 cores: {budget:.1f} ms of CPU per player "
          f"on average, loader included; {share:.0%} arrive in the first 10 s, so serving that burst as it comes "
          f"leaves {burst:.1f} ms a player. The floor of one player's path (4 requests, 6 service hops, one "
          f"transaction, nothing of ours): {floor:.2f} ms.")

if __name__ == "__main__":
    main()
