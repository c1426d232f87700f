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
    generated = 0
    for token in (None, player.token):
        out = _fuzz(stack, tmp_path, token, examples=40)
        assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
        counts = re.findall(r"(\d+) generated", out.stdout)
        assert counts, out.stdout[-3000:]
        generated += int(counts[-1])
    assert generated >= 2000, generated
    # the clock is before the season: every claim, card play and trade was refused, so nothing changed
    assert _state(stack.env["TURF_DATABASE_URL"]) == before
