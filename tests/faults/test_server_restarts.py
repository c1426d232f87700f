"""Faults: PostgreSQL and NATS restart mid-load. While one is down, clients get 503 ``unavailable`` (never a
500, never a hang); nothing acknowledged is lost, and the system serves again by itself afterwards."""

from __future__ import annotations

import time
from datetime import datetime

import httpx
import psycopg
import pytest

from tests.support.client import Player, move_clock, register, verified_player
from turf_common.board import load_board
from turfwar.stack import Stack
from turfwar.verify import differences

# also run on the containers backend in CI (deploy/ci/containers-tests.sh)
pytestmark = pytest.mark.containers

T0 = datetime.fromisoformat("2026-10-05T08:00:00-04:00")


def _points(n: int) -> list[tuple[float, float]]:
    board = load_board()
    return [board.territories[t].label_point for t in sorted(board.territories)[:n]]


def _claim_all(players: list[Player], points: list[tuple[float, float]], at: datetime) -> dict[str, int]:
    codes: dict[str, int] = {}
    for p, (lat, lon) in zip(players, points, strict=False):
        r = p.claim(lat, lon, at)
        codes[p.id] = r.status_code
        assert r.status_code in (201, 409, 503), r.text
        if r.status_code == 503:
            assert r.json()["reason"] == "unavailable"
    return codes


def _acked_present(stack: Stack, players: list[Player], codes: dict[str, int]) -> None:
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        owners = {r[0] for r in conn.execute("SELECT player_id FROM claims.claims")}
    assert {pid for pid, c in codes.items() if c == 201} <= owners


def test_postgres_restart_gives_503_then_recovers(stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    players = [verified_player(http, org) for _ in range(12)]
    points = _points(12)
    before = _claim_all(players[:4], points[:4], T0)
    assert set(before.values()) == {201}
    port = stack.stop_server("postgres")
    try:
        r = players[4].claim(*points[4], T0)
        assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text
        r = players[4].get("/me")
        assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text
        assert _ready(http) == (503, {"nats": True, "postgres": False, "redis": True})
    finally:
        stack.start_server("postgres", port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and players[5].get("/me").status_code != 200:
        time.sleep(0.5)
    after = _claim_all(players[5:8], points[5:8], T0)
    assert set(after.values()) == {201}
    _acked_present(stack, players, before | after)
    assert _ready(http) == (200, {"nats": True, "postgres": True, "redis": True})


def _metric(http: httpx.Client, series: str) -> float:
    """One series' value on the gateway's /metrics (Prometheus text), 0 when absent."""
    for line in http.get("/metrics").text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def _ready(http: httpx.Client) -> tuple[int, dict[str, bool]]:
    """``GET /ready`` (what a load balancer or Kubernetes' readinessProbe asks): status and which server is up."""
    r = http.get("/ready")
    return r.status_code, {name: c["ok"] for name, c in r.json()["checks"].items()}


def test_redis_outage_gives_503_then_recovers_and_readiness_names_it(stack: Stack, http: httpx.Client,
                                                                     org: Player) -> None:
    """While Redis (rate limits, idempotency keys, leaderboard) is down, what needs it answers 503
    ``unavailable``, never a plain 500, and nothing is claimed; ``/health`` says the process runs, ``/ready`` names
    Redis as the server it cannot reach. Once Redis is back, the same requests succeed by themselves."""
    assert _ready(http) == (200, {"nats": True, "postgres": True, "redis": True})
    at = T0
    move_clock(org, at)   # where the module's clock stands (this test may also run alone)
    player = verified_player(http, org)
    (point,) = _points(41)[40:]
    port = stack.stop_server("redis")
    try:
        r = http.get("/ready")
        assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text
        assert "redis" in r.json()["message"] and _ready(http)[1] == {"nats": True, "postgres": True, "redis": False}
        assert http.get("/health").status_code == 200
        # (the test stacks run without rate limits: a claim with an Idempotency-Key is what asks Redis here)
        for r in (player.claim(*point, at, key="redis-down"), http.get("/api/v1/leaderboard")):
            assert r.status_code == 503 and r.json()["reason"] == "unavailable", (r.request.url, r.text)
    finally:
        stack.start_server("redis", port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _ready(http)[0] != 200:
        time.sleep(0.5)
    assert _ready(http) == (200, {"nats": True, "postgres": True, "redis": True})
    r = player.claim(*point, at, key="redis-down")
    assert r.status_code == 201 and r.json()["kind"] == "take", r.text   # the refused claim had changed nothing
    assert http.get("/api/v1/leaderboard").status_code == 200


def test_nats_restart_gives_503_then_recovers(stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)   # where the module's clock stands (this test may also run alone)
    players = [verified_player(http, org) for _ in range(6)]
    points = _points(30)[20:26]
    port = stack.stop_server("nats")
    try:
        r = players[0].claim(*points[0], T0)
        assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text
        # a verification is dated by the game clock (NATS KV): refused whole with 503, never a 500;
        # the gateway's request metrics count the 503s (the lag gauge: tests/integration/test_outbox_lag.py)
        r = org.post(f"/admin/players/{register(http)[0]}/verify", {"reason": "while NATS is down"})
        assert r.status_code in (200, 503) and (r.status_code == 200 or r.json()["reason"] == "unavailable"), r.text
        assert _metric(http, 'turf_http_requests_total{method="POST",route="/api/v1/claims",status="503"}') >= 1, [
            line for line in http.get("/metrics").text.splitlines() if "http_requests_total{" in line]
    finally:
        stack.start_server("nats", port)
    deadline = time.monotonic() + 30
    codes: dict[str, int] = {}
    while time.monotonic() < deadline:
        r = players[1].claim(*points[1], T0)
        codes[players[1].id] = r.status_code
        if r.status_code == 201:
            break
        time.sleep(0.5)
    assert codes[players[1].id] == 201, r.text
    rest = _claim_all(players[2:], points[2:], T0)
    assert set(rest.values()) == {201}
    # events published while NATS was back flow to scoring: the live leaderboard equals a recompute
    move_clock(org, datetime.fromisoformat("2026-10-05T08:05:00-04:00"))
    assert differences(load_board(), stack.env["TURF_DATABASE_URL"], stack.env["TURF_NATS_URL"],
                       stack.env["TURF_STREAM"]) == []
    _acked_present(stack, players, codes | rest)
