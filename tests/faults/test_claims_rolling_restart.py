"""A rolling restart never cuts a claim in half. A burst of concurrent ``claims.submit`` commands (as the
gateway sends them) is in flight when the claims process gets SIGTERM; it is restarted at once. Graceful shutdown
stops taking requests, lets the claims it has begun finish (their commit, their outbox flush, their reply) and only
then closes its connections. Afterwards:

* every claim in the database was answered ``accepted`` (none committed and left unanswered: the old layer cancelled
  in-flight handlers, so a claim could commit and its requester time out as if nothing had happened);
* every accepted claim has its row, its territory and exactly one ``claim.accepted`` and one ``territory.changed`` in
  the stream, and no claim or territory version was applied twice;
* some of the burst was answered after SIGTERM was sent, before the process exited (the drain was exercised).

A request the stopping process never began is not answered (timeout) or finds no responder; it left nothing behind
and may be sent again."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import nats
import psycopg

from tests.support.bus import stream_events, submit_cmd
from tests.support.client import Player, move_clock
from turf_common.board import load_board
from turf_common.contracts import subjects
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T10:00:00-04:00")
BURST = 400            # claims, one per player, each on a territory of its own (the board has 448)
TERM_AFTER = 25        # SIGTERM once this many replies are in: the rest of the burst is in flight or queued


@dataclass
class Outcome:
    accepted: dict[str, str] = field(default_factory=dict)      # claim_id -> player
    refused: dict[str, str] = field(default_factory=dict)       # player -> reason
    unanswered: set[str] = field(default_factory=set)           # players: timeout or no responder
    answered_during_stop: int = 0                               # replies between SIGTERM and the exit


async def _burst(stack: Stack, players: list[str], territories: list[str]) -> tuple[Outcome, int | None]:
    out = Outcome()
    nc = await nats.connect(stack.env["TURF_NATS_URL"])
    replies = 0
    enough = asyncio.Event()
    stopping: list[float] = []     # [SIGTERM sent, process exited] (monotonic)

    async def one(player: str, territory: str) -> None:
        nonlocal replies
        body = submit_cmd(player, territory, T0).model_dump_json().encode()
        try:
            resp = await nc.request(subjects.CLAIMS_SUBMIT, body, timeout=10)
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
            out.unanswered.add(player)
            return
        if len(stopping) == 1:
            out.answered_during_stop += 1
        r = json.loads(resp.data)
        if r.get("ok") is True:
            out.accepted[r["claim_id"]] = player
        else:
            out.refused[player] = r["reason"]
        replies += 1
        if replies >= TERM_AFTER:
            enough.set()

    tasks = [asyncio.create_task(one(p, t)) for p, t in zip(players, territories, strict=True)]
    await asyncio.wait_for(enough.wait(), 30)
    stopping.append(time.monotonic())
    await asyncio.to_thread(stack.kill, "claims", signal.SIGTERM)   # waits for the exit (10 s at most)
    stopping.append(time.monotonic())
    code = stack.procs["claims"].returncode
    await asyncio.to_thread(stack.restart, "claims")
    await asyncio.gather(*tasks)
    await nc.close()
    return out, code


async def _events_of(url: str, stream: str, claim_ids: set[str], timeout: float = 30.0) -> tuple[list, list]:
    """The stream's claim.accepted and territory.changed events of ``claim_ids``, once all accepted ones are there
    (the restarted process's relay sweeps what the stopped one left unpublished) or ``timeout`` s have passed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        accepted = [e for e in await stream_events(url, stream, subjects.CLAIM_ACCEPTED, wait=0.5)
                    if e["claim_id"] in claim_ids]
        if {e["claim_id"] for e in accepted} >= claim_ids or loop.time() > end:
            changed = [e for e in await stream_events(url, stream, subjects.TERRITORY_CHANGED, wait=0.5)
                       if e.get("claim_id") in claim_ids]
            return accepted, changed
        await asyncio.sleep(0.3)


def test_sigterm_mid_burst_finishes_what_it_began_and_loses_nothing(stack: Stack, org: Player) -> None:
    move_clock(org, T0)
    players = [uuid.uuid4().hex for _ in range(BURST)]
    territories = sorted(load_board().territories)[:BURST]
    out, code = asyncio.run(_burst(stack, players, territories))
    assert code == 0, f"the claims process did not stop cleanly on SIGTERM (exit code {code})"

    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        rows = conn.execute("SELECT c.id, c.player_id, c.territory_id, t.owner_id FROM claims.claims c "
                            "JOIN claims.territories t ON t.id = c.territory_id "
                            "WHERE c.player_id = ANY(%s)", (players,)).fetchall()
    stored = {r[0]: r[1] for r in rows}
    per_player = Counter(r[1] for r in rows)
    assert not [p for p, n in per_player.items() if n > 1], "a claim was applied twice"
    committed_unanswered = {c: p for c, p in stored.items() if c not in out.accepted}
    assert not committed_unanswered, (
        f"{len(committed_unanswered)} claims committed but never answered accepted (cut in half by the shutdown)")
    assert set(out.accepted) <= set(stored), "an accepted claim is not in the database"
    assert all(r[3] == r[1] for r in rows), "an accepted claim's territory is not its claimant's"
    assert out.accepted and not out.refused, f"unexpected refusals: {Counter(out.refused.values())}"

    url, stream = stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"]
    accepted, changed = asyncio.run(_events_of(url, stream, set(out.accepted)))
    assert sorted(e["claim_id"] for e in accepted) == sorted(out.accepted), "claim.accepted missing or twice"
    assert sorted(e["claim_id"] for e in changed) == sorted(out.accepted), "territory.changed missing or twice"
    versions = [(e["territory_id"], e["version"]) for e in changed]
    assert len(versions) == len(set(versions))
    # the drain was exercised: claims begun before SIGTERM were answered while the process was stopping
    assert out.answered_during_stop > 0, "nothing was in flight at SIGTERM; the test did not exercise the drain"
