"""``turfwar simulate`` on a short season: 8 bots, 3 game days through the public HTTP API of a real
stack, then the clock runs on to the season's close. Every invariant must hold and every output must be there."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.stackfix import ORGANIZER
from turf_common.board import load_board
from turf_common.rules import gametime
from turf_common.rules.medals import MEDALS, BoardFacts, MedalSet, changes_of, compute
from turf_common.rules.prizes import PrizeTable, final_places
from turfwar.cli import app
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # a simulated season


def test_short_season(stack: Stack, tmp_path: Path) -> None:
    out = tmp_path / "season"
    r = CliRunner().invoke(app, [
        "simulate", "--players", "8", "--days", "3", "--seed", "7", "--out", str(out), "--no-progress",
        "--url", stack.base_url, "--organizer-email", ORGANIZER[0], "--organizer-password", ORGANIZER[1],
        "--database-url", stack.env["TURF_DATABASE_URL"], "--nats-url", stack.env["TURF_NATS_URL"],
        "--stream", stack.env["TURF_STREAM"], "--data-dir", str(stack.data_dir)])
    assert r.exit_code == 0, r.output
    assert "all invariants hold" in r.output
    assert "services logged no error" in r.output   # the stack's logs were read

    body = json.loads((out / "results.json").read_text())
    assert body["ok"] is True
    checks = {c["name"]: c for c in body["invariants"]}
    assert set(checks) == {"scores", "one_owner", "refusals", "flags", "plausible_fixes", "cards", "results",
                           "server_health"}
    assert all(c["ok"] for c in checks.values()), [c for c in checks.values() if not c["ok"]]
    assert len(body["days_played"]) == 3

    # final results with prizes for every bot that owns something at the close
    assert body["results"]["final"] is True
    # R26: each place's prize as the table and its tie cases say (a three-way tie for first pays 3 × 33.33; a two-way
    # tie for first 25 each and the next player, third, 25), for the totals the server reports
    final = body["results"]["standings"]
    expected = final_places({s["player_id"]: s["total"] for s in final}, PrizeTable.load())
    assert {s["player_id"]: Decimal(s["prize"]) for s in final} == {p.player_id: p.prize for p in expected}
    assert sum(p.prize for p in expected) > 0
    # the cheaters were caught for what they did, and only they
    rows = body["standings"]
    cheaters = [s for s in rows if s["cheat"]]
    assert len(cheaters) == 2 and {s["cheat"] for s in cheaters} == {"teleport", "replay"}
    assert all(s["flags"] for s in cheaters) and not any(s["flags"] for s in rows if not s["cheat"])
    # the bots really played: claims accepted and cards used, through the public routes only
    assert body["claims"].get("take", 0) >= 8
    assert any(k.endswith(" ok") for k in body["card_plays"])
    routes = body["requests"]["by_route"]
    assert routes["POST /admin/clock"] > 3 * 16 and routes["POST /claims"] >= 8

    # pictures and logs
    for name in ("season_map.png", "standings.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    subjects = {e["subject"] for e in events}
    assert {"claim.accepted", "territory.changed", "card.drawn", "clock.season_ended"} <= subjects
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert "Final results" in (out / "results.txt").read_text()
    assert_medals_recomputed(events, body["medals"], [r["player_id"] for r in rows])
    assert (out / "actions.jsonl").stat().st_size > 0


def assert_medals_recomputed(events: list[dict[str, Any]], served: dict[str, dict[str, int]],
                             bots: list[str]) -> None:
    """The medals the server's public route gave each bot, and those the notify service awarded live, are the
    rule's, recomputed from the stream's log up to the season's close (docs/medals.md); the season earned some."""
    season = gametime.load_season()
    again = compute(changes_of(e["data"] for e in events if isinstance(e["data"], dict)), MedalSet.load(),
                    BoardFacts.of(load_board()), season, gametime.season_closes_at(season))
    assert set(served) == set(bots)
    assert served == {b: again.player(b) for b in bots}
    assert any(v["explorer"] > 0 for v in served.values()) and set(MEDALS) == set(next(iter(served.values())))
    # the notify service awarded live, as medal.earned, exactly the tiers the rule finds, each once
    live = [(e["data"]["player_id"], e["data"]["medal"], e["data"]["tier"]) for e in events
            if e["subject"] == "medal.earned"]
    assert len(live) == len(set(live))
    assert set(live) == {(a.player_id, a.medal, a.tier) for a in again.awards}
    assert live
