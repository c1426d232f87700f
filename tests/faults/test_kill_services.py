"""Faults: kill -9 every service during a load of 5,000+ claims (and card plays through the API): those on the claim
path together in the middle of a day's load (claims twice), the clock and the gateway between two clock moves.
Afterwards every acknowledged claim and card effect exists exactly once, nothing exists that was neither
acknowledged nor in flight, every ownership change reached scoring once, and the leaderboard equals a recompute."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import timedelta

import httpx
import nats
import psycopg

from tests.support.bus import stream_events, submit_cmd
from tests.support.client import Player, move_clock, verified_player
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.rules import gametime
from turfwar.stack import Stack
from turfwar.verify import differences

#: game day → the services killed together mid-load; their restarts run side by side, so four faults cost one wait
KILLS = {2: ("claims", "scoring", "geo-verify", "cards"), 3: ("claims",)}
#: game day → the services off the claim path, killed and restarted between two clock moves
OFF_PATH = {2: ("clock",), 3: ("gateway",)}
DAYS, PLAYERS_A_DAY = 4, 1400


def restart_all(stack: Stack, names: tuple[str, ...]) -> None:
    for name in names:
        stack.start_process(name)
    stack.wait_services(list(names))


def test_kill_9_each_service_during_load_loses_nothing(stack: Stack, http: httpx.Client, org: Player) -> None:
    rng = random.Random(7)
    territories = sorted(load_board().territories)
    players = [uuid.uuid4().hex for _ in range(PLAYERS_A_DAY)]
    season = gametime.load_season()
    acked: dict[str, str] = {}          # claim_id -> player
    in_flight: set[str] = set()         # players whose request got no answer (killed mid-way)
    card_player = verified_player(http, org)
    card_effects: list[str] = []

    async def play(at, kill: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        sem = asyncio.Semaphore(32)

        async def one(p: str) -> None:
            async with sem:
                cmd = submit_cmd(p, rng.choice(territories), at)
                try:
                    resp = await nc.request(subjects.CLAIMS_SUBMIT, cmd.model_dump_json().encode(), timeout=5)
                except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                    in_flight.add(p)
                    return
                import json
                r = json.loads(resp.data)
                if r.get("ok") is True:
                    acked[r["claim_id"]] = p
                elif r.get("reason") == "unavailable":
                    in_flight.add(p)

        tasks = [asyncio.create_task(one(p)) for p in players]
        if kill:
            await asyncio.sleep(0.3)
            for name in kill:              # mid-load
                stack.kill(name, 9)
            await asyncio.sleep(0.5)
            await asyncio.to_thread(restart_all, stack, kill)
        await asyncio.gather(*tasks)
        await nc.close()

    days = gametime.game_days(season)[:DAYS]
    for n, day in enumerate(days, start=1):
        at = gametime.open_interval(season, day)[0] + timedelta(hours=1)
        move_clock(org, at)
        for name in OFF_PATH.get(n, ()):
            stack.kill(name, 9)
            stack.restart(name)
        asyncio.run(play(at, KILLS.get(n, ())))
        r = card_player.post("/cards/play", {"type": "joker", "mode": "random"})   # a card effect per day
        if r.status_code == 200:
            card_effects.append(r.json()["effect"]["territory_id"])

    total = len(players) * len(days)
    assert total >= 5000
    move_clock(org, gametime.open_interval(season, days[-1])[1])   # every consumer has caught up
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        rows = conn.execute("SELECT id, player_id FROM claims.claims").fetchall()
        jokers = conn.execute("SELECT count(*) FROM claims.territories WHERE owner_id = %s",
                              (card_player.id,)).fetchone()
    stored = dict(rows)
    assert len(rows) == len(stored)                                   # no claim twice
    assert set(acked) <= set(stored), "an acknowledged claim was lost"
    extra = {c: p for c, p in stored.items() if c not in acked and p in players}
    assert all(p in in_flight for p in extra.values()), "a claim exists that nobody was told about"
    assert jokers is not None and jokers[0] <= len(card_effects)
    # every territory change reached the stream once per version
    changed = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                        subjects.TERRITORY_CHANGED, wait=2))
    keys = [(e["territory_id"], e["version"]) for e in changed]
    assert len(keys) == len(set(keys))
    assert differences(load_board(), stack.env["TURF_DATABASE_URL"], stack.env["TURF_NATS_URL"],
                       stack.env["TURF_STREAM"]) == []
    assert len(acked) > 1000
