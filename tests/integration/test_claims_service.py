"""The claims service through NATS and Postgres — per-territory serialisation, idempotency, anti-spoofing."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timedelta

import httpx
import nats
import pytest

from tests.support.bus import request, stream_events, submit_cmd
from tests.support.client import Player, move_clock, verified_player
from turf_common.board import load_board
from turf_common.contracts import subjects
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)


@pytest.fixture(scope="module")
def opened(org: Player) -> datetime:
    move_clock(org, T0)
    return T0


def test_r10_race_twenty_players_one_territory_one_winner_100_times(stack: Stack, opened: datetime) -> None:
    """R10 + DESIGN "Concurrency": N simultaneous claims on one territory → exactly 1 accepted, N−1 locked_today."""
    territories = sorted(load_board().territories)[-100:]  # NY ones; the tests below claim in NJ

    async def go() -> list[tuple[int, int, set[str]]]:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        results = []
        for tid in territories:
            cmds = [submit_cmd(uuid.uuid4().hex, tid, opened) for _ in range(20)]
            replies = await asyncio.gather(*(request(nc, subjects.CLAIMS_SUBMIT, c.model_dump_json().encode())
                                             for c in cmds))
            ok = sum(1 for r in replies if r.get("ok") is True)
            reasons = {r["reason"] for r in replies if r.get("ok") is False}
            results.append((ok, len(replies) - ok, reasons))
        await nc.close()
        return results

    results = asyncio.run(go())
    assert all(ok == 1 for ok, _, _ in results), [r for r in results if r[0] != 1]
    assert all(refused == 19 and reasons == {"locked_today"} for _, refused, reasons in results)
    changed = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                        subjects.TERRITORY_CHANGED))
    per_territory = {}
    for ev in changed:
        per_territory[ev["territory_id"]] = per_territory.get(ev["territory_id"], 0) + 1
    assert all(per_territory[t] == 1 for t in territories)


def test_idempotency_key_returns_the_first_answer_and_claims_once(http: httpx.Client, org: Player,
                                                                  opened: datetime) -> None:
    p = verified_player(http, org)
    key = uuid.uuid4().hex
    first = p.claim(*HOBOKEN, opened, key=key)
    again = p.claim(*HOBOKEN, opened, key=key)
    assert first.status_code in (201, 409)
    assert (again.status_code, again.json()) == (first.status_code, first.json())
    # a new key is a new attempt: the allowance is spent, so it is refused
    other = p.claim(*HOBOKEN, opened, key=uuid.uuid4().hex)
    assert other.status_code == 409 and other.json()["reason"] in ("no_claims_left", "locked_today")
    assert p.get("/me").json()["claims_left_today"] == (0 if first.status_code == 201 else 1)


def test_flags_impossible_travel_zero_accuracy_and_replays_without_changing_decisions(
        http: httpx.Client, org: Player, opened: datetime) -> None:
    honest = verified_player(http, org)
    cheat = verified_player(http, org)
    r = cheat.claim(*NEWARK, opened, accuracy_m=0.0)     # zero accuracy: accepted, flagged
    assert r.status_code == 201, r.text
    claim_id = r.json()["claim_id"]
    # one minute later, 12 km away: refused on the rules (no claims left) and flagged as impossible travel
    move_clock(org, opened + timedelta(minutes=1))
    r = cheat.claim(*HOBOKEN, opened + timedelta(minutes=1))
    assert r.status_code == 409 and r.json()["reason"] in ("no_claims_left", "locked_today")
    # the very same fix again, from a phone that did not move (a retry): not a reason to flag (R7.1, amended)
    body = {"lat": HOBOKEN[0], "lon": HOBOKEN[1], "accuracy_m": 8.0,
            "fix_time": (opened + timedelta(minutes=1) - timedelta(seconds=3)).isoformat()}
    assert cheat.post("/claims", body).status_code == 409
    # the first (Newark) fix again, after the trail went to Hoboken: a replay, and a jump back
    assert cheat.claim(*NEWARK, opened, accuracy_m=0.0).status_code == 409
    r = honest.claim(40.7420, -74.0300, opened + timedelta(minutes=1))  # an honest fix elsewhere in Hoboken
    flags = org.get("/admin/flags").json()["flags"]
    mine = [f for f in flags if f["player_id"] == cheat.id]
    kinds = sorted(f["kind"] for f in mine)
    assert kinds == ["impossible_travel", "impossible_travel", "repeated_fix", "zero_accuracy", "zero_accuracy"], mine
    zero = next(f for f in mine if f["kind"] == "zero_accuracy")
    assert zero["claim_id"] == claim_id
    # the two jumps were flagged at one instant of the manual clock: told apart by where they went, not by order
    travels = {f["evidence"]["to"]["lat"]: f["evidence"] for f in mine if f["kind"] == "impossible_travel"}
    assert set(travels) == {HOBOKEN[0], NEWARK[0]}, mine
    travel = travels[HOBOKEN[0]]
    assert travel["speed_kmh"] > 200 and travel["distance_m"] > 10_000
    assert travel["from"]["lat"] == NEWARK[0] and travel["seconds"] == 60
    assert travels[NEWARK[0]]["from"]["lat"] == HOBOKEN[0]
    replay = next(f for f in mine if f["kind"] == "repeated_fix")
    assert replay["evidence"]["lat"] == NEWARK[0] and replay["evidence"]["away"]["lat"] == HOBOKEN[0]
    assert not [f for f in flags if f["player_id"] == honest.id]
    assert honest.get("/admin/flags").status_code == 403


def test_verify_scores_agrees_after_the_rush(stack: Stack) -> None:
    """After the race (100 territories, 100 owners) and the HTTP claims, a full recompute equals the live board."""
    from turf_common.board import load_board
    from turfwar.verify import differences

    assert differences(load_board(), stack.env["TURF_DATABASE_URL"], stack.env["TURF_NATS_URL"],
                       stack.env["TURF_STREAM"]) == []


def test_verify_scores_reports_a_corrupted_live_board(stack: Stack) -> None:
    import json

    import redis

    from turf_common.board import load_board
    from turfwar.verify import differences

    r = redis.Redis.from_url(stack.env["TURF_REDIS_URL"])
    key = stack.env["TURF_REDIS_PREFIX"] + "score"
    pid, raw = next(iter(r.hgetall(key).items()))
    r.hset(key, pid, json.dumps(json.loads(raw) | {"base": 99}))
    try:
        diffs = differences(load_board(), stack.env["TURF_DATABASE_URL"], stack.env["TURF_NATS_URL"],
                            stack.env["TURF_STREAM"])
        assert len(diffs) == 1 and diffs[0].startswith(pid.decode())
    finally:
        r.hset(key, pid, raw)
