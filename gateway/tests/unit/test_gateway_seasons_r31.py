"""R31's use cases on fakes: the configuration file's season enters the catalog once and never beside an overlapping
one; registering joins the running season, or between seasons the next; a new season's card seed is its own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

import pytest

from turf_common.rules import seasons as rules
from turf_common.rules.cards import seed_commitment
from turf_common.rules.gametime import load_season
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.testing import MemoryPlayers, MemorySeasons

FORM = {"id": "2027", "zone": "America/New_York", "first_day": "2027-10-04", "last_day": "2027-10-23",
        "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00"}
FILE_SEASON = rules.from_config(load_season(), [Decimal("50.00"), Decimal("25.00"), Decimal("25.00")], "secret")


@dataclass
class Clock:
    at: datetime

    async def now(self) -> datetime:
        return self.at


def seasons_at(iso: str) -> tuple[Seasons, MemorySeasons, Clock]:
    store, clock = MemorySeasons(), Clock(datetime.fromisoformat(iso))
    return Seasons(store, MemoryPlayers(), clock, "secret"), store, clock


async def test_r31_the_configuration_files_season_enters_the_catalog_once_and_never_beside_an_overlap() -> None:
    seasons, store, _ = seasons_at("2026-09-01T12:00:00-04:00")
    await seasons.ensure(FILE_SEASON)
    await seasons.ensure(FILE_SEASON)
    assert [s.id for s in await store.all()] == ["2026"]
    other = rules.parse_season(FORM | {"id": "other", "first_day": "2026-10-01", "last_day": "2026-10-10"},
                               defaults=FILE_SEASON, commitment="c")
    assert isinstance(other, rules.Season)
    seasons2, store2, _ = seasons_at("2026-09-01T12:00:00-04:00")
    await store2.create(other, "org", datetime.fromisoformat("2026-09-01T12:00:00-04:00"))
    await seasons2.ensure(FILE_SEASON)
    assert [s.id for s in await store2.all()] == ["other"]


async def test_r31_registering_joins_the_running_season_and_between_seasons_the_next_one() -> None:
    seasons, store, clock = seasons_at("2026-10-06T12:00:00-04:00")
    await seasons.ensure(FILE_SEASON)
    await seasons.join_on_registration("p1", "1 Main St")
    clock.at = datetime.fromisoformat("2026-12-07T12:00:00-05:00")
    await seasons.create("org", FORM)
    await seasons.join_on_registration("p2", "2 Main St")
    assert (await store.joined("p1"), await store.joined("p2")) == ({"2026": "1 Main St"}, {"2027": "2 Main St"})


async def test_r12_1_a_new_season_commits_to_its_own_seed_derived_from_the_secret() -> None:
    seasons, store, _ = seasons_at("2026-12-07T12:00:00-05:00")
    made = await seasons.create("org", FORM)
    assert made["seed_commitment"] == seed_commitment(rules.season_seed("secret", "2027"))
    assert made["seed_commitment"] != seed_commitment("secret")
    assert [(subject, s.id) for subject, s in store.events] == [("season.created", "2027")]


async def test_r31_a_refused_form_saves_nothing_and_names_the_field() -> None:
    seasons, store, _ = seasons_at("2026-12-07T12:00:00-05:00")
    with pytest.raises(ApiError) as e:
        await seasons.create("org", FORM | {"open_time": "23:00"})
    assert (e.value.reason, e.value.status) == ("invalid_input", 422) and e.value.message.startswith("close_time:")
    assert await store.all() == [] and store.events == []


async def test_r31_a_season_another_replica_made_a_moment_ago_is_found_by_this_one_not_refused_not_found() -> None:
    here, store, clock = seasons_at("2026-12-07T12:00:00-05:00")
    await here.ensure(FILE_SEASON)
    assert [s.id for s in await here.catalog()] == ["2026"]   # cached now, for FRESH_S seconds
    there = Seasons(store, MemoryPlayers(), clock, "secret")   # another gateway replica on the same database
    await there.create("org", FORM)
    assert (await here.find("2027")).id == "2027"
    with pytest.raises(ApiError):
        await here.find("1999")
