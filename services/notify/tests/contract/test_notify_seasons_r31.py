"""R31 in notify's use cases, on the memory store and on PostgreSQL: each season has its own medals (a new season
starts with none, and a player's medals of the last season stay) and its own day's standings (R25: a correction
after a close moves the closed season's totals, not the next one's)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.notify import MedalEarned
from turf_common.contracts.scoring import ScoreChange, ScoreUpdated
from turf_common.rules import gametime
from turf_common.rules.medals import MedalSet
from turf_common.seasonbook import SeasonBook
from turf_common.testing import FakeClock, RecordingPublisher
from turf_notify.adapters.towns import board_facts
from turf_notify.handlers import NotifyHandlers
from turf_notify.medals import MedalHandlers
from turf_notify.ports import NotifyStore
from turf_notify.testing import MemoryNotifyStore

S2026 = gametime.load_season()
S2027 = replace(S2026, season_id="2027", first_day=date(2027, 10, 4), last_day=date(2027, 10, 23))
HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


OPENING_2027 = gametime.season_opens_at(S2027)


def handlers(store: NotifyStore) -> tuple[NotifyHandlers, MedalHandlers]:
    book = SeasonBook.of(S2026, S2027)
    h = NotifyHandlers(store=store, clock=FakeClock(OPENING_2027), relay=RecordingPublisher(), season=book,
                       towns={HOBOKEN: "Hoboken", JERSEY_CITY: "Jersey City"})
    return h, MedalHandlers(store, h.relay, book, board_facts(), MedalSet.load(), h.deliver)


def changed(when: datetime, town: str, owner: str, before: str | None, version: int) -> TerritoryChanged:
    return TerritoryChanged(occurred_at=when, territory_id=town, owner_id=owner, previous_owner_id=before,
                            progress=1, fortified=False, version=version, cause="claim")


def closed(season: gametime.SeasonConfig, day: date, number: int) -> DayClosed:
    when = gametime.open_interval(season, day)[1]
    return DayClosed(occurred_at=when, at=when, game_day=day, game_day_number=number, week=1,
                     season_id=season.season_id)


async def awarded(store: NotifyStore, season: str, *players: str) -> set[str]:
    async with store.tx() as tx:
        return await tx.medals.awarded(season, set(players))


async def test_r31_the_next_season_starts_with_no_medals_and_the_last_ones_stay(store: NotifyStore) -> None:
    _, m = handlers(store)
    # 2026: ada steals Hoboken from bob (Raider bronze) and holds Jersey City three game days (Landlord bronze)
    await m.on_events([changed(at("2026-10-05T07:00:00-04:00"), HOBOKEN, "bob", None, 1),
                       changed(at("2026-10-05T09:30:00-04:00"), HOBOKEN, "ada", "bob", 2),
                       changed(at("2026-10-05T10:00:00-04:00"), JERSEY_CITY, "ada", None, 1)])
    for n, day in enumerate((date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 7)), start=1):
        await m.on_events([closed(S2026, day, n)])
    of_2026 = await awarded(store, "2026", "ada", "bob")
    assert {"ada:raider:bronze", "ada:landlord:bronze"} <= of_2026
    # 2027's first opening: a claim of Hoboken on the new, empty board; nothing of 2026 counts in 2027
    await m.on_events([changed(OPENING_2027, HOBOKEN, "bob", None, 1)])
    assert await awarded(store, "2027", "ada", "bob") == {"bob:early_bird:bronze"}   # R3: its opening minute
    await m.on_events([closed(S2027, S2027.first_day, 1)])
    assert "ada:landlord:silver" not in await awarded(store, "2027", "ada")   # her 2026 days do not carry over
    # ada steals Hoboken in 2027: Raider bronze again, a medal of 2027's own; 2026's stay as they were
    await m.on_events([changed(at("2027-10-05T09:00:00-04:00"), HOBOKEN, "ada", "bob", 2)])
    assert "ada:raider:bronze" in await awarded(store, "2027", "ada")
    assert await awarded(store, "2026", "ada", "bob") == of_2026
    if isinstance(store, MemoryNotifyStore):
        told = [(e.season_id, e.event_id) for s, e in store.state.staged
                if s == subjects.MEDAL_EARNED and isinstance(e, MedalEarned) and e.medal == "raider"]
        assert [s for s, _ in told] == ["2026", "2027"] and told[0][1] != told[1][1]   # the stream keeps both


async def test_r31_r25_each_seasons_day_standings_are_its_own(store: NotifyStore) -> None:
    h, _ = handlers(store)

    def update(season: str | None, when: datetime, totals: dict[str, int]) -> ScoreUpdated:
        return ScoreUpdated(occurred_at=when, at=when, players=list(totals), territory_id="", side_quests={},
                            season_id=season,
                            changes=[ScoreChange(player_id=p, base=t, outposts=0, bonuses=0, total=t, territories=t)
                                     for p, t in totals.items()])

    await h.on_events([update(None, at("2026-10-06T10:00:00-04:00"), {"ada": 10, "bob": 4})])   # before seasons
    await h.on_events([update("2027", OPENING_2027, {"bob": 1})])
    await h.on_events([update("2026", at("2026-12-01T10:00:00-05:00"), {"ada": 12})])   # a correction (R28)
    async with store.tx() as tx:
        assert await tx.standings.scores("2026") == {"ada": 12, "bob": 4}
        assert await tx.standings.scores("2027") == {"bob": 1}
