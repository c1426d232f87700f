"""Hostile input: schemathesis generates thousands of requests from the gateway's OpenAPI document, as an
anonymous client and as a signed-in player. No answer is a 5xx, and no refused request changes game state."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.support.client import Player, verified_player
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # schemathesis over every route


def _state(db: str) -> tuple:
    with psycopg.connect(db) as conn:
        return (
            conn.execute("SELECT md5(string_agg(id || coalesce(owner_id, '') || progress || fortified::text, ','"
                         " ORDER BY id)) FROM claims.territories").fetchone(),
            conn.execute("SELECT count(*) FROM claims.claims").fetchone(),
            conn.execute("SELECT count(*) FROM gateway.corrections").fetchone(),
            conn.execute("SELECT count(*), max(status) FROM gateway.players WHERE role = 'organizer'").fetchone(),
        )


def _fuzz(stack: Stack, tmp: Path, token: str | None, examples: int) -> subprocess.CompletedProcess[str]:
    cmd = [str(Path(sys.executable).parent / "st"), "run", f"{stack.base_url}/openapi.json",
           "--checks", "not_a_server_error", "--max-examples", str(examples), "--seed", "2026",
           "--workers", "2", "--request-timeout", "20", "--report", "junit", "--report-dir", str(tmp),
           "--exclude-path-regex", "^/api/v1/admin/clock$"]
    if token:
        cmd += ["--header", f"Authorization: Bearer {token}"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def test_schemathesis_finds_no_server_error_and_refusals_change_nothing(
        stack: Stack, http: httpx.Client, org: Player, tmp_path: Path) -> None:
    player = verified_player(http, org)
    before = _state(stack.env["TURF_DATABASE_URL"])
    generated = {}
    # anonymous, most routes answer 401 before reading the body: a few examples each prove the refusal is never a
    # 5xx; signed in, the bodies reach the handlers, and most of the examples go there
    for who, token, examples in (("anonymous", None, 8), ("player", player.token, 40)):
        out = _fuzz(stack, tmp_path, token, examples=examples)
        assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
        counts = re.findall(r"(\d+) generated", out.stdout)
        assert counts, out.stdout[-3000:]
        generated[who] = int(counts[-1])
    print("schemathesis cases generated:", generated)
    assert generated["player"] >= 2000 and generated["anonymous"] >= 300, generated
    # the clock is before the season: every claim, card play and trade was refused, so nothing changed
    assert _state(stack.env["TURF_DATABASE_URL"]) == before
