"""``turfwar verify scores``: recompute every player's score from the claims database and the board, and
compare with the live leaderboard that scoring keeps incrementally. Any difference is a bug."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import psycopg

from turf_common.board import Board
from turf_common.bus import BusError, ask, make_broker, wait_idle
from turf_common.contracts import subjects
from turf_common.contracts.scoring import Leaderboard, LeaderboardRequest
from turf_common.rules.scoring import TerritoryStats, bonuses, player_score, side_quests


@dataclass(frozen=True)
class Row:
    base: int
    outposts: int
    bonuses: int


def recompute(board: Board, owners: dict[str, str | None]) -> dict[str, Row]:
    """Full recompute (R23, R24) from ``territory id → owner``."""
    owned_by: dict[str, set[str]] = {}
    for tid, pid in owners.items():
        if pid:
            owned_by.setdefault(pid, set()).add(tid)
    stats = {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}
    bonus = bonuses(side_quests(owned_by, stats))
    out = {}
    for pid, owned in owned_by.items():
        s = player_score(board.graph, pid, owned)
        out[pid] = Row(s.base, s.outposts, bonus.get(pid, 0))
    return out


def owners_from_db(database_url: str) -> dict[str, str | None]:
    with psycopg.connect(database_url) as conn:
        return {r[0]: r[1] for r in conn.execute("SELECT id, owner_id FROM claims.territories")}


async def live_leaderboard(nats_url: str, stream: str) -> Leaderboard:
    """Scoring's leaderboard once every consumer has caught up with the stream, every page of it (pages of
    one ranking, ``next`` leading from one to the next). Raises :class:`BusError` when they do not within 60 s,
    scoring does not answer within 30 s, or it refuses."""
    pages: list[Leaderboard] = []
    async with make_broker(nats_url, "verify") as broker:
        await wait_idle(broker, stream, timeout=60)   # let scoring catch up with every change already in the stream
        after: str | None = None
        while True:
            reply = await ask(broker, subjects.SCORING_LEADERBOARD, LeaderboardRequest(after=after), Leaderboard,
                              timeout=30)
            if not isinstance(reply, Leaderboard):
                raise BusError(f"{subjects.SCORING_LEADERBOARD}: {reply.reason}: {reply.message}")
            pages.append(reply)
            if reply.next is None:
                break
            after = reply.next
    return pages[0].model_copy(update={"standings": [s for p in pages for s in p.standings], "next": None})


def differences(board: Board, database_url: str, nats_url: str, stream: str) -> list[str]:
    """Human-readable differences between the live leaderboard and a full recompute (empty when equal).
    Players the live board lists with nothing owned must show 0/0 there."""
    truth = recompute(board, owners_from_db(database_url))
    live = {s.player_id: Row(s.base, s.outposts, s.bonuses)
            for s in asyncio.run(live_leaderboard(nats_url, stream)).standings}
    out = []
    for pid in sorted(set(truth) | set(live)):
        want = truth.get(pid, Row(0, 0, 0))
        got = live.get(pid, Row(0, 0, 0))
        if want != got:
            out.append(f"{pid}: live {got} != recomputed {want}")
    return out
