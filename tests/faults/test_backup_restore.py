"""The restore drill: play claims, a card play and an organizer correction; back up; lose the server (a
new, empty data directory); restore; and the board, the hands, the clock and the leaderboard are what they were,
the leaderboard equal to a full recompute (`turfwar verify scores`); the restored season plays on."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.cards import claim, give, hand, play
from tests.support.client import API, Player, leaderboard, move_clock, verified_player
from turf_common.board import load_board
from turfwar.embedded import free_port
from turfwar.stack import Stack
from turfwar.verify import differences

pytestmark = pytest.mark.timeout(900)
TURFWAR = str(Path(sys.executable).parent / "turfwar")
HOBOKEN, JERSEY_CITY, NEWARK = "3401732250", "3401736000", "3401351000"
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def turfwar(data_dir: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("TURF_")}
    names = {k: env[k] for k in ("TURF_STREAM", "TURF_REDIS_PREFIX", "TURF_CLOCK", "TURF_ORGANIZER_PASSWORD",
                                 "TURF_ORGANIZER_EMAIL")}
    r = subprocess.run([TURFWAR, *args], capture_output=True, text=True, timeout=600,
                       env=keep | names | {"TURF_DATA_DIR": str(data_dir), "COLUMNS": "200"})
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def season(http: httpx.Client, players: list[Player]) -> dict[str, Any]:
    """What a player, a spectator and the organizer see of the season."""
    clock = http.get(API + "/clock").json()
    return {"territories": {t: {k: http.get(f"{API}/territories/{t}").json()[k]
                                for k in ("owner_id", "progress", "fortified")} for t in (HOBOKEN, JERSEY_CITY)},
            "hands": {p.id: sorted((c["type"], c["state"]) for c in hand(p)) for p in players},
            "clock": (clock["now"], clock["mode"], clock["seed_commitment"]),
            "leaderboard": {s["player_id"]: s for s in leaderboard(http)["standings"]}}


def test_backup_wipe_restore_and_the_season_is_what_it_was(stack: Stack, http: httpx.Client, org: Player,
                                                           tmp_path: Path) -> None:
    move_clock(org, MON)
    p, q = verified_player(http, org, "Pat"), verified_player(http, org, "Quinn")
    assert claim(p, HOBOKEN, MON).status_code == 201 and claim(q, JERSEY_CITY, MON).status_code == 201
    give(stack, p.id, "freeze", "joker")
    assert play(p, "freeze", territory_id=HOBOKEN).status_code == 200            # scheduled: reserved in the hand
    r = org.post("/admin/corrections", {"action": "adjust_score", "player_id": q.id, "points": 2,
                                        "reason": "photo quest"})
    assert r.status_code == 201, r.text
    leaderboard(http, lambda lb: any(s["player_id"] == q.id and s["total"] >= 3 for s in lb["standings"]))
    before = season(http, [p, q])

    stack.write_manifest()   # what `turfwar up` leaves for the organizer's tools
    out = tmp_path / "backup"
    turfwar(stack.data_dir, stack.env, "backup", "--out", str(out))
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in out.rglob("*") if f.is_file())
    assert {f.name for f in out.iterdir()} == {"database.dump", "redis.json", "clock.json", "season", "manifest.json"}

    # the server is lost: a new machine, an empty data directory, the same .env (stream, prefix, organizer)
    new_dir = tmp_path / "new-server"
    r = turfwar(new_dir, stack.env, "restore", str(out))
    assert "restored the backup" in r.stdout, r.stdout
    assert (new_dir / "season-seed").read_text() == (stack.data_dir / "season-seed").read_text()
    restored = Stack(data_dir=new_dir, env={k: v for k, v in stack.env.items() if k != "TURF_SEED"},
                     http_port=free_port())
    try:
        restored.start_servers()
        restored.start_services()
        with httpx.Client(base_url=restored.base_url, timeout=30) as http2:
            p2, q2 = Player(http2, p.token, p.id), Player(http2, q.token, q.id)   # their sessions came back too
            after = season(http2, [p2, q2])
            assert after == before
            assert differences(load_board(), restored.env["TURF_DATABASE_URL"], restored.env["TURF_NATS_URL"],
                               restored.env["TURF_STREAM"]) == []
            # the restored season plays on: the next claim, and the scheduled Freeze is still Pat's
            r = claim(q2, NEWARK, MON)
            assert r.status_code == 409 and r.json()["reason"] == "no_claims_left", r.text   # Quinn claimed today
            assert ("freeze", "reserved") in after["hands"][p.id]
    finally:
        restored.stop()


def test_the_scheduled_backup_backs_up_the_live_season_as_the_deployment_runs_it(stack: Stack, http: httpx.Client,
                                                                                 org: Player, tmp_path: Path) -> None:
    """compose's ``backup`` service: the services' own database role and Redis password, the admin NATS
    user; each run a complete folder ``turfwar restore`` takes, the oldest pruned."""
    from turfwar.backup import Servers
    from turfwar.backup_schedule import run_once

    move_clock(org, MON)
    p = verified_player(http, org, "Sam")
    assert claim(p, NEWARK, MON).status_code in (201, 409)
    env = stack.env
    servers = Servers(env["TURF_DATABASE_URL"], env["TURF_REDIS_URL"], env["TURF_NATS_URL"], env["TURF_STREAM"],
                      env["TURF_REDIS_PREFIX"])
    ticks = iter(datetime.fromisoformat(f"2026-10-05T{h:02d}:00:00+00:00") for h in (6, 12))
    runs = [run_once(servers, tmp_path, keep=1, now=lambda: next(ticks)) for _ in range(2)]
    assert [r["event"] for r in runs] == ["backup.done", "backup.done"], runs
    assert runs[1]["pruned"] == ["20261005T060000Z"]
    (folder,) = [f for f in tmp_path.iterdir() if f.is_dir()]
    assert {f.name for f in folder.iterdir()} == {"database.dump", "redis.json", "clock.json", "manifest.json"}
    parts = runs[1]["parts"]
    assert parts["database"] > 0 and parts["redis_keys"] > 0 and parts["clock_keys"] > 0, parts
