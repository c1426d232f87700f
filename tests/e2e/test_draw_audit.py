"""Fair, auditable draws: a whole simulated season on the real stack (18 game days, players verified before and
during it, Jokers of both modes, Double Troubles, Freezes), then ``turfwar audit draws`` replays every draw and Joker
pick from the seed revealed at season end and the event log: no mismatch. A forged log or a wrong seed is caught."""

from __future__ import annotations

import asyncio
import copy
import os
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.support.cards import give, hand, play
from tests.support.client import API, Player, move_clock, verified_player
from turf_cards.audit import audit_draws
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.rules import gametime
from turfwar.audit import read_stream
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # a simulated season, audited

CFG = gametime.load_season()


@pytest.fixture(scope="module")
def season_log(stack: Stack, http: httpx.Client, org: Player) -> list[tuple[str, dict[str, Any]]]:
    players = [verified_player(http, org, f"S{i}") for i in range(4)]
    for n, day in enumerate(gametime.game_days(CFG)):
        now = datetime.combine(day, datetime.min.time().replace(hour=8), tzinfo=CFG.tz)
        move_clock(org, now)
        if n == 7:
            players.append(verified_player(http, org, "Late"))      # verified while the season runs
        for i, p in enumerate(players):
            cards = [c for c in hand(p) if c["state"] == "ready"]
            kinds = {c["type"] for c in cards}
            if n % 3 == 0:
                give(stack, p.id, "joker")                            # corrections are in the log too
                kinds.add("joker")
            if "joker" in kinds:
                r = play(p, "joker", mode="cluster_edge" if (n + i) % 2 else "random")
                assert r.status_code in (200, 409), r.text
            if "double_trouble" in kinds:
                r = play(p, "double_trouble")
                assert r.status_code in (200, 409), r.text
            if "freeze" in kinds:
                mine = [f["properties"]["id"] for f in http.get(API + "/board").json()["features"]
                        if f["properties"]["owner_id"] == p.id]
                if mine:
                    r = play(p, "freeze", territory_id=mine[0])
                    assert r.status_code in (200, 409), r.text
    closes = gametime.season_closes_at(CFG)
    assert "season_ended:2026-10-24" in move_clock(org, closes + timedelta(minutes=1))["events"]
    return asyncio.run(read_stream(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"]))


def test_audit_replays_a_whole_simulated_season_without_a_mismatch(season_log: list[tuple[str, dict[str, Any]]]
                                                                   ) -> None:
    board = load_board()
    rep = audit_draws(season_log, CFG, graph=board.graph, territories=board.territories)
    assert rep.mismatches == []
    assert rep.seed_source == "card.seed_revealed"
    assert rep.deals == 18 and rep.draws > 60 and rep.jokers > 10
    subjects_seen = {s for s, _ in season_log}
    assert {subjects.CARD_SEED_COMMITTED, subjects.CARD_SEED_REVEALED, subjects.CARD_CONSUMED} <= subjects_seen


def test_turfwar_audit_draws_command(stack: Stack, season_log: list[tuple[str, dict[str, Any]]]) -> None:
    env = os.environ | {"TURF_NATS_URL": stack.env["TURF_NATS_URL"], "TURF_STREAM": stack.env["TURF_STREAM"]}
    out = subprocess.run([sys.executable, "-m", "turfwar.cli", "audit", "draws"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 mismatch" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "turfwar.cli", "audit", "draws", "--seed", "not-the-seed"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "commitment" in bad.stdout


def test_audit_catches_a_forged_draw_a_forged_joker_and_a_missing_deal(
        season_log: list[tuple[str, dict[str, Any]]]) -> None:
    board = load_board()

    def forged(pred: Any, change: Any) -> list[str]:
        log = copy.deepcopy(season_log)
        for s, e in log:
            if pred(s, e):
                change(e)
                break
        return audit_draws(log, CFG, graph=board.graph, territories=board.territories).mismatches

    other = {"freeze": "joker"}
    m = forged(lambda s, e: s == subjects.CARD_DRAWN,
               lambda e: e.update(card_type=other.get(e["card_type"], "freeze")))
    assert len(m) == 1 and "the seed gives" in m[0]
    m = forged(lambda s, e: s == subjects.CARD_PLAYED and e["card_type"] == "joker"
               and len(e["joker"]["candidates"]) > 1,
               lambda e: e["joker"].update(territory_id=next(t for t in e["joker"]["candidates"]
                                                             if t != e["joker"]["territory_id"])))
    assert m and all("joker" in x for x in m)
    m = forged(lambda s, e: s == subjects.CARD_DEALT, lambda e: e["draws"].update({k: 2 for k in e["draws"]}))
    assert any("R12 says" in x for x in m)
