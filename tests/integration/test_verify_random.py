"""After a randomized sequence of 1,000+ claims, steals and organizer corrections, `turfwar verify scores`
(a full recompute from the claims database) agrees with the incrementally kept live leaderboard."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import timedelta

import httpx
import nats
import pytest

from tests.support.bus import request, submit_cmd
from tests.support.client import Player, move_clock
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.rules import gametime
from turfwar.stack import Stack
from turfwar.verify import differences

pytestmark = [pytest.mark.slow]   # random claims, steals and corrections


def test_verify_scores_after_random_claims_steals_and_corrections(stack: Stack, http: httpx.Client,
                                                                  org: Player) -> None:
    rng = random.Random(20261005)
    board = load_board()
    # a compact area (Hudson and Essex counties) so that players collide, steal and build clusters
    area = sorted(t.id for t in board.territories.values() if t.county in ("Hudson", "Essex"))
    players = [uuid.uuid4().hex for _ in range(70)]
    season = gametime.load_season()
    outcomes: dict[str, int] = {}
    accepted: list[str] = []

    async def play_day(at) -> None:  # type: ignore[no-untyped-def]
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        cmds = [submit_cmd(p, rng.choice(area), at) for p in players]
        replies = await asyncio.gather(*(request(nc, subjects.CLAIMS_SUBMIT, c.model_dump_json().encode())
                                         for c in cmds))
        for r in replies:
            key = r.get("kind") if r.get("ok") else r["reason"]
            outcomes[key] = outcomes.get(key, 0) + 1
            if r.get("ok"):
                accepted.append(r["claim_id"])
        await nc.close()

    for day in gametime.game_days(season)[:16]:
        at = gametime.open_interval(season, day)[0] + timedelta(hours=2)
        move_clock(org, at)
        asyncio.run(play_day(at))
        for _ in range(3):   # organizer corrections between the moves
            if rng.random() < 0.5 and accepted:
                org.post("/admin/corrections", {"action": "reverse_claim", "claim_id": rng.choice(accepted),
                                                "reason": "random audit"})  # 201, or 409 when moved on since
            else:
                r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": rng.choice(area),
                                                    "player_id": None, "reason": "random reset"})
                assert r.status_code == 201, r.text
    total = sum(outcomes.values())
    assert total >= 1000 and outcomes.get("steal", 0) > 50 and outcomes.get("take", 0) > 20, outcomes
    assert differences(board, stack.env["TURF_DATABASE_URL"], stack.env["TURF_NATS_URL"],
                       stack.env["TURF_STREAM"]) == []
