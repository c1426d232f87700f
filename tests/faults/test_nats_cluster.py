"""Faults: a local 3-node NATS cluster (JetStream, stream replicas 3) with two replicas of each service.
One NATS node and one replica of every service are killed mid-load: the system keeps serving and loses nothing."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import nats
import psycopg
import pytest

from tests.support.bus import submit_cmd
from tests.support.client import Player, move_clock, organizer, until
from tests.support.stackfix import running_stack
from turf_common.board import load_board
from turf_common.contracts import subjects
from turfwar import embedded
from turfwar.stack import SERVICES, Stack
from turfwar.verify import differences

T0 = datetime.fromisoformat("2026-10-05T08:00:00-04:00")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, list[embedded.Server]]]:
    d: Path = tmp_path_factory.mktemp("cluster")
    nodes = embedded.start_nats_cluster(d, 3)
    try:
        with running_stack(d, TURF_NATS_URL=",".join(n.url for n in nodes), TURF_STREAM_REPLICAS="3") as s:
            replicas = [f"{name}#2" for name in SERVICES if name not in ("clock", "gateway")]
            for name in replicas:             # one clock: it alone emits the day events
                s.start_process(name)
            for name in replicas:
                s.wait_started(name)
            yield s, nodes
    finally:
        for n in nodes:
            n.stop()


def test_cluster_survives_a_node_and_a_replica_of_each_service(cluster: tuple[Stack, list[embedded.Server]]
                                                               ) -> None:
    stack, nodes = cluster
    http = httpx.Client(base_url=stack.base_url, timeout=60)
    org = organizer(http)
    move_clock(org, T0)
    territories = sorted(load_board().territories)
    players = [uuid.uuid4().hex for _ in range(len(territories))]
    acked: set[str] = set()
    unanswered: set[str] = set()

    async def load() -> None:
        nc = await nats.connect(servers=[n.url for n in nodes], max_reconnect_attempts=-1, reconnect_time_wait=0.2)
        sem = asyncio.Semaphore(16)

        async def one(p: str, t: str) -> None:
            async with sem:
                for _ in range(12):  # a client retries a request that got no answer, with the same idempotency key
                    try:
                        r = json.loads((await nc.request(subjects.CLAIMS_SUBMIT, submit_cmd(
                            p, t, T0, key="k-" + p).model_dump_json().encode(), timeout=5)).data)
                    except (nats.errors.TimeoutError, nats.errors.NoRespondersError, nats.errors.ConnectionClosedError):
                        await asyncio.sleep(0.5)
                        continue
                    if r.get("ok"):
                        acked.add(p)
                    unanswered.discard(p)
                    return
                unanswered.add(p)

        tasks = [asyncio.create_task(one(p, t)) for p, t in zip(players, territories, strict=True)]
        await asyncio.sleep(0.5)
        nodes[0].proc.kill()                            # one NATS node, mid-load
        nodes[0].proc.wait(10)
        for name in SERVICES:
            if name not in ("clock", "gateway"):
                stack.kill(name, 9)                     # one replica of each service; "#2" carries on
        await asyncio.gather(*tasks)
        await nc.close()

    asyncio.run(load())
    assert len(acked) > 0.9 * len(players), (len(acked), len(unanswered))
    # the surviving replicas and nodes finish the work: the feed and scores catch up with everything acknowledged
    org2 = organizer(http)
    _move_clock_after_failover(org2, datetime.fromisoformat("2026-10-05T08:05:00-04:00"))
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        stored = [r[0] for r in conn.execute("SELECT player_id FROM claims.claims")]
    assert len(stored) == len(set(stored)) and acked <= set(stored)
    # a barrier, not a pause: every committed claim's events are in the stream (the surviving relay's sweep sends
    # what a flush cut by the dead node left), then differences() waits for every consumer, leaderless ones too
    assert until(lambda: _unsent(stack.env["TURF_DATABASE_URL"]), lambda n: n == 0, 60, every=0.2) == 0
    assert differences(load_board(), stack.env["TURF_DATABASE_URL"], ",".join(n.url for n in nodes[1:]),
                       stack.env["TURF_STREAM"]) == []
    lb = http.get("/api/v1/leaderboard").json()
    assert len([s for s in lb["standings"] if s["base"] > 0]) == len(set(stored))


def _move_clock_after_failover(org: Player, at: datetime, within: float = 60.0) -> None:
    """Move the manual clock as an organizer would right after a NATS node died: while the stream elects a new
    leader (seconds, longer on a loaded machine) the clock's publish finds no stream and the move is answered 503
    ``unavailable`` ("try again"); its boundaries are committed and the same move again emits nothing twice. A move
    still refused after ``within`` seconds fails the test."""
    r = until(lambda: org.post("/admin/clock", {"now": at.isoformat()}), lambda r: r.status_code != 503, within,
              every=1.0)
    assert r.status_code == 200, r.text


def _unsent(database_url: str) -> int:
    """Outbox rows of claims not yet in the stream."""
    with psycopg.connect(database_url) as conn:
        return int(conn.execute("SELECT count(*) FROM claims.outbox WHERE published_at IS NULL").fetchone()[0])
