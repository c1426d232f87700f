"""R12/R5 (race): a card play at a game day's opening instant is ordered after that day's deal, in the
accelerated clock mode too (the manual clock's route waits for the services; the ticking clocks do not). A stack with
an accelerated clock (1800×: a game second is 0.56 ms) runs through several openings; before each, fresh players are
verified and their hands emptied (R28 ``adjust_hand``), so the only card each can hold is the one that day's deal
gives it (R12: its next seeded draw, known in advance). Around the opening instant each plays that card type once,
at its own offset of a few milliseconds: before the opening the answer must be ``game_closed``; from it on the
card must be in hand (played, or refused by the claims service for its target: never ``card_not_in_hand``).
Before the fix a play that reached the cards service between the opening and its deal answered
``card_not_in_hand``. Bounded: ``DAYS`` openings, about 50 s each."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest

from tests.support.bus import request, stream_events
from tests.support.cards import give, hand
from tests.support.client import organizer, until, verified_player
from tests.support.stackfix import running_stack
from turf_common.contracts import subjects
from turf_common.contracts.cards import PlayCard
from turf_common.contracts.clock import ClockState
from turf_common.rules import gametime
from turf_common.rules.cards import draw_card
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # an opening each game day (48 s); its checks hold under load

FACTOR = 1800
DAYS = 2                    # openings raced
#: when each player's one play leaves, in real ms from the opening instant (1 ms = 1.8 game s)
OFFSETS_MS = (-20.0, -5.0, 0.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0)
SEASON = gametime.load_season()
HOBOKEN = "3401732250"
ARGS: dict[str, dict[str, Any]] = {"freeze": {"territory_id": HOBOKEN}, "war": {"territory_id": HOBOKEN},
                                   "mulligan": {"claim_id": "none"}, "joker": {"mode": "random"}}


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # Monday 14:00, open: a stack starts in a few real seconds (a game hour is 2 s), so the first set-up
    # ends before 18:00 and the first opening raced is Tuesday's, 16 game hours (32 s) on, rather than a whole game
    # day later; a slower start only races the day after
    with running_stack(Path(tmp_path_factory.mktemp("r12race")), TURF_CLOCK=f"accelerated:{FACTOR}",
                       TURF_CLOCK_START="2026-10-05T14:00:00-04:00") as s:
        yield s


class Clock:
    def __init__(self, nc: Any, stack: Stack) -> None:
        self.nc, self.stack, self.state = nc, stack, None

    async def read(self) -> ClockState:
        kv = await self.nc.jetstream().key_value(f"{self.stack.env['TURF_STREAM']}_clock")
        self.state = ClockState.model_validate_json((await kv.get("state")).value)
        return self.state

    def now(self) -> datetime:
        assert self.state is not None
        return self.state.now(datetime.now(UTC))

    def real_at(self, game: datetime) -> float:
        """time.time() of a game instant."""
        assert self.state is not None
        return self.state.real_anchor.timestamp() + (game - self.state.game_anchor).total_seconds() / FACTOR


def _players_with_empty_hands(stack: Stack, http: httpx.Client, n: int) -> dict[str, str]:
    """``n`` players verified now, their hands emptied; each one's next seeded draw (R12) whose type can be played
    without a trade: player id → card type."""
    org = organizer(http)
    out: dict[str, str] = {}
    while len(out) < n:
        p = verified_player(http, org)
        held = until(lambda p=p: hand(p), lambda h: len(h) >= 3, timeout=10)   # R12: the top-up at verification
        give(stack, p.id, remove=tuple(c["type"] for c in held))
        assert hand(p) == []
        drawn = asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"], subjects.CARD_DRAWN,
                                          wait=0.2))
        nxt = 1 + max((e["draw_index"] for e in drawn if e["player_id"] == p.id), default=-1)
        kind = draw_card(stack.env["TURF_SEED"], SEASON.season_id, p.id, nxt)
        if kind != "trade":            # a Trade card is played by proposing: not this race
            out[p.id] = kind
    return out


def _verdict(r: dict[str, Any]) -> str:
    if r.get("ok") is True:
        return "played"
    return r["reason"] if r["reason"] in ("game_closed", "card_not_in_hand", "invalid_input") else "in_hand"


def test_r12_r5_a_play_at_the_opening_instant_finds_the_card_that_day_deals_accelerated_clock(fast: Stack) -> None:
    report: list[dict[str, Any]] = []
    with httpx.Client(base_url=fast.base_url, timeout=60) as http:
        async def clock() -> Clock:
            nc = await nats.connect(fast.env["TURF_NATS_URL"])
            c = Clock(nc, fast)
            await c.read()
            await nc.close()
            return c

        c = asyncio.run(clock())
        while len(report) < DAYS:
            now = c.now()
            today = gametime.game_day_at(SEASON, now)
            if today is None or not gametime.is_open(SEASON, now) or \
                    now > gametime.open_interval(SEASON, today)[1] - timedelta(hours=4):
                # too late to prepare before the close (set-up takes a few game hours): wait for the next opening
                nxt = gametime.next_change(SEASON, now + timedelta(hours=4))
                assert nxt is not None
                time.sleep(max(c.real_at(nxt + timedelta(minutes=1)) - time.time(), 0))
                continue
            day = gametime.next_game_day(SEASON, today)
            assert day is not None
            opening = gametime.open_interval(SEASON, day)[0]
            players = _players_with_empty_hands(fast, http, len(OFFSETS_MS))
            assert c.now() < opening - timedelta(hours=1), "set-up ran into the night"
            answers = asyncio.run(_fire(fast, c, players, opening))
            verdicts = Counter(v for _, v, _ in answers)
            report.append({"day": day.isoformat(), "verdicts": dict(verdicts),
                           "sent_after_opening": sum(1 for at, _, _ in answers if at >= opening),
                           "answer_ms_max": round(max(ms for _, _, ms in answers))})
            # R12/R5: from the opening instant on, the card of that day's deal is in hand
            bad = [(at, v) for at, v, _ in answers if v == "card_not_in_hand" or v == "invalid_input"
                   or (v == "game_closed" and at >= opening + timedelta(seconds=2))]
            assert not bad, (day, bad, report[-1])
            assert sum(1 for at, v, _ in answers if at >= opening and v in ("played", "in_hand")) >= 5, report[-1]
    print("\nR12 deal race report:", *report, sep="\n  ")


async def _fire(stack: Stack, c: Clock, players: dict[str, str],
                opening: datetime) -> list[tuple[datetime, str, float]]:
    """Each player plays its card type once, at its offset from the opening instant. Returns (game instant sent,
    verdict, answer ms)."""
    nc = await nats.connect(stack.env["TURF_NATS_URL"])
    rival = next(iter(players))
    out: list[tuple[datetime, str, float]] = []

    async def one(pid: str, kind: str, offset_ms: float) -> None:
        args = ARGS.get(kind, {}) | ({"rival_id": rival if pid != rival else uuid.uuid4().hex}
                                     if kind == "blockade" else {})
        cmd = PlayCard(player_id=pid, player_status="verified", type=kind, **args)  # type: ignore[arg-type]
        await asyncio.sleep(max(c.real_at(opening) + offset_ms / 1000 - time.time(), 0))
        sent, t0 = c.now(), time.monotonic()
        r = await request(nc, subjects.CARDS_PLAY, cmd.model_dump_json().encode(), timeout=15)
        out.append((sent, _verdict(r), 1000 * (time.monotonic() - t0)))

    try:
        await asyncio.gather(*(one(pid, kind, off) for (pid, kind), off in zip(players.items(), OFFSETS_MS,
                                                                              strict=True)))
    finally:
        await nc.close()
    return out
