"""R31 on both stores (the memory fake and PostgreSQL): each season has its own board. The claims use cases wired by
bootstrap over the store under test, the claim path's verdicts made here (geo-verify's part is not under test)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

from claims_backends import Backend

from turf_claims import bootstrap
from turf_claims.handlers import ClaimsHandlers
from turf_common.contracts.claims import ClaimAcceptedReply, Fix, SubmitClaim
from turf_common.contracts.clock import DayStarted
from turf_common.contracts.geo import Located, Verdict, VerifiedClaim
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook
from turf_common.testing import FakeClock

SEASON = gametime.load_season()
NEXT = replace(SEASON, season_id="2027", first_day=date(2027, 3, 1), last_day=date(2027, 3, 26))
NAMES = {"hoboken": "Hoboken", "jersey": "Jersey City"}


class NoRelay:
    async def flush(self) -> None:
        return None


def opening(cfg: gametime.SeasonConfig, day: date) -> datetime:
    return gametime.open_interval(cfg, day)[0]


async def started(h: ClaimsHandlers, clock: FakeClock, cfg: gametime.SeasonConfig, day: date) -> None:
    clock.at = opening(cfg, day) + timedelta(minutes=1)
    await h.on_event(DayStarted(occurred_at=opening(cfg, day), at=opening(cfg, day), game_day=day,
                                game_day_number=1, week=1, season_id=cfg.season_id))


async def claim(h: ClaimsHandlers, clock: FakeClock, player: str, tid: str) -> ClaimAcceptedReply:
    cmd = SubmitClaim(player_id=player, player_status="verified",
                      fix=Fix(lat=40.7, lon=-74.0, accuracy_m=8.0, fix_time=clock.at - timedelta(seconds=2)))
    r = await h.claims.submit(VerifiedClaim(claim=cmd, received_at=clock.at, verdict=Verdict(
        located=Located(territory_id=tid, territory_name=NAMES[tid], border_distance_m=250.0))))
    assert isinstance(r, ClaimAcceptedReply), r
    return r


async def test_r31_the_next_season_opens_on_an_empty_board_and_the_last_ones_stays_as_it_ended(
        backend: Backend) -> None:
    clock = FakeClock(opening(SEASON, SEASON.first_day))
    h = bootstrap.handlers(backend.store, clock, NoRelay(), SeasonBook.of(SEASON, NEXT), NAMES)
    await h.claims.seed_territories()
    day1, day2 = gametime.game_days(SEASON)[:2]
    await started(h, clock, SEASON, day1)
    assert (await claim(h, clock, "ann", "hoboken")).kind == "take"
    await started(h, clock, SEASON, day2)
    assert (await claim(h, clock, "ann", "hoboken")).kind == "reinforce"
    assert (await claim(h, clock, "bob", "jersey")).kind == "take"
    ended = (await h.claims.state(None, "2026")).territories

    await started(h, clock, NEXT, NEXT.first_day)   # the next season's first opening
    assert all(t.owner_id is None and t.progress == 0 and not t.fortified
               for t in (await h.claims.state(None)).territories)
    r = await claim(h, clock, "bob", "hoboken")
    assert (r.kind, r.owner_id, r.progress) == ("take", "bob", 1)   # a first claim, no steal of ann's town
    assert (await claim(h, clock, "ann", "jersey")).kind == "take"

    assert (await h.claims.state(None, "2026")).territories == ended   # 2026 as it ended
    now = {t.id: t.owner_id for t in (await h.claims.state(None)).territories}
    assert now == {"hoboken": "bob", "jersey": "ann"}
    outlook = await h.outlook.outlook("ann")   # ann's towns now: 2027's only, no War on her 2026 losses
    assert [t.id for t in outlook.territories] == ["jersey"] and outlook.war_deadlines == []
