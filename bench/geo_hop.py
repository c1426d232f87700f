"""The claim path's geo-verify hop: CPU per claim of ``geo.verify`` asked once per batch, both ends.

``python -m bench.geo_hop [claims]``: a real NATS server (the embedded one), geo-verify's subscriber on the full
board and the claims service's :class:`~turf_claims.adapters.geo.NatsGeo` in this one process, so
``time.process_time`` counts both ends (the requester's encoding and decoding, the subscriber's decoding, R7 and
R7.1, encoding, and nats-py/FastStream on both sides); the NATS server's own CPU is read from /proc and shown
apart. Each claim's fix lies in a town (its label point, jittered by metres) with a trail of ``trail`` earlier
fixes. A small benchmark, not part of ``python -m bench``.

Measured 2026-12-04 on the shared 2-core machine (other suites running), 2,000 claims, µs of CPU per claim, both
ends, less the rules' own work (locate, R7, R7.1's screening, which the claims service did in-process before):
batches of 32: 52 (no trail), 106 (10 fixes), 393 (100 fixes); of 8: 212, 245, 644; alone: 875, 1,332, 1,321.
The NATS server adds 10–40 per claim in batches of 32. A trail's fixes cost about 3 µs each to carry.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from turf_claims.adapters.geo import NatsGeo
from turf_common.bus import make_broker
from turf_common.contracts.claims import Fix
from turf_common.contracts.geo import FixToVerify, TrailFix, VerifyFixes
from turf_geo import bootstrap, entrypoints
from turf_geo.adapters.board import LoadedBoard
from turfwar.embedded import start_nats

T0 = datetime(2026, 10, 5, 15, 0, tzinfo=UTC)


def _fixes(board: LoadedBoard, n: int, trail: int, rng: random.Random) -> list[FixToVerify]:
    towns = list(board.board.territories.values())
    out = []
    for _ in range(n):
        lat, lon = rng.choice(towns).label_point
        lat, lon = lat + rng.uniform(-1e-4, 1e-4), lon + rng.uniform(-1e-4, 1e-4)
        earlier: list[TrailFix] = [(lat + k * 1e-5, lon, 8.0, T0 - timedelta(minutes=trail - k),
                                    T0 - timedelta(minutes=trail - k)) for k in range(trail)]
        out.append(FixToVerify.model_construct(fix=Fix(lat=lat, lon=lon, accuracy_m=8.0,
                                                       fix_time=T0 - timedelta(seconds=3)),
                                               received_at=T0, trail=earlier))
    return out


def _server_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _run(url: str, pid: int, board: LoadedBoard, claims: int) -> None:
    server = make_broker(url, "geo-verify")
    server.include_router(entrypoints.router(bootstrap.handlers(board), "TURF"))
    client = make_broker(url, "claims")
    await server.start()
    await client.connect()
    geo, h = NatsGeo(client), bootstrap.handlers(board)
    rng = random.Random(28)
    print(f"{'batch':>5} {'trail':>5} {'requests':>8} {'CPU µs/claim (both ends)':>25} {'of which R7+R7.1':>17} "
          f"{'hop':>5} {'+ NATS server':>14} {'wall ms/request':>16}")
    for trail in (0, 10, 100):
        for batch in (1, 8, 32):
            fixes = _fixes(board, claims, trail, rng)
            await geo.verify(fixes[:batch])   # warm
            cpu, srv, wall = time.process_time(), _server_cpu(pid), time.perf_counter()
            for i in range(0, claims, batch):
                verdicts = await geo.verify(fixes[i:i + batch])
                assert all(v.located.territory_id for v in verdicts)
            cpu, srv = time.process_time() - cpu, _server_cpu(pid) - srv
            wall = time.perf_counter() - wall
            reqs = -(-claims // batch)
            # the rules' own work (locate, R7, R7.1's screening), which the claims service did in-process before
            asks = [VerifyFixes.model_validate_json(VerifyFixes(fixes=fixes[i:i + batch]).model_dump_json())
                    for i in range(0, claims, batch)]
            rules = time.process_time()
            for q in asks:
                h.verify(q)
            rules = time.process_time() - rules
            print(f"{batch:>5} {trail:>5} {reqs:>8} {cpu / claims * 1e6:>25.0f} {rules / claims * 1e6:>17.0f} "
                  f"{(cpu - rules) / claims * 1e6:>5.0f} {srv / claims * 1e6:>14.0f} {wall / reqs * 1e3:>16.2f}")
    await client.stop()
    await server.stop()


def main() -> None:
    claims = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    board = LoadedBoard.load(None)
    with tempfile.TemporaryDirectory() as d:
        nats = start_nats(Path(d))
        try:
            asyncio.run(_run(nats.url, nats.proc.pid, board, claims))
        finally:
            nats.stop()


if __name__ == "__main__":
    main()
