"""The notify store's contract (cosmicpython's repository tests): each case runs on the memory fake and
on PostgreSQL (``store``, see conftest.py) and checks exact answers, role by role (ports.py), and the store's own
reads and writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from turf_common.contracts.notify import AnnouncementOut, NotificationOut
from turf_common.rules.medals import Award, Change
from turf_notify.ports import MAX_SUBSCRIPTIONS, NotifyStore, PendingPush, Post, Reminder, Subscription
from turf_notify.rules import Draft

T0 = datetime(2026, 10, 5, 14, 0, tzinfo=UTC)
M = timedelta(minutes=1)


async def test_messages_first_times_in_one_batch(store: NotifyStore) -> None:
    async with store.tx() as tx:
        assert await tx.messages.first_times([("e1", "claim.accepted"), ("e2", "score.updated"),
                                              ("e1", "claim.accepted")]) == {"e1", "e2"}
        assert await tx.messages.first_times([]) == set()
    async with store.tx() as tx:
        assert await tx.messages.first_times([("e2", "score.updated"), ("e3", "score.updated")]) == {"e3"}


async def test_a_unit_of_work_that_raises_leaves_nothing(store: NotifyStore) -> None:
    with pytest.raises(RuntimeError):
        async with store.tx() as tx:
            await tx.roster.save_player("ann", "Ann", "verified")
            raise RuntimeError("boom")
    async with store.tx() as tx:
        assert await tx.roster.players() == []


async def test_roster_names_and_statuses(store: NotifyStore) -> None:
    async with store.tx() as tx:
        await tx.roster.save_player("bob", "Bob", "verified")
        await tx.roster.save_player("ann", None, "verified")
        await tx.roster.save_player("cat", "Cat", "verified")
        await tx.roster.save_player("cat", None, "disqualified")     # the name stays
        await tx.roster.save_player("bob", "Robert", "verified")
    async with store.tx() as tx:
        assert await tx.roster.players() == ["ann", "bob"]
        assert await tx.roster.player_names({"ann", "bob", "cat", "dan"}) == {"bob": "Robert", "cat": "Cat"}
        assert await tx.roster.player_names(set()) == {}


async def test_notifications_numbered_and_read(store: NotifyStore) -> None:
    async with store.tx() as tx:
        n1 = await tx.notifications.add(Draft("ann", "territory_stolen", T0, "Hoboken was stolen", {"t": "h"}))
        n2 = await tx.notifications.add(Draft("bob", "fortified", T0 + M, "Jersey City is fortified"))
        n3 = await tx.notifications.add(Draft("ann", "cards_dealt", T0 + 2 * M, "3 cards"))
    assert n1 == NotificationOut(id=n1.id, at=T0, kind="territory_stolen", message="Hoboken was stolen",
                                 data={"t": "h"})
    assert n1.id < n2.id < n3.id
    assert await store.notifications("ann", None, 10) == [n1, n3]
    assert await store.notifications("ann", n1.id, 10) == [n3]
    assert await store.notifications("ann", None, 1) == [n1]
    assert await store.read_mark("ann") is None
    await store.mark_read("ann", n3.id)
    await store.mark_read("ann", n1.id)                 # never backwards
    assert await store.read_mark("ann") == n3.id


async def test_deliveries_pushes_grouped_per_player_and_posts_until_sent(store: NotifyStore) -> None:
    for p in ("ann", "bob", "cat"):
        await store.save_subscription(Subscription(p, f"https://fcm.googleapis.com/fcm/send/{p}", "k", "a"))
    async with store.tx() as tx:
        ns = [await tx.notifications.add(Draft(p, "territory_stolen", T0, f"m{i}")) for i, p in
              enumerate(["ann", "ann", "bob", "cat", "dan"])]
        # queued out of id order: they are taken by id
        await tx.deliveries.queue_push(ns[1], "ann", T0, T0 + 5 * M)     # held: but ann's other one is due
        await tx.deliveries.queue_push(ns[0], "ann", T0, T0)
        await tx.deliveries.queue_push(ns[2], "bob", T0, T0 + 5 * M)     # held, alone
        await tx.deliveries.queue_push(ns[3], "cat", T0 + 60 * M, T0)    # quiet hours
        await tx.deliveries.queue_push(ns[4], "dan", T0, T0)    # no subscription, no push row
        await tx.deliveries.queue_post("first")
        await tx.deliveries.queue_post("second")
    async with store.tx() as tx:
        taken = await tx.deliveries.take_pushes(T0, T0)
        assert taken == [PendingPush(ns[0].id, "ann", "territory_stolen", "m0", T0, T0),
                         PendingPush(ns[1].id, "ann", "territory_stolen", "m1", T0, T0 + 5 * M)]
        assert await tx.deliveries.take_pushes(T0, T0) == []
        assert [p.id for p in await tx.deliveries.take_pushes(T0 + 60 * M, T0 + 5 * M)] == [ns[2].id, ns[3].id]
        posts = await tx.deliveries.take_posts(10)
        assert [p.content for p in posts] == ["first", "second"]
        assert await tx.deliveries.take_posts(1) == posts[:1]
        await tx.deliveries.post_sent(posts[0].id)
    async with store.tx() as tx:
        assert await tx.deliveries.take_posts(10) == [Post(posts[1].id, "second")]


async def test_reminders_due_in_order_once(store: NotifyStore) -> None:
    r1 = Reminder("r1", "ann", "h", T0 + 2 * M, T0 + 10 * M)
    r2 = Reminder("r2", "bob", "j", T0 + M, T0 + 10 * M)
    r3 = Reminder("r3", "ann", "k", T0 + 3 * M, T0 + 10 * M)
    async with store.tx() as tx:
        assert await tx.reminders.next_reminder_due() is None
        for r in (r1, r2, r3):
            await tx.reminders.add_reminder(r)
        await tx.reminders.add_reminder(Reminder("r1", "ann", "h", T0, T0))      # known id: kept as it was
        await tx.reminders.drop_reminders("ann", "k")
    async with store.tx() as tx:
        assert await tx.reminders.next_reminder_due() == T0 + M
        assert await tx.reminders.take_due_reminders(T0) == []
        assert await tx.reminders.take_due_reminders(T0 + 5 * M) == [r2, r1]
        assert await tx.reminders.take_due_reminders(T0 + 5 * M) == []
        assert await tx.reminders.next_reminder_due() is None


async def test_standings_totals_set_and_removed(store: NotifyStore) -> None:
    async with store.tx() as tx:
        await tx.standings.set_scores("2026", {"ann": 5, "bob": 3}, [])
        await tx.standings.set_scores("2026", {"ann": 7}, ["bob", "cat"])
        await tx.standings.set_scores("2026", {}, [])
    async with store.tx() as tx:
        assert await tx.standings.scores("2026") == {"ann": 7}


async def test_announcements_once_by_command_newest_first(store: NotifyStore) -> None:
    a1 = AnnouncementOut(id="a1", at=T0, title="Welcome", body="Season starts")
    a2 = AnnouncementOut(id="a2", at=T0 + M, title="Rain", body="Stay safe")
    a3 = AnnouncementOut(id="a3", at=T0 + M, title="Later", body="Same instant, written after")
    async with store.tx() as tx:
        assert await tx.announcements.announcement_by_command("c1") is None
        await tx.announcements.add_announcement("c1", a1)
        await tx.announcements.add_announcement("c2", a2)
    async with store.tx() as tx:
        await tx.announcements.add_announcement("c3", a3)
        assert await tx.announcements.announcement_by_command("c1") == a1
    assert await store.announcements(10) == [a3, a2, a1]
    assert await store.announcements(1) == [a3]


async def test_subscriptions_and_the_vapid_key(store: NotifyStore) -> None:
    await store.save_subscription(Subscription("ann", "https://push/2", "k2", "a2"))
    await store.save_subscription(Subscription("ann", "https://push/1", "k1", "a1"))
    await store.save_subscription(Subscription("bob", "https://push/3", "k3", "a3"))
    # keyed by (player, endpoint): bob saving ann's endpoint takes nothing from ann
    await store.save_subscription(Subscription("bob", "https://push/2", "k9", "a9"))
    assert [s.endpoint for s in await store.subscriptions("ann")] == ["https://push/1", "https://push/2"]
    assert [s.endpoint for s in await store.subscriptions("bob")] == ["https://push/2", "https://push/3"]
    await store.drop_subscription("bob", "https://push/3")
    await store.drop_subscription("ann", "https://push/3")                               # not ann's: nothing
    assert [s.endpoint for s in await store.subscriptions("bob")] == ["https://push/2"]
    await store.drop_subscription(None, "https://push/2")
    assert await store.subscriptions("bob") == []
    await store.drop_subscription("ann", None)
    assert await store.subscriptions("ann") == [] and await store.subscriptions("bob") == []
    assert await store.vapid_key(lambda: "key-1") == "key-1"
    assert await store.vapid_key(lambda: "key-2") == "key-1"


async def test_a_players_subscriptions_are_keyed_by_endpoint_and_capped(store: NotifyStore) -> None:
    """The same endpoint saved again updates its keys (one row, not two); a sixth endpoint replaces the least
    recently saved, and another player's are untouched. Before: a re-PUT was one row, but any number of endpoints
    were kept per player."""
    await store.save_subscription(Subscription("eve", "https://push/e", "ke", "ae"))
    for i in range(MAX_SUBSCRIPTIONS):
        await store.save_subscription(Subscription("ann", f"https://push/{i}", f"k{i}", f"a{i}"))
    await store.save_subscription(Subscription("ann", "https://push/0", "k0-new", "a0-new"))   # 0 is saved again
    assert len(await store.subscriptions("ann")) == MAX_SUBSCRIPTIONS
    await store.save_subscription(Subscription("ann", "https://push/new", "kn", "an"))
    mine = {s.endpoint: s for s in await store.subscriptions("ann")}
    assert sorted(mine) == sorted(["https://push/0", "https://push/2", "https://push/3", "https://push/4",
                                   "https://push/new"])   # /1, the least recently saved, made room
    assert (mine["https://push/0"].p256dh, mine["https://push/0"].auth) == ("k0-new", "a0-new")
    assert [s.endpoint for s in await store.subscriptions("eve")] == ["https://push/e"]


async def test_medal_book_keeps_changes_once_in_stream_order_and_awards_once(store: NotifyStore) -> None:
    a = Change(T0, "t1", "ann", None, False, "claim")
    b = Change(T0 + M, "t1", "bob", "ann", False, "claim")
    c = Change(T0 + 2 * M, "t2", "cat", None, True, "joker")
    async with store.tx() as tx:
        assert await tx.medals.record_changes("2026", [("e1", a), ("e2", b)]) == {"e1", "e2"}
        assert await tx.medals.record_changes("2026", []) == set()
    async with store.tx() as tx:
        assert await tx.medals.record_changes("2026", [("e2", b), ("e3", c)]) == {"e3"}
        assert await tx.medals.changes_naming("2026", {"ann"}) == [a, b]
        assert await tx.medals.changes_naming("2026", {"cat", "bob"}) == [b, c]
        assert await tx.medals.changes_naming("2026", set()) == []
        assert await tx.medals.medal_players("2026") == {"ann", "bob", "cat"}
        await tx.medals.add_awards("2026", [Award("ann", "explorer", "bronze", 3, T0),
                                            Award("bob", "raider", "bronze", 1, T0)])
    async with store.tx() as tx:
        await tx.medals.add_awards("2026", [Award("ann", "explorer", "bronze", 3, T0 + M)])   # once: the first stays
        assert await tx.medals.awarded("2026", {"ann"}) == {"ann:explorer:bronze"}
        assert await tx.medals.awarded("2026", {"ann", "bob", "dan"}) == {"ann:explorer:bronze",
                                                                           "bob:raider:bronze"}
        assert await tx.medals.awarded("2026", set()) == set()


async def test_r31_each_seasons_medals_and_totals_are_its_own_and_a_past_seasons_stay(store: NotifyStore) -> None:
    """R31: a new season starts with no medals and no totals of its own; the last season's stay readable."""
    a = Change(T0, "t1", "ann", None, False, "claim")
    b = Change(T0 + M, "t1", "bob", "ann", False, "claim")
    async with store.tx() as tx:
        await tx.medals.record_changes("2026", [("e1", a)])
        await tx.medals.add_awards("2026", [Award("ann", "explorer", "bronze", 3, T0)])
        await tx.standings.set_scores("2026", {"ann": 5}, [])
    async with store.tx() as tx:
        assert await tx.medals.changes_naming("2027", {"ann"}) == []
        assert await tx.medals.medal_players("2027") == set()
        assert await tx.medals.awarded("2027", {"ann"}) == set()
        assert await tx.standings.scores("2027") == {}
        # the same tier in the next season is a new award; a change is kept once, in its season
        await tx.medals.add_awards("2027", [Award("ann", "explorer", "bronze", 3, T0 + M)])
        assert await tx.medals.record_changes("2027", [("e1", a), ("e2", b)]) == {"e2"}
        await tx.standings.set_scores("2027", {"bob": 1}, ["ann"])
    async with store.tx() as tx:
        assert await tx.medals.awarded("2026", {"ann"}) == {"ann:explorer:bronze"} == \
            await tx.medals.awarded("2027", {"ann"})
        assert await tx.medals.changes_naming("2026", {"ann", "bob"}) == [a]
        assert await tx.medals.changes_naming("2027", {"ann", "bob"}) == [b]
        assert await tx.standings.scores("2026") == {"ann": 5}
        assert await tx.standings.scores("2027") == {"bob": 1}


async def test_r30_a_rename_sets_a_known_players_name_never_an_erased_one(store: NotifyStore) -> None:
    async with store.tx() as tx:
        await tx.roster.save_player("ann", "Ann", "verified")
        await tx.roster.save_player("cat", "Cat", "verified")
        await tx.roster.save_player("cat", None, "disqualified")
        await tx.roster.erase_player("cat")                          # withdrawn (R30)
        await tx.roster.rename_player("ann", "Annie")
        await tx.roster.rename_player("cat", "Cathy")
        await tx.roster.rename_player("dan", "Dan")                  # not known here: nothing
    async with store.tx() as tx:
        assert await tx.roster.player_names({"ann", "cat", "dan"}) == {"ann": "Annie"}
        assert await tx.roster.players() == ["ann"]
