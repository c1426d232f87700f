"""The history benchmarks, on a real stack: a town's history of 10,000 events, a player's journal, a replay page
(each against the same query straight on PostgreSQL), a ``since`` resume after 1,000 missed messages (against
reading the same messages straight from JetStream), and ``GET /board`` under 200 concurrent spectators (against
the uncached board's work: ``claims.state`` over NATS and the serialisation, per request).

The 10,000 history rows are written straight into the gateway's feed log (what its consumer would have stored
after 10,000 changes of one town: the benchmark measures the reads, not a season of claims); the 1,000 missed
messages are real events published to the stream (``card.drawn``, which no service acts on)."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx
import psycopg

from bench.common import Row, Section, percentile
from bench.stackbench import API, BenchStack
from turf_common.contracts.cards import CardDrawn

NAME = "6. history, replay, resume, cached board"
EVENTS = 10_000
MISSED = 1_000
SPECTATORS = 200
UNCACHED = 50       # concurrent uncached builds for the anchor: 200 at once time out in claims.state on 2 cores
BASE_SEQ = 10**12   # the synthetic rows' sequences, far above the stream's own


def _median_ms(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _seed_log(db: str, tid: str, players: list[str]) -> None:
    """EVENTS changes of town ``tid``, owners alternating between the first two players (a steal each)."""
    t0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    rows = []
    for k in range(EVENTS):
        owner, prev = players[k % 2], players[(k + 1) % 2]
        at = t0 + timedelta(minutes=k)
        body = {"type": "territory.changed", "at": at.isoformat(), "seq": BASE_SEQ + k, "territory_id": tid,
                "owner_id": owner, "previous_owner_id": prev, "progress": 1, "fortified": False, "version": k + 1,
                "cause": "claim", "claim_id": uuid.uuid4().hex, "event_id": uuid.uuid4().hex,
                "occurred_at": at.isoformat()}
        rows.append((BASE_SEQ + k, "territory.changed", at, tid, [owner, prev], json.dumps(body)))
    with psycopg.connect(db) as c, c.cursor() as cur:
        cur.executemany("insert into gateway.feed_log (seq, type, at, territory_id, players, body) "
                        "values (%s, %s, %s, %s, %s, %s::jsonb)", rows)


async def _resume(bs: BenchStack, stream: str, player: str) -> tuple[float, float, int]:
    """(ms until a spectator resuming with since= has every missed message, ms for an ordered consumer to read
    them straight from JetStream, messages received on the socket)."""
    import nats
    import websockets
    from nats.js import api as jsapi

    ws_url = bs.stack.base_url.replace("http", "ws", 1) + API + "/ws/scores"
    async with websockets.connect(ws_url) as ws:
        since = json.loads(await ws.recv())["seq"]
    nc = await nats.connect(bs.stack.env["TURF_NATS_URL"])
    js = nc.jetstream()
    for k in range(MISSED):
        ev = CardDrawn(occurred_at=datetime.fromisoformat("2026-10-05T06:00:00-04:00"), season_id="2026",
                       player_id=player, card_id=uuid.uuid4().hex, card_type="freeze", draw_index=k,
                       reason="correction")
        await js.publish("card.drawn", ev.model_dump_json().encode(), stream=stream)
    await asyncio.sleep(0.5)   # the gateway's live feed has them too: the resume reads them back
    t0 = time.perf_counter()
    got = 0
    async with websockets.connect(f"{ws_url}?since={since}", max_size=2**24) as ws:
        while got < MISSED:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if msg.get("type") == "card.drawn":
                got += 1
    resume_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    sub = await js.subscribe("card.drawn", stream=stream, ordered_consumer=True,
                             config=jsapi.ConsumerConfig(deliver_policy=jsapi.DeliverPolicy.BY_START_SEQUENCE,
                                                         opt_start_seq=since + 1))
    n = 0
    while n < MISSED:
        await sub.next_msg(timeout=10)
        n += 1
    raw_ms = (time.perf_counter() - t0) * 1000
    await sub.unsubscribe()
    await nc.close()
    return resume_ms, raw_ms, got


async def _board_burst(base: str, headers: dict[str, str]) -> tuple[float, list[float]]:
    """(wall ms, per-request ms) of SPECTATORS concurrent GET /board."""
    lat: list[float] = []
    limits = httpx.Limits(max_connections=SPECTATORS, max_keepalive_connections=SPECTATORS)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as c:
        await c.get(API + "/clock")

        async def one() -> None:
            t0 = time.perf_counter()
            # the bytes as sent (not decompressed here: the client shares the 2 cores with the gateway)
            async with c.stream("GET", API + "/board", headers=headers) as r:
                assert r.status_code in (200, 304), r.status_code
                async for _ in r.aiter_raw():
                    pass
            lat.append((time.perf_counter() - t0) * 1000)

        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(SPECTATORS)))
        return (time.perf_counter() - t0) * 1000, lat


async def _uncached_board_work(nats_url: str, n: int) -> float:
    """Wall ms of ``n`` concurrent uncached builds' work, as the gateway did it per request before the cache:
    ``claims.state`` over NATS, the FeatureCollection serialised, its ETag hashed (no HTTP: a lower bound)."""
    import hashlib

    import nats

    from turf_common.board import load_board

    board = load_board()
    feats = json.loads(board.display_geojson_path().read_text())["features"]
    nc = await nats.connect(nats_url)

    async def one() -> None:
        rep = json.loads((await nc.request("claims.state", b"{}", timeout=120)).data)
        own = {x["id"]: x for x in rep["territories"]}
        out = [{"type": "Feature", "id": f["properties"]["id"],
                "properties": board.feature_properties(f["properties"]["id"]) | own.get(f["properties"]["id"], {}),
                "geometry": f["geometry"]} for f in feats]
        data = json.dumps({"type": "FeatureCollection", "features": out}, separators=(",", ":")).encode()
        hashlib.sha256(data).hexdigest()

    t0 = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    ms = (time.perf_counter() - t0) * 1000
    await nc.close()
    return ms


def run(small: bool = False) -> Section:
    sec = Section(NAME)
    started = time.perf_counter()
    bs = BenchStack(small)
    try:
        bs.start()
        bs.seed_players(20)
        players = [p.id for p in bs.players]
        tid = bs.tids[0]
        _seed_log(bs.db, tid, players)
        reps = 5 if small else 20
        stream = bs.stack.env.get("TURF_STREAM") or "TURF"
        with httpx.Client(base_url=bs.stack.base_url, timeout=120) as http, psycopg.connect(bs.db) as pg:
            assert len(http.get(f"{API}/territories/{tid}/history").json()["history"]) == EVENTS
            ours = _median_ms(lambda: http.get(f"{API}/territories/{tid}/history").json(), reps)
            anchor = _median_ms(lambda: pg.execute(
                "select body from gateway.feed_log where territory_id = %s and type = 'territory.changed' "
                "order by seq", (tid,)).fetchall(), reps)
            sec.rows.append(Row(NAME, f"GET /territories/{{id}}/history, {EVENTS:,} events, median", ours, "ms",
                                "the same query on PostgreSQL (psycopg)", anchor, higher_is_better=False))
            ours = _median_ms(lambda: http.get(f"{API}/players/{players[0]}/history").json(), reps)
            anchor = _median_ms(lambda: pg.execute(
                "select body from gateway.feed_log where players @> array[%s]::varchar[] order by seq",
                (players[0],)).fetchall(), reps)
            sec.rows.append(Row(NAME, f"GET /players/{{id}}/history, {EVENTS:,} entries with daily totals, median",
                                ours, "ms", "the same query on PostgreSQL", anchor, higher_is_better=False))
            after = BASE_SEQ + EVENTS // 2
            ours = _median_ms(lambda: http.get(f"{API}/replay", params={"limit": 1000, "after_seq": after},
                                               headers={"Accept-Encoding": "gzip"}).json(), reps)
            anchor = _median_ms(lambda: pg.execute(
                "select seq, body from gateway.feed_log where seq > %s order by seq limit 1001",
                (after,)).fetchall(), reps)
            sec.rows.append(Row(NAME, "GET /replay, a page of 1,000 (gzip), median", ours, "ms",
                                "the same query on PostgreSQL", anchor, higher_is_better=False))
        resume_ms, raw_ms, got = asyncio.run(_resume(bs, stream, players[0]))
        sec.rows.append(Row(NAME, f"WS ?since= resume after {MISSED:,} missed messages, until the last",
                            resume_ms, "ms", "an ordered consumer reading them from JetStream", raw_ms,
                            higher_is_better=False, note=f"{got}/{MISSED} received"))
        base = bs.stack.base_url
        asyncio.run(_board_burst(base, {}))   # warm: the cache holds this version
        wall, lat = asyncio.run(_board_burst(base, {"Accept-Encoding": "gzip"}))
        uncached = asyncio.run(_uncached_board_work(bs.stack.env["TURF_NATS_URL"], UNCACHED))
        sec.rows.append(Row(NAME, f"GET /board, {SPECTATORS} concurrent spectators (gzip): wall per spectator answered",
                            wall / SPECTATORS, "ms",
                            f"uncached: wall per build of {UNCACHED} concurrent (claims.state + serialise + ETag, "
                            "no HTTP; 200 at once time out)", uncached / UNCACHED, higher_is_better=False,
                            note=f"{SPECTATORS} answered in {wall:.0f} ms; per request p50 "
                                 f"{percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms"))
        etag = httpx.get(base + API + "/board").headers["etag"]
        wall, lat = asyncio.run(_board_burst(base, {"If-None-Match": etag}))
        sec.rows.append(Row(NAME, f"GET /board 304s, {SPECTATORS} concurrent (If-None-Match): wall per spectator",
                            wall / SPECTATORS, "ms",
                            note=f"{SPECTATORS} answered in {wall:.0f} ms; per request p50 "
                                 f"{percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms"))
    finally:
        bs.stop()
    sec.seconds = time.perf_counter() - started
    return sec
