"""R12.1 on the real stack: the stack chose its own seed before the embedded servers started (not the public
default a postgres folder used to imply), its SHA-256 is on ``GET /clock`` before the season, the begun season is
marked, and a cards service restarted on another seed refuses to start (the draws and the commitment depend on it)."""

from __future__ import annotations

import hashlib
import json
import stat

import httpx

from turf_common.settings import PUBLIC_SEED
from turfwar.stack import Stack


def test_r12_1_the_stack_commits_to_its_own_seed_before_the_season(stack: Stack, http: httpx.Client) -> None:
    seed_file = stack.data_dir / "season-seed"
    seed = seed_file.read_text()
    assert stack.env["TURF_SEED"] == seed != PUBLIC_SEED and len(seed) == 64
    assert stat.S_IMODE(seed_file.stat().st_mode) == 0o600
    clock = http.get("/api/v1/clock").json()
    assert clock["season_state"] == "before"   # the manual clock starts at 05:00 on the first game day
    assert clock["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    assert json.loads((stack.data_dir / "season.json").read_text())["seed_commitment"] == clock["seed_commitment"]


def test_r12_1_a_cards_service_started_on_another_seed_refuses_to_start(stack: Stack, http: httpx.Client) -> None:
    stack.kill("cards", 15)
    stack.proc_env["cards"] = {"TURF_SEED": "an operator's second thought"}
    try:
        proc = stack.start_process("cards")
        proc.wait(60)
        assert proc.returncode != 0
        log = (stack.data_dir / "logs" / "cards.log").read_text(errors="replace")
        assert "SeedChanged" in log and "began on the seed with SHA-256 " + hashlib.sha256(
            stack.env["TURF_SEED"].encode()).hexdigest() in log
    finally:
        del stack.proc_env["cards"]
        stack.restart("cards")   # on the season's seed it starts again (restart waits for its health answer)
