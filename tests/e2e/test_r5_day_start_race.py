"""R5 (race): day-start work comes before any effect of that day, in every clock mode. A stack with an
accelerated clock (1800×: a game second is 0.56 ms) runs through several openings; before each, players own
territories with a Freeze scheduled for the next day (R15), and around the opening instant rivals fire
``claims.check`` and ``claims.submit`` at those territories again and again. Every answer must reflect the day
start: ``game_closed`` before the opening instant, ``frozen`` from it on (never allowed, never accepted), even in
the milliseconds when the clock has passed the opening and the claims service has not yet run the day start
(before the fix, ``claims.check`` answered ``allowed`` there). Bounded: ``DAYS`` openings, about 50 s each."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import nats
import pytest

from tests.support.bus import inside, request
from tests.support.stackfix import running_stack
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.claims import Fix, SubmitClaim
from turf_common.contracts.clock import ClockState
from turf_common.contracts.effects import ScheduleEffect
from turf_common.rules import gametime
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow, pytest.mark.serial]   # ms around an opening instant, alone on the machine

FACTOR = 1800
DAYS = 2                    # openings raced: a game day is 48 real seconds, alone on the machine
PER_DAY = 3                 # frozen territories per opening
BEFORE_S, AFTER_S = 0.03, 0.15   # real seconds of firing around each opening instant
ROUND_S, IN_FLIGHT = 0.005, 12
SEASON = gametime.load_season()


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # Monday 16:00, open: a stack starts in a few real seconds (a game hour is 2 s), so the first
    # preparation comes before 20:00 and the first opening raced is Tuesday's, 14 game hours (28 s) on, rather
    # than a whole game day later; a slower start only races the day after
    with running_stack(Path(tmp_path_factory.mktemp("r5race")), TURF_CLOCK=f"accelerated:{FACTOR}",
                       TURF_CLOCK_START="2026-10-05T16:00:00-04:00") as s:
        yield s


class Race:
    def __init__(self, nc: Any, stack: Stack) -> None:
        self.nc, self.stack, self.state = nc, stack, None

    async def read_clock(self) -> ClockState:
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

    def cmd(self, player: str, tid: str) -> SubmitClaim:
        # 20 game s in the future (30 allowed): the fix stays fresh (R7) for ~80 ms of real time
        fix_time = self.now() + timedelta(seconds=20)
        lat, lon = inside(tid)   # geo-verify locates it (R7)
        return SubmitClaim(player_id=player, player_status="verified",
                           fix=Fix(lat=lat, lon=lon, accuracy_m=10.0, fix_time=fix_time))

    async def ask(self, subject: str, msg: Any) -> dict[str, Any]:
        return await request(self.nc, subject, msg.model_dump_json().encode(), timeout=15)


async def _prepare(race: Race, tids: list[str], day: Any) -> dict[str, str]:
    """Each territory taken by a new owner who schedules a Freeze on it for ``day`` (R15). Returns owner by id."""
    owners = {}
    for tid in tids:
        owner = uuid.uuid4().hex
        r = await race.ask(subjects.CLAIMS_SUBMIT, race.cmd(owner, tid))
        assert r["ok"] is True and r["kind"] == "take", r
        f = await race.ask(subjects.CLAIMS_EFFECT_SCHEDULE, ScheduleEffect(
            command_id=uuid.uuid4().hex, player_id=owner, card_id=uuid.uuid4().hex, kind="freeze", territory_id=tid))
        assert f["ok"] is True and f["active_on"] == day.isoformat(), f
        owners[tid] = owner
    return owners


async def _fire(race: Race, tids: list[str], opening: datetime) -> list[tuple[str, datetime, float, dict[str, Any]]]:
    """Checks and claims by fresh rivals on every territory, a round every ``ROUND_S``, from ``BEFORE_S`` real
    seconds before the opening instant to ``AFTER_S`` after, at most ``IN_FLIGHT`` at once (more only queue up
    and turn stale, R7). Returns (subject, game instant sent, real seconds to the answer, answer)."""
    await asyncio.sleep(max(race.real_at(opening) - BEFORE_S - time.time(), 0))
    out: list[tuple[str, datetime, float, dict[str, Any]]] = []
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one(subject: str, tid: str) -> None:
        async with gate:
            cmd = race.cmd(uuid.uuid4().hex, tid)
            sent, t0 = race.now(), time.monotonic()
            r = await race.ask(subject, cmd)
            out.append((subject, sent, time.monotonic() - t0, r))

    end = race.real_at(opening) + AFTER_S
    tasks = []
    while True:   # one round at least: a loaded machine's sleep above may overshoot the whole window
        tasks += [asyncio.ensure_future(one(s, t)) for t in tids for s in (subjects.CLAIMS_CHECK,
                                                                          subjects.CLAIMS_SUBMIT)]
        await asyncio.sleep(ROUND_S)
        if time.time() >= end:
            break
    await asyncio.gather(*tasks)
    return out


def _verdict(subject: str, r: dict[str, Any]) -> str:
    if subject == subjects.CLAIMS_CHECK and r.get("ok") is True:
        return "allowed" if r["allowed"] else str(r["reason"])
    return "accepted" if r.get("ok") is True else str(r["reason"])


def test_r5_checks_and_claims_at_the_opening_instant_see_the_days_freezes_accelerated_clock(fast: Stack) -> None:
    board = sorted(load_board().territories)

    async def go() -> list[dict[str, Any]]:
        nc = await nats.connect(fast.env["TURF_NATS_URL"])
        race = Race(nc, fast)
        report: list[dict[str, Any]] = []
        try:
            await race.read_clock()
            while len(report) < DAYS:
                now = race.now()
                today = gametime.game_day_at(SEASON, now)
                if today is None or not gametime.is_open(SEASON, now) or \
                        now > gametime.open_interval(SEASON, today)[1] - timedelta(hours=2):
                    # too late to prepare (the stack's start-up may take a game day): wait for the next opening
                    nxt = gametime.next_change(SEASON, now + timedelta(hours=2))
                    assert nxt is not None
                    await asyncio.sleep(max(race.real_at(nxt + timedelta(minutes=1)) - time.time(), 0))
                    continue
                day = gametime.next_game_day(SEASON, today)
                assert day is not None
                k = len(report)
                tids = board[k * PER_DAY:(k + 1) * PER_DAY]
                opening = gametime.open_interval(SEASON, day)[0]
                await _prepare(race, tids, day)
                t0 = time.monotonic()
                answers = await _fire(race, tids, opening)
                fired = time.monotonic() - t0
                verdicts = Counter((s.split(".")[-1], _verdict(s, r)) for s, _, _, r in answers)
                frozen = sorted(at for s, at, _, r in answers if _verdict(s, r) == "frozen")
                waits = sorted(lat for _, _, lat, _ in answers)
                report.append({"day": day.isoformat(), "answers": len(answers),
                               "verdicts": {f"{a}:{b}": n for (a, b), n in sorted(verdicts.items())},
                               "sent_before_opening": sum(1 for _, at, _, _ in answers if at < opening),
                               "first_frozen_sent_at_game_s": (frozen[0] - opening).total_seconds() if frozen
                               else None, "answer_ms_median_max": (round(1000 * waits[len(waits) // 2]),
                                                                   round(1000 * waits[-1])),
                               "fire_s": round(fired, 2)})
                # R5: nothing of that day is decided as if its Freezes were not active yet
                bad = [(s, at, r) for s, at, _, r in answers if _verdict(s, r) in ("allowed", "accepted")]
                assert not bad, (day, bad[:3], report[-1])
                assert {_verdict(s, r) for s, _, _, r in answers} <= {"game_closed", "frozen", "stale_fix"}, \
                    report[-1]
                # the race was run: frozen answers from the opening instant on, for checks and claims both
                assert verdicts[("check", "frozen")] > 0 and verdicts[("submit", "frozen")] > 0, report[-1]
        finally:
            await nc.close()
        return report

    report = asyncio.run(go())
    print("\nR5 race report:", *report, sep="\n  ")
