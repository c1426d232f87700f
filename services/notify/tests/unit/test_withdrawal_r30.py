"""R30: a withdrawal (``player.disqualified`` with ``withdrawn``) erases what notify holds of the player: their
notifications, read mark, push subscriptions and name; a plain disqualification keeps them (R28). A rename
(``player.renamed``) names the player anew, never a withdrawn one."""

from __future__ import annotations

from notify_world import HOBOKEN, World, at

from turf_common.contracts.claims import ClaimAccepted
from turf_common.contracts.notify import PublishAnnouncement
from turf_common.contracts.players import PlayerDisqualified, PlayerRenamed
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


def renamed(pid: str, name: str) -> PlayerRenamed:
    return PlayerRenamed(occurred_at=at("2026-10-05T14:00:00-04:00"), player_id=pid,
                         at=at("2026-10-05T14:00:00-04:00"), display_name=name)


def steal_of_hoboken() -> ClaimAccepted:
    t = at("2026-10-05T15:00:00-04:00")
    return ClaimAccepted(occurred_at=t, claim_id="c1", player_id="a", territory_id=HOBOKEN, kind="steal",
                         game_day=t.date(), progress=1, fortified=False, previous_owner_id="v", lat=40.7, lon=-74.0,
                         accuracy_m=10, border_distance_m=None)


async def test_r30_a_rename_names_the_player_anew_in_texts_and_on_discord(w: World) -> None:
    await w.player("a", "alice")
    await w.player("v", "victor")
    ev = renamed("a", "alice.b")
    await w.h.on_event(ev)
    await w.h.on_event(ev)   # a redelivery changes nothing
    await w.h.on_event(steal_of_hoboken())
    assert w.store.state.players["a"] == ("alice.b", "verified")
    assert w.of("v")[0][1].startswith("alice.b stole Hoboken from you.")
    assert [p.content for p in w.store.state.posts] == ["⚔️ alice.b stole **Hoboken** from victor."]


async def test_r30_a_withdrawn_players_erased_name_stays_erased(w: World) -> None:
    await setup(w)
    await w.h.on_event(out("v", withdrawn=True))
    await w.h.on_event(renamed("v", "back.again"))   # a rename made before the withdrawal, delivered after
    assert w.store.state.players["v"] == (None, "disqualified")
