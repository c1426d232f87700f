"""The notify use cases on fakes: each event applied once, announcements to everyone, the reclaim reminder on the
game clock (R14), quiet hours and grouped steals in pushes, gone subscriptions dropped, Discord queued and
retried."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

from notify_world import HOBOKEN, JERSEY_CITY, World, at, world

from turf_common.contracts import subjects
from turf_common.contracts.claims import ClaimAccepted, TerritoryChanged
from turf_common.contracts.notify import AnnouncementPublished, PublishAnnouncement
from turf_notify.ports import Subscription


def steal(tid: str, when: str, event_id: str = "e1", by: str = "a", victim: str = "v") -> ClaimAccepted:
    t = at(when)
    return ClaimAccepted(event_id=event_id, occurred_at=t, claim_id="c-" + event_id, player_id=by, territory_id=tid,
                         kind="steal", game_day=t.date(), progress=1, fortified=False, previous_owner_id=victim,
                         lat=40.7, lon=-74.0, accuracy_m=10, border_distance_m=None)


async def test_a_steal_delivered_twice_is_applied_once_r14(w: World) -> None:
    await w.player("a", "alice")
    await w.player("v", "victor")
    ev = steal(HOBOKEN, "2026-10-05T12:00:00-04:00")
    await w.h.on_event(ev)
    await w.h.on_event(ev)   # a redelivery (lost ack)
    assert w.of("v") == [("territory_stolen", "alice stole Hoboken from you. A War card would let you "
                          "take it back until Mon 17:00 "
                          "(5 game hours).",
                          {"territory_id": HOBOKEN, "by": "a", "war_until": "2026-10-05T17:00:00-04:00"})]
    assert w.of("a") == []
    assert w.store.state.staged == []   # a notification is stored, not published (nobody consumed it)
    assert [p.content for p in w.store.state.posts] == ["⚔️ alice stole **Hoboken** from victor."]


async def test_an_announcement_reaches_every_verified_player_once_per_command_rule_11(w: World) -> None:
    for pid in ("a", "v", "x"):
        await w.player(pid, pid.upper())
    cmd = PublishAnnouncement(command_id="k1", at=at("2026-10-05T12:00:00-04:00"), title="Rule change",
                              body="Hoboken counts double.")
    first = await w.h.announce(cmd)
    again = await w.h.announce(cmd)
    assert first == again
    a = first.announcement
    for pid in ("a", "v", "x"):
        assert w.of(pid) == [("announcement", "Announcement: Rule change", {"announcement_id": a.id})]
    published = [e for s, e in w.store.state.staged if s == subjects.ANNOUNCEMENT_PUBLISHED]
    assert published == [AnnouncementPublished(event_id=published[0].event_id, occurred_at=a.at,
                                               announcement_id=a.id, at=a.at, title="Rule change",
                                               body="Hoboken counts double.")]
    assert [p.content for p in w.store.state.posts] == ["📣 **Rule change**\nHoboken counts double."]
    assert (await w.h.announcements(10)).announcements == [a]


async def test_r14_the_reclaim_reminder_comes_one_game_hour_before_the_window_ends(w: World) -> None:
    war = TerritoryChanged(occurred_at=at("2026-10-12T10:00:00-04:00"), territory_id=HOBOKEN, owner_id="v",
                           previous_owner_id="a", progress=1, fortified=False, version=3, cause="war")
    await w.h.on_event(war)
    w.clock.at = at("2026-10-13T08:59:59-04:00")
    await w.h.tick()
    assert [k for k, _, _ in w.of("a")] == ["war_declared"]
    w.clock.at = at("2026-10-13T09:00:00-04:00")
    await w.h.tick()
    await w.h.tick()
    assert [(k, d) for k, _, d in w.of("a")][1:] == [
        ("reclaim_ending", {"territory_id": HOBOKEN, "reclaim_until": "2026-10-13T10:00:00-04:00"})]


async def test_r14_a_reclaim_cancels_the_reminder(w: World) -> None:
    await w.h.on_event(TerritoryChanged(occurred_at=at("2026-10-12T10:00:00-04:00"), territory_id=HOBOKEN,
                                        owner_id="v", previous_owner_id="a", progress=1, fortified=False,
                                        version=3, cause="war"))
    t = at("2026-10-12T12:00:00-04:00")
    await w.h.on_event(ClaimAccepted(occurred_at=t, claim_id="c9", player_id="a", territory_id=HOBOKEN,
                                     kind="war_reclaim", game_day=t.date(), progress=1, fortified=False,
                                     previous_owner_id="v", lat=40.7, lon=-74.0, accuracy_m=5,
                                     border_distance_m=None))
    w.clock.at = at("2026-10-14T12:00:00-04:00")
    await w.h.tick()
    assert [k for k, _, _ in w.of("a")] == ["war_declared"]


async def test_steals_within_a_minute_make_one_push_and_a_gone_subscription_is_dropped() -> None:
    w = world("2026-10-05T12:00:00-04:00")
    await w.store.save_subscription(Subscription("v", "https://push.example/ok", "k", "s"))
    await w.store.save_subscription(Subscription("v", "https://push.example/gone", "k", "s"))
    w.push.answer = lambda endpoint: 410 if endpoint.endswith("gone") else 201
    await w.h.on_event(steal(HOBOKEN, "2026-10-05T12:00:00-04:00", "e1"))
    w.wall[0] += timedelta(seconds=30)
    await w.h.on_event(steal(JERSEY_CITY, "2026-10-05T12:00:00-04:00", "e2"))
    await w.h.tick()
    assert w.push.sent == []   # the first steal's minute is not over
    w.wall[0] += timedelta(seconds=30)
    await w.h.tick()
    assert [(e, p["title"], p["kinds"]) for e, p in w.push.sent] == [
        ("https://push.example/gone", "Turf War", ["territory_stolen", "territory_stolen"]),
        ("https://push.example/ok", "Turf War", ["territory_stolen", "territory_stolen"])]
    assert w.push.sent[1][1]["body"] == ("2 of your towns were stolen. A War card would let you take one back "
                                         "within 5 game hours.")
    assert [s.endpoint for s in await w.store.subscriptions("v")] == ["https://push.example/ok"]
    await w.h.tick()
    assert len(w.push.sent) == 2   # sent once


async def test_quiet_hours_a_sunday_steal_is_pushed_at_mondays_opening() -> None:
    w = world("2026-10-11T12:00:00-04:00")
    await w.store.save_subscription(Subscription("v", "https://push.example/ok", "k", "s"))
    # a correction on Sunday: a steal cannot happen while closed, but a territory change told then waits too
    await w.h.on_event(steal(HOBOKEN, "2026-10-11T12:00:00-04:00"))
    w.wall[0] += timedelta(minutes=5)
    await w.h.tick()
    assert w.push.sent == []
    w.clock.at = at("2026-10-12T06:00:00-04:00")
    await w.h.tick()
    assert [p["kinds"] for _, p in w.push.sent] == [["territory_stolen"]]


async def test_discord_down_keeps_the_posts_in_order_for_later(w: World) -> None:
    w.discord.fail = True
    await w.h.on_event(steal(HOBOKEN, "2026-10-05T12:00:00-04:00", "e1"))
    await w.h.on_event(steal(JERSEY_CITY, "2026-10-05T12:01:00-04:00", "e2"))
    assert await w.h.send_posts() == 0
    w.discord.fail = False
    assert await w.h.send_posts() == 2
    assert w.discord.sent == ["⚔️ another player stole **Hoboken** from another player.",
                              "⚔️ another player stole **Jersey City** from another player."]
    assert await w.h.send_posts() == 0


async def test_read_marks_only_move_forward(w: World) -> None:
    await w.h.store.mark_read("v", 5)
    await w.h.store.mark_read("v", 3)
    assert (await w.h.notifications("v", None, 10)).read_up_to == 5


async def test_r25_each_close_posts_the_days_standings_from_the_score_updates() -> None:
    from turf_common.contracts.clock import DayClosed
    from turf_common.contracts.scoring import ScoreChange, ScoreUpdated

    w = world()
    await w.player("a", "alice")
    await w.player("v", "victor")
    t = at("2026-10-05T12:00:00-04:00")

    def change(pid: str, total: int) -> ScoreChange:
        return ScoreChange(player_id=pid, base=total, outposts=0, bonuses=0, total=total, territories=total)

    await w.h.on_event(ScoreUpdated(occurred_at=t, players=["a", "v"], territory_id=HOBOKEN,
                                    changes=[change("a", 2), change("v", 1)], side_quests={}, at=t))
    await w.h.on_event(ScoreUpdated(occurred_at=t, players=["v"], territory_id=JERSEY_CITY,
                                    changes=[change("v", 4)], side_quests={}, at=t))
    close = at("2026-10-05T22:00:00-04:00")
    await w.h.on_event(DayClosed(occurred_at=close, at=close, game_day=close.date(), game_day_number=1, week=1,
                                 season_id="2026"))
    assert [p.content for p in w.store.state.posts] == [
        "🌙 Day 1 is closed. Standings:\n1. victor — 4 pts\n2. alice — 2 pts"]
    assert w.store.state.notifications == []   # standings are public commentary, nobody's notification


async def test_a_batch_reads_names_once_and_keeps_a_reminder_in_stream_order_r14(monkeypatch) -> None:
    """A batch reads its players' names once, skips a redelivered event inside it, names a player verified
    earlier in the same batch, and makes a reminder falling due between two of its events between them (R14)."""
    from turf_common.contracts.players import PlayerVerified
    from turf_notify.testing import MemoryTx

    asked: list[set[str]] = []
    names = MemoryTx.player_names

    async def player_names(self: MemoryTx, ids: set[str]) -> dict[str, str]:
        asked.append(set(ids))
        return await names(self, ids)
    monkeypatch.setattr(MemoryTx, "player_names", player_names)
    w = world()
    t0 = at("2026-10-12T10:00:00-04:00")
    verified = PlayerVerified(occurred_at=t0, player_id="v", at=t0, display_name="victor")
    war = TerritoryChanged(occurred_at=t0, territory_id=HOBOKEN, owner_id="v", previous_owner_id="a", progress=1,
                           fortified=False, version=3, cause="war")
    later = steal(JERSEY_CITY, "2026-10-13T12:00:00-04:00", "e2", by="v", victim="a")   # after the reminder's hour
    await w.h.on_events([verified, war, war, later])
    assert asked == [{"a", "v"}]   # one lookup for the whole batch
    assert [k for k, _, _ in w.of("a")] == ["war_declared", "reclaim_ending", "territory_stolen"]
    assert w.of("a")[2][1].startswith("victor stole Jersey City from you.")


async def test_a_stalled_push_service_holds_neither_the_transaction_nor_the_other_pushes() -> None:
    w = world("2026-10-05T12:00:00-04:00")
    done: dict[str, float] = {}
    in_tx: list[bool] = []
    open_tx = [False]
    loop = asyncio.get_running_loop()
    plain_tx = w.store.tx

    @contextlib.asynccontextmanager
    async def watched_tx() -> AsyncIterator[object]:
        async with plain_tx() as tx:
            open_tx[0] = True
            try:
                yield tx
            finally:
                open_tx[0] = False

    w.store.tx = watched_tx  # type: ignore[method-assign]

    class Stalling:
        async def send(self, sub: Subscription, payload: dict[str, object]) -> int:
            in_tx.append(open_tx[0])
            if sub.endpoint.endswith("stall"):
                await asyncio.sleep(0.5)
            done[sub.player_id] = loop.time()
            return 201

    w.h.push = Stalling()
    for pid in ("v", "a", "b"):
        await w.player(pid, pid.upper())
    await w.store.save_subscription(Subscription("v", "https://push.example/stall", "k", "s"))
    await w.store.save_subscription(Subscription("a", "https://push.example/a", "k", "s"))
    await w.store.save_subscription(Subscription("b", "https://push.example/b", "k", "s"))
    for pid in ("v", "a", "b"):
        await w.h.on_event(steal(HOBOKEN, "2026-10-05T12:00:00-04:00", "e-" + pid, victim=pid))
    w.wall[0] += timedelta(seconds=61)
    t0 = loop.time()
    assert await w.h.send_pushes(w.clock.at) == 3
    assert done["a"] - t0 < 0.25 and done["b"] - t0 < 0.25 and done["v"] - t0 >= 0.5
    assert in_tx == [False, False, False]
