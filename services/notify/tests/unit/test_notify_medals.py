"""Medals earned live (turf_notify.medals) on fakes: each tier reached is awarded once, told to the player (with a
push) and put on the stream as ``medal.earned``; a redelivered change awards nothing twice; Landlord waits for the
game day's close. The thresholds are the season file's (Raider bronze: 1 steal; Landlord bronze: 3 game days)."""

from __future__ import annotations

from notify_world import HOBOKEN, JERSEY_CITY, SEASON, World, at

from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.notify import MedalEarned
from turf_common.contracts.players import PlayerVerified
from turf_common.rules.medals import Award, MedalSet
from turf_notify.adapters.towns import board_facts
from turf_notify.medals import MedalHandlers, event_id
from turf_notify.ports import Subscription


def medals(w: World) -> MedalHandlers:
    return MedalHandlers(w.store, w.h.relay, SEASON, board_facts(), MedalSet.load(), w.h.deliver)


def changed(when: str, town: str, owner: str, before: str | None, version: int) -> TerritoryChanged:
    return TerritoryChanged(occurred_at=at(when), territory_id=town, owner_id=owner, previous_owner_id=before,
                            progress=1, fortified=False, version=version, cause="claim")


def closed(day: str, number: int) -> DayClosed:
    when = at(f"{day}T22:00:00-04:00")
    return DayClosed(occurred_at=when, at=when, game_day=when.date(), game_day_number=number, week=1,
                     season_id=SEASON.season_id)


def earned(w: World) -> list[tuple[str, str, str, int]]:
    return [(e.player_id, e.medal, e.tier, e.value) for s, e in w.store.state.staged
            if s == subjects.MEDAL_EARNED and isinstance(e, MedalEarned)]


async def test_r9_a_steal_earns_raider_bronze_once_with_a_notification_and_a_feed_story(w: World) -> None:
    await w.player("ada", "Ada")
    await w.store.save_subscription(Subscription("ada", "https://push.example/ada", "BPub", "sec"))
    m = medals(w)
    take = changed("2026-10-05T07:00:00-04:00", HOBOKEN, "bob", None, 1)
    steal = changed("2026-10-05T09:30:00-04:00", HOBOKEN, "ada", "bob", 2)
    await m.on_events([take, steal])
    await m.on_events([steal])   # redelivered: kept once, nothing awarded twice
    assert earned(w) == [("ada", "raider", "bronze", 1)]
    assert w.of("ada") == [("medal_earned", "Medal earned: Raider, bronze (steals: 1).",
                            {"medal": "raider", "tier": "bronze", "value": 1})]
    assert [(p.player_id, p.kind) for p in w.store.state.pushes] == [("ada", "medal_earned")]
    staged = next(e for s, e in w.store.state.staged if s == subjects.MEDAL_EARNED)
    assert staged.event_id == event_id(Award("ada", "raider", "bronze", 1, at("2026-10-05T09:30:00-04:00")))
    assert staged.occurred_at == at("2026-10-05T09:30:00-04:00")


async def test_r2_landlord_bronze_comes_at_the_third_game_days_close(w: World) -> None:
    m = medals(w)
    await m.on_events([changed("2026-10-05T07:00:00-04:00", JERSEY_CITY, "cy", None, 1)])
    await m.on_events([closed("2026-10-05", 1)])
    await m.on_events([closed("2026-10-06", 2)])
    assert ("cy", "landlord", "bronze", 3) not in earned(w)
    await m.on_events([closed("2026-10-07", 3)])
    assert ("cy", "landlord", "bronze", 3) in earned(w)
    await m.on_events([closed("2026-10-07", 3)])
    assert earned(w).count(("cy", "landlord", "bronze", 3)) == 1


async def test_a_medal_is_told_to_the_player_the_main_consumer_knows(w: World) -> None:
    await w.h.on_event(PlayerVerified(occurred_at=at("2026-10-05T06:00:00-04:00"), player_id="bob",
                                      at=at("2026-10-05T06:00:00-04:00"), display_name="Bob"))
    await medals(w).on_events([changed("2026-10-05T06:00:30-04:00", HOBOKEN, "bob", None, 1)])
    assert ("bob", "early_bird", "bronze", 1) in earned(w)   # R3: in the opening minute
    assert [k for k, _, _ in w.of("bob")] == ["verified", "medal_earned"]   # R27: told of the verification too
