"""R30: a withdrawal (``player.disqualified`` with ``withdrawn``) erases what notify holds of the player: their
notifications, read mark, push subscriptions and name; a plain disqualification keeps them (R28)."""

from __future__ import annotations

from notify_world import World, at

from turf_common.contracts.notify import PublishAnnouncement
from turf_common.contracts.players import PlayerDisqualified
from turf_notify.ports import Subscription


async def setup(w: World) -> None:
    for pid in ("v", "a"):
        await w.player(pid, pid.upper() + "name")
        await w.store.save_subscription(Subscription(pid, f"https://push.example/{pid}", "k", "s"))
    await w.h.announce(PublishAnnouncement(command_id="c1", at=at("2026-10-05T12:00:00-04:00"), title="T", body="B"))
    await w.store.mark_read("v", 1)


def out(pid: str, withdrawn: bool) -> PlayerDisqualified:
    return PlayerDisqualified(occurred_at=at("2026-10-05T13:00:00-04:00"), player_id=pid,
                              at=at("2026-10-05T13:00:00-04:00"), withdrawn=withdrawn)


async def test_r30_a_withdrawal_erases_the_players_notifications_subscriptions_and_name(w: World) -> None:
    await setup(w)
    await w.h.on_event(out("v", withdrawn=True))
    assert w.of("v") == [] and await w.store.subscriptions("v") == [] and await w.store.read_mark("v") is None
    assert w.store.state.players["v"] == (None, "disqualified")
    assert len(w.of("a")) == 1 and len(await w.store.subscriptions("a")) == 1   # nobody else's


async def test_r28_a_plain_disqualification_keeps_them(w: World) -> None:
    await setup(w)
    await w.h.on_event(out("v", withdrawn=False))
    assert len(w.of("v")) == 1 and len(await w.store.subscriptions("v")) == 1
    assert w.store.state.players["v"] == ("Vname", "disqualified")
