"""R5/R12: a player's card command at a game day's opening instant is ordered after that day's deal, whatever the
clock mode (the command waits for the deal; it does not rely on the manual clock's route waiting)."""

from __future__ import annotations

import asyncio
from datetime import date, datetime

from cards_world import BEFORE, world

from turf_common.contracts.cards import PlayCard, PlayReply
from turf_common.contracts.clock import DayStarted

#: Tuesday 6 October 2026, 06:00 in New York: the opening instant of game day 2
TUE_OPENING = datetime.fromisoformat("2026-10-06T06:00:00-04:00")
TUESDAY = date(2026, 10, 6)


def tuesday_started() -> DayStarted:
    return DayStarted(occurred_at=TUE_OPENING, at=TUE_OPENING, game_day=TUESDAY, game_day_number=2, week=1,
                      season_id="2026")


async def test_r12_r5_a_play_at_the_opening_instant_waits_for_that_days_deal() -> None:
    # R12: p0 holds no card before Tuesday's day start; the card that start deals it (its draw 0 under the unit
    # seed) is a Double Trouble, which it plays at the opening instant, before the deal reached the service
    w = world(now=TUE_OPENING, deal_wait_s=5.0)
    await w.verify("p0", at=BEFORE)
    assert await w.hand("p0") == []
    played = asyncio.create_task(w.h.plays.play(PlayCard(player_id="p0", player_status="verified",
                                                          type="double_trouble")))
    await asyncio.sleep(0.1)
    assert not played.done()                  # the play waits for the deal ...
    await w.h.on_event(tuesday_started())
    reply = await asyncio.wait_for(played, 2.0)
    assert isinstance(reply, PlayReply) and (reply.type, reply.state) == ("double_trouble", "consumed"), reply
    assert [c.state for c in w.store.state.cards.values() for c in [c[0]]] == ["consumed"]


async def test_r12_r5_a_play_after_the_deal_does_not_wait() -> None:
    # once the day's deal is committed, the same play answers at once (the first command of the day remembers it)
    w = world(now=TUE_OPENING, deal_wait_s=5.0)
    await w.verify("p0", at=BEFORE)
    await w.h.on_event(tuesday_started())
    reply = await asyncio.wait_for(w.h.plays.play(PlayCard(player_id="p0", player_status="verified",
                                                           type="double_trouble")), 0.5)
    assert isinstance(reply, PlayReply) and reply.state == "consumed", reply
    assert TUESDAY in w.h.cx.dealt
