"""Hands on fakes (R12 draws and deals, the seed; R28 hand corrections)."""

from __future__ import annotations

from datetime import date, datetime

from cards_world import BEFORE, OPEN, SEED, World

from turf_common.contracts.cards import AdjustHand, CardDrawn, HandsDealt, SeedReply
from turf_common.contracts.clock import DayStarted, SeasonStarted
from turf_common.rules import cards as rules


def day_start(day: date, at: datetime) -> DayStarted:
    return DayStarted(occurred_at=at, at=at, game_day=day, game_day_number=1, week=1, season_id="s")


async def test_r12_a_player_verified_while_the_season_runs_draws_three_cards_from_the_seed_once(w: World) -> None:
    await w.verify("p1")
    await w.verify("p1")   # a repeat
    season = w.season_id
    drawn = [e for _, e in w.published("card.drawn") if isinstance(e, CardDrawn)]
    assert [(e.draw_index, e.card_type, e.reason) for e in drawn] == [
        (i, rules.draw_card(SEED, season, "p1", i), "verification") for i in range(3)]
    assert [c.id for c in await w.hand("p1")] == [e.card_id for e in drawn]


async def test_r12_day_starts_deal_before_they_draw_monday_tops_up_to_three_and_other_days_add_one(w: World) -> None:
    await w.verify("p1", at=BEFORE)   # before the season: nothing drawn yet
    await w.verify("p2", at=BEFORE)
    await w.give("p2", "war", "war")
    monday = datetime.fromisoformat("2026-10-05T06:00:00-04:00")
    await w.h.on_event(day_start(monday.date(), monday))
    tuesday = datetime.fromisoformat("2026-10-06T06:00:00-04:00")
    ev = day_start(tuesday.date(), tuesday)
    await w.h.on_event(ev)
    await w.h.on_event(ev)   # a redelivery
    subjects = [s for s, _ in w.published() if s in ("card.dealt", "card.drawn")]
    assert subjects == ["card.dealt"] + ["card.drawn"] * 4 + ["card.dealt"] + ["card.drawn"] * 2
    deals = [e for _, e in w.published("card.dealt") if isinstance(e, HandsDealt)]
    assert [(d.reason, d.hands, d.draws) for d in deals] == [
        ("week_start", {"p1": 0, "p2": 2}, {"p1": 3, "p2": 1}),
        ("day_start", {"p1": 3, "p2": 3}, {"p1": 1, "p2": 1})]
    assert [len(await w.hand(p)) for p in ("p1", "p2")] == [4, 4]


async def test_r12_the_seed_is_committed_at_season_start_and_revealed_only_once_the_season_closed(w: World) -> None:
    start = SeasonStarted(occurred_at=OPEN, at=OPEN, game_day=OPEN.date(), game_day_number=1, week=1, season_id="s")
    await w.h.on_event(start)
    ((_, committed),) = w.published("card.seed_committed")
    assert committed.commitment == rules.seed_commitment(SEED)  # type: ignore[attr-defined]
    assert await w.h.hands.seed_info() == SeedReply(season_id=w.season_id,
                                                    commitment=rules.seed_commitment(SEED), seed=None)
    w.clock.at = BEFORE   # R12.1: the commitment is public from the first start on, the seed only after the close
    assert (await w.h.hands.seed_info()) == SeedReply(season_id=w.season_id,
                                                      commitment=rules.seed_commitment(SEED), seed=None)
    w.clock.at = datetime.fromisoformat("2027-06-01T12:00:00-04:00")
    assert (await w.h.hands.seed_info()).seed == SEED


async def test_r28_a_hand_correction_applies_once_and_removes_the_last_drawn_ready_card(w: World) -> None:
    await w.verify("p1", at=BEFORE)
    (first,) = await w.give("p1", "joker")
    w.clock.at = OPEN.replace(minute=5)
    (second,) = await w.give("p1", "joker")
    cmd = AdjustHand(correction_id="fix-1", player_id="p1", remove=["joker", "war"])
    out = await w.h.hands.adjust(cmd)
    assert [c.id for c in out.removed] == [second] and [c.id for c in out.cards] == [first]  # type: ignore[union-attr]
    assert await w.h.hands.adjust(cmd) == out   # a repeat answers the first reply and changes nothing
    assert [c.id for c in await w.hand("p1")] == [first]
