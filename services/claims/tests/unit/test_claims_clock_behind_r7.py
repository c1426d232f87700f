"""R7 with a watched clock that is behind (compose CI, a NATS node killed: this process's KV watch missed the
organizer's manual move and its poll had not come round): a fix further ahead than R7 allows is judged on the clock
read afresh from NATS KV, not refused ``stale_fix`` on the old time; a fix ahead of the fresh clock too still is.
The clock is read by geo-verify, the claim path's first stage, and the claims service decides at its instant."""

from __future__ import annotations

from datetime import datetime, timedelta

from claims_world import DAY1, DAY2, SEASON, World

from turf_common.contracts.claims import ClaimAcceptedReply, Fix, SubmitClaim
from turf_common.contracts.clock import DayStarted
from turf_common.rules import gametime
from turf_common.testing import FakeClock


class BehindClock(FakeClock):
    """``now()`` answers the old instant the watch kept; ``fresh_now()`` the organizer's latest move."""

    def __init__(self, at: datetime, fresh: datetime) -> None:
        super().__init__(at)
        self.fresh = fresh

    async def fresh_now(self) -> datetime:
        self.fresh_reads += 1
        self.at = self.fresh
        return self.fresh


async def _world(clock: FakeClock) -> World:
    w = World(clock)
    h = w.h
    await h.claims.seed_territories()
    for day in (DAY1, DAY2):
        opening = gametime.open_interval(SEASON, day)[0]
        await h.on_event(DayStarted(occurred_at=opening, at=opening, game_day=day, game_day_number=1, week=1,
                                    season_id="s"))
    return w


def _cmd(fix_time: datetime) -> SubmitClaim:
    return SubmitClaim(player_id="P", player_status="verified",
                       fix=Fix(lat=40.0, lon=-74.0, accuracy_m=10.0, fix_time=fix_time))


async def test_r7_a_fix_ahead_of_a_watched_clock_left_behind_is_judged_on_the_fresh_clock() -> None:
    tuesday = gametime.open_interval(SEASON, DAY2)[0] + timedelta(hours=1)
    clock = BehindClock(tuesday - timedelta(hours=24), fresh=tuesday)   # the watch still says Monday
    w = await _world(clock)
    r = await w.submit(_cmd(tuesday - timedelta(seconds=3)))
    assert isinstance(r, ClaimAcceptedReply) and r.kind == "take", r
    assert clock.fresh_reads == 1


async def test_r7_a_fix_within_the_limits_asks_nothing_and_one_ahead_of_the_fresh_clock_is_still_stale() -> None:
    tuesday = gametime.open_interval(SEASON, DAY2)[0] + timedelta(hours=1)
    clock = BehindClock(tuesday, fresh=tuesday)
    w = await _world(clock)
    ahead = await w.check_cmd(_cmd(tuesday + timedelta(seconds=SEASON.limits.max_fix_future_s + 5)))
    assert ahead.allowed is False and ahead.reason == "stale_fix", ahead   # type: ignore[union-attr]
    assert clock.fresh_reads == 1
    r = await w.submit(_cmd(tuesday - timedelta(seconds=3)))
    assert isinstance(r, ClaimAcceptedReply) and clock.fresh_reads == 1, r
