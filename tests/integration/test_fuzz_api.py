"""Hostile input: schemathesis generates thousands of requests from the gateway's OpenAPI document, as an
anonymous client and as a signed-in player. No answer is a 5xx, and no refused request changes game state.

The routes fuzzed are those whose contract changed since the last landing and the day's seventh of the others
(tests/support/fuzzplan.py), so each route is fuzzed within a week of landings; ``TURF_FUZZ=all`` fuzzes them all
(the full sweep: ``TURF_FUZZ=all ./turf test tests/integration/test_fuzz_api.py``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.support.client import Player, verified_player
from tests.support.fuzzplan import fingerprints, load_baseline, name_regex, plan
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


def _fuzz(stack: Stack, tmp: Path, token: str | None, examples: int,
          names: list[str] | None) -> subprocess.CompletedProcess[str]:
    cmd = [str(Path(sys.executable).parent / "st"), "run", f"{stack.base_url}/openapi.json",
           "--checks", "not_a_server_error", "--max-examples", str(examples), "--seed", "2026",
           "--workers", "1", "--request-timeout", "20", "--report", "junit", "--report-dir", str(tmp),
           "--exclude-path-regex", "^/api/v1/admin/clock$"]
    if token:
        cmd += ["--header", f"Authorization: Bearer {token}"]
    if names is not None:
        cmd += ["--include-name-regex", name_regex(names)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def _routes(http: httpx.Client) -> list[str] | None:
    """The operations to fuzz today (None: every one, ``TURF_FUZZ=all``)."""
    if os.environ.get("TURF_FUZZ") == "all":
        return None
    changed, sample = plan(http.get("/openapi.json").json(), load_baseline(), date.today())
    print(f"fuzzing {len(changed)} routes changed since the last landing and {len(sample)} of the day: "
          + ", ".join(changed + sample))
    return changed + sample


def test_schemathesis_finds_no_server_error_and_refusals_change_nothing(
        stack: Stack, http: httpx.Client, org: Player, tmp_path: Path) -> None:
    player = verified_player(http, org)
    before = _state(stack.env["TURF_DATABASE_URL"])
    generated = {}
    names = _routes(http)
    routes = len(names if names is not None else fingerprints(http.get("/openapi.json").json()))
    # anonymous, most routes answer 401 before reading the body: a few examples each prove the refusal is never a
    # 5xx; signed in, the bodies reach the handlers, and most of the examples go there
    for who, token, examples in (("anonymous", None, 8), ("player", player.token, 40)):
        out = _fuzz(stack, tmp_path, token, examples=examples, names=names)
        assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
        counts = re.findall(r"(\d+) generated", out.stdout)
        assert counts, out.stdout[-3000:]
        generated[who] = int(counts[-1])
    print("schemathesis cases generated:", generated)
    # about 20 cases a route signed in and 3 anonymous at the least (a route may take fewer: no body, few params)
    assert generated["player"] >= 20 * routes and generated["anonymous"] >= 3 * routes, (generated, routes)
    # the clock is before the season: every claim, card play and trade was refused, so nothing changed
    assert _state(stack.env["TURF_DATABASE_URL"]) == before
