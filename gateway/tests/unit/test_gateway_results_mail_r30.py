"""R30: at the season's close the gateway names to notify every verified player who keeps optional mail on, with
their own place and points, and the podium (ties share a place); pending, withdrawn or opted-out players are not
named. Notify keys each message by player and season (services/notify tests), so asking again is harmless."""

from __future__ import annotations

from datetime import UTC, datetime

from turf_common.contracts import subjects
from turf_common.contracts.notify import Done, MailResults, PodiumPlace
from turf_gateway.api import schemas as S
from turf_gateway.handlers.resultsmail import ResultsMail
from turf_gateway.ports import NewPlayer, StatusChange
from turf_gateway.testing import CannedServices, MemoryPlayers, MemoryTables

NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)


def standing(place: int, pid: str, name: str, total: int, prize: str = "0.00") -> S.FinalStanding:
    return S.FinalStanding(place=place, player_id=pid, display_name=name, base=total, bonuses=0, total=total,
                           prize=prize)


async def test_r30_the_final_results_are_mailed_to_verified_players_who_keep_optional_mail() -> None:
    store = MemoryPlayers(MemoryTables())
    ids = {}
    for name in ("ann", "bo", "cy", "dee", "eve"):
        ids[name] = await store.create(NewPlayer(name.title(), f"{name}@example.org", name, "1 Main St", "h"))
    for name in ("ann", "bo", "cy", "dee"):
        await store.change_status(StatusChange(ids[name], "verified", "org", "", None, NOW, False))
    for name in ("ann", "bo", "cy"):   # turned optional mail on (R30: off for a new player)
        store.t.players[ids[name]].announcements_by_mail = True
    store.t.players[ids["dee"]].announcements_by_mail = False          # turned optional mail off
    standings = [standing(1, ids["bo"], "bo", 30, "100.00"), standing(2, ids["ann"], "ann", 20, "25.00"),
                 standing(2, ids["dee"], "dee", 20, "25.00"), standing(4, ids["cy"], "cy", 5)]

    async def results(season_id: str | None) -> S.Results:
        assert season_id is None   # the season in force's
        return S.Results(final=True, standings=standings)

    services = CannedServices({subjects.NOTIFY_MAIL_RESULTS: Done()})
    named = await ResultsMail(store, services, results, "2026-fall").season_closed()
    [(subject, cmd)] = services.asked
    assert subject == subjects.NOTIFY_MAIL_RESULTS and isinstance(cmd, MailResults) and named == 3
    assert cmd.season == "2026-fall"
    assert cmd.podium == [PodiumPlace(place=1, name="bo", total=30, prize="100.00"),
                          PodiumPlace(place=2, name="ann", total=20, prize="25.00"),
                          PodiumPlace(place=2, name="dee", total=20, prize="25.00")]
    assert sorted((r.to, r.name, r.place, r.total, r.prize) for r in cmd.recipients) == [
        ("ann@example.org", "Ann", 2, 20, "25.00"), ("bo@example.org", "Bo", 1, 30, "100.00"),
        ("cy@example.org", "Cy", 4, 5, "0.00")]   # not dee (opted out), not eve (pending)


async def test_r31_the_results_mailed_are_those_of_the_season_the_event_names_not_of_the_season_in_force() -> None:
    store = MemoryPlayers(MemoryTables())
    pid = await store.create(NewPlayer("Ann", "ann@example.org", "ann", "1 Main St", "h"))
    await store.change_status(StatusChange(pid, "verified", "org", "", None, NOW, False))
    store.t.players[pid].announcements_by_mail = True
    asked: list[str | None] = []

    async def results(season_id: str | None) -> S.Results:
        asked.append(season_id)
        return S.Results(final=True, standings=[standing(1, pid, "ann", 7, "50.00")])

    async def in_force() -> str:
        return "2027"   # the clock moved past 2027's first opening in the same step as 2026's close

    services = CannedServices({subjects.NOTIFY_MAIL_RESULTS: Done()})
    assert await ResultsMail(store, services, results, in_force).season_closed("2026") == 1
    [(_, cmd)] = services.asked
    assert asked == ["2026"] and isinstance(cmd, MailResults) and cmd.season == "2026"
