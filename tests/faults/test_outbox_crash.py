"""DESIGN "Durability": the claims service dies between its commit and its publish; after a restart the
outbox relay sends the events, and each arrives exactly once — in the stream and in every consumer."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime

import nats
import psycopg
import pytest

from tests.support.bus import stream_events, submit_cmd
from tests.support.client import Player, leaderboard, move_clock
from turf_common.contracts import subjects
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TERRITORY = "3401732250"  # Hoboken


def test_crash_after_commit_event_arrives_exactly_once_after_restart(stack: Stack, org: Player) -> None:
    move_clock(org, T0)
    player = uuid.uuid4().hex
    stack.kill("claims", 9)
    stack.proc_env["claims"] = {"TURF_FAULT": "claims.after_commit"}
    stack.restart("claims")

    async def submit() -> None:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            with pytest.raises(nats.errors.TimeoutError):  # the service dies before it can answer
                await nc.request(subjects.CLAIMS_SUBMIT, submit_cmd(player, TERRITORY, T0).model_dump_json().encode(),
                                 timeout=5)
        finally:
            await nc.close()

    asyncio.run(submit())
    assert stack.procs["claims"].wait(10) == 70
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        rows = conn.execute("SELECT id FROM claims.claims WHERE player_id = %s", (player,)).fetchall()
        unsent = conn.execute("SELECT count(*) FROM claims.outbox WHERE published_at IS NULL").fetchone()
    assert len(rows) == 1 and unsent is not None and unsent[0] >= 2   # committed, not yet published
    url, stream = stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"]
    before = asyncio.run(stream_events(url, stream, subjects.CLAIM_ACCEPTED))
    assert [e for e in before if e["player_id"] == player] == []

    stack.proc_env.pop("claims")
    stack.restart("claims")
    # the relay's sweep publishes the committed rows; restart once more to show nothing is sent twice
    assert asyncio.run(_wait_for_event(url, stream, player)), "the outbox was not swept after restart"
    stack.kill("claims", 9)
    stack.restart("claims")
    accepted = [e for e in asyncio.run(stream_events(url, stream, subjects.CLAIM_ACCEPTED)) if e["player_id"] == player]
    changed = [e for e in asyncio.run(stream_events(url, stream, subjects.TERRITORY_CHANGED))
               if e["owner_id"] == player]
    assert len(accepted) == 1 and accepted[0]["claim_id"] == rows[0][0]
    assert len(changed) == 1
    # scoring applied it exactly once: the player has one territory, base 1
    lb = leaderboard(org.http, lambda lb: any(s["player_id"] == player for s in lb["standings"]))
    mine = [s for s in lb["standings"] if s["player_id"] == player]
    assert mine and mine[0]["base"] == 1 and mine[0]["outposts"] == 0
    scored = [e for e in asyncio.run(stream_events(url, stream, subjects.SCORE_UPDATED)) if player in e["players"]]
    assert len(scored) == 1


async def _wait_for_event(url: str, stream: str, player: str, timeout: float = 15.0) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if [e for e in await stream_events(url, stream, subjects.CLAIM_ACCEPTED, wait=0.3) if e["player_id"] == player]:
            return True
        await asyncio.sleep(0.2)
    return False
