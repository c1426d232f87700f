"""The season book every process plays by (R31): the calendar in force at an instant, across seasons, from the
catalog the clock stores; each season's card seed (R12.1)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from zoneinfo import ZoneInfo

from turf_common.contracts.clock import SeasonCalendar, SetSeasons
from turf_common.rules import gametime
from turf_common.rules.cards import seed_commitment
from turf_common.rules.seasons import season_seed
from turf_common.seasonbook import SeasonBook

ET = ZoneInfo("America/New_York")
S2026 = gametime.load_season(None)
S2027 = replace(S2026, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23))
SEED = "the deployment's secret seed"


def _catalog(*cals: tuple[gametime.SeasonConfig, str]) -> str:
    return SetSeasons(seasons=[SeasonCalendar(config=c.to_dict(), seed_commitment=k) for c, k in cals]
                      ).model_dump_json()


def test_r31_the_calendar_in_force_is_the_last_opened_season_until_the_next_first_opening() -> None:
    book = SeasonBook(S2026)
    assert book.apply(_catalog((S2027, "x"), (S2026, seed_commitment(SEED))))
    assert book.config_at(datetime(2026, 9, 1, tzinfo=ET)).season_id == "2026"   # before any: the first
    assert book.config_at(datetime(2026, 10, 10, 12, tzinfo=ET)).season_id == "2026"
    assert book.config_at(datetime(2027, 3, 1, tzinfo=ET)).season_id == "2026"   # between: the last closed
    assert book.config_at(datetime(2027, 10, 4, 5, 59, tzinfo=ET)).season_id == "2026"
    assert book.config_at(datetime(2027, 10, 4, 6, tzinfo=ET)).season_id == "2027"
    assert [c.season_id for c in book.configs] == ["2026", "2027"] and book.get("2027") == S2027


def test_r31_before_any_catalog_the_book_holds_the_configuration_files_season_and_ignores_what_does_not_parse() -> None:
    book = SeasonBook(S2026)
    assert book.config_at(datetime(2030, 1, 1, tzinfo=ET)) == S2026
    assert not book.apply(b'{"seasons": [{"config": {"season_id": "x"}, "seed_commitment": "c"}]}')
    assert not book.apply(None)
    assert book.configs == (S2026,)
    assert book.apply(_catalog((S2026, "a"), (S2027, "b"))) and not book.apply(_catalog((S2026, "a"), (S2027, "b")))


def test_r12_1_the_file_season_draws_from_the_seed_itself_and_a_later_season_from_its_own_derived_seed() -> None:
    book = SeasonBook(S2026)
    assert book.seed("2026", SEED) == SEED   # no catalog yet: the file's season
    book.apply(_catalog((S2026, seed_commitment(SEED)), (S2027, seed_commitment(season_seed(SEED, "2027")))))
    assert book.seed("2026", SEED) == SEED
    assert book.seed("2027", SEED) == season_seed(SEED, "2027") != SEED
