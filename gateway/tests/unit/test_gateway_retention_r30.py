"""R30's retention job on fakes: before the set delay after the close nothing is erased; at it, every player's home
address goes and claims is asked to erase every location fix, logged once."""

from __future__ import annotations

from datetime import timedelta

from turf_common.contracts import subjects
from turf_common.contracts.players import TrailsErased
from turf_common.rules import gametime
from turf_common.testing import FakeClock
from turf_gateway.handlers.retention import Retention
from turf_gateway.ports import NewPlayer, Point, ProfileChange
from turf_gateway.testing import CannedServices, MemoryPlayers

SEASON = gametime.load_season()
CLOSES = gametime.season_closes_at(SEASON)


async def test_r30_home_addresses_and_fixes_are_erased_the_set_days_after_the_close_and_logged() -> None:
    players = MemoryPlayers()
    ada = await players.create(NewPlayer("Ada", "ada@example.org", "ada", "1 Main St", "h"))
    await players.update_profile(ada, ProfileChange(home_address="1 Main St", address_norm="1 main st",
                                                    home=Point(40.74, -74.03)))
    services = CannedServices({subjects.CLAIMS_ERASE_TRAILS: TrailsErased(erased=2),
                               subjects.GEO_ERASE_TRAILS: TrailsErased(erased=10)})
    clock = FakeClock(CLOSES + timedelta(days=7) - timedelta(seconds=1))
    job = Retention(players, services, clock, SEASON, days=7)
    assert await job.run_once() is False and services.asked == []
    row = await players.get(ada)
    assert row is not None and row.home_address == "1 Main St"
    clock.at = CLOSES + timedelta(days=7)
    assert await job.run_once() is True
    row = await players.get(ada)
    assert row is not None and (row.home_address, row.address_norm, row.home) == ("", None, None)
    assert services.subjects() == [subjects.CLAIMS_ERASE_TRAILS, subjects.GEO_ERASE_TRAILS]   # before and now
    [entry] = [e for e in players.t.admin_log if e.action == "personal_data_erased"]
    assert entry.detail == {"home_addresses": 1, "location_fixes": 12}
    assert await job.run_once() is False and len(services.subjects()) == 2
