"""R31: each season has its own board. At the next season's first opening every territory is unowned, with no
fortification, and a claim of it is a first claim (a take, never a steal); the last season's board stays as it
ended, readable by naming it (``claims.state`` with ``season_id``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

from claims_world import DAY1, DAY2, SEASON, World, accepted, refused

from turf_common.contracts.claims import CheckReply
from turf_common.contracts.clock import DayStarted
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook

NEXT = replace(SEASON, season_id="2027", first_day=date(2027, 3, 1), last_day=date(2027, 3, 26))
NEXT_DAY1 = gametime.game_days(NEXT)[0]


def opening(day: date) -> datetime:
    return gametime.open_interval(NEXT, day)[0]


async def start_next(w: World, day: date, after: timedelta = timedelta(0)) -> None:
    """The clock at ``after`` past the next season's ``day``'s opening, its day start run (R5)."""
    w.clock.at = opening(day) + after
    await w.h.on_event(DayStarted(occurred_at=opening(day), at=opening(day), game_day=day, game_day_number=1,
                                  week=1, season_id=NEXT.season_id))


async def two_seasons() -> World:
    w = World(seasons=SeasonBook.of(SEASON, NEXT))
    await w.h.claims.seed_territories()
    await w.start(DAY1)
    return w


async def test_r31_the_next_season_opens_on_an_empty_board_and_the_last_ones_stays_as_it_ended() -> None:
    w = await two_seasons()
    accepted(await w.claim("ann", "hoboken"), "take")
    await w.start(DAY2)
    accepted(await w.claim("ann", "hoboken"), "reinforce")
    before = (await w.h.claims.state(None, "2026")).territories

    await start_next(w, NEXT_DAY1)   # R31: the next season's first opening
    board = {t.id: t for t in (await w.h.claims.state(None)).territories}
    assert all(t.owner_id is None and t.progress == 0 and not t.fortified for t in board.values())

    r = accepted(await w.claim("bob", "hoboken"), "take")    # a first claim: no steal of ann's 2026 town
    assert (r.owner_id, r.progress) == ("bob", 1)
    taken = w.sent("territory.changed")[-1]
    assert (taken.previous_owner_id, taken.version) == (None, 1)   # the new board's first change

    assert (await w.h.claims.state(None, "2026")).territories == before   # 2026 as it ended
    assert [t.owner_id for t in (await w.h.claims.state("hoboken", "2026")).territories] == ["ann"]
    assert [t.owner_id for t in (await w.h.claims.state("hoboken")).territories] == ["bob"]
    assert (await w.h.claims.state(None, "1999")).territories == []   # no such season, no board


async def test_r31_the_day_memory_holds_the_new_seasons_owners_not_the_last_ones() -> None:
    w = await two_seasons()
    accepted(await w.claim("ann", "jersey"), "take")
    await start_next(w, NEXT_DAY1, timedelta(minutes=5))
    accepted(await w.claim("carl", "hoboken"), "take")
    # carl's claims of the day are spent: memory refuses his check, answering the 2027 board's owner of jersey
    r = await w.check("carl", "jersey")
    assert isinstance(r, CheckReply) and r.allowed is False and r.territory is not None
    assert r.territory.owner_id is None
    assert w.h.claims.memory.season_id == "2027" and w.h.claims.memory.owner_of("jersey") is None
    refused(await w.claim("dan", "hoboken"), "locked_today")   # R10 on the new board, today's claims count


async def test_r31_a_claims_season_is_the_one_in_force_at_its_instant_from_the_book() -> None:
    w = await two_seasons()
    accepted(await w.claim("ann", "hoboken"), "take")
    claim = next(iter(w.store.state.claims.values()))
    assert claim.season_id == "2026"
    await start_next(w, NEXT_DAY1, timedelta(hours=1))
    accepted(await w.claim("bob", "newark"), "take")
    assert {c.season_id for c in w.store.state.claims.values()} == {"2026", "2027"}
    assert w.store.state.boards["2027"]["hoboken"].owner_id is None
