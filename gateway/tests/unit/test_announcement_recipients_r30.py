"""R30: the organizer's announcement goes by mail to every verified player; an optional one skips those who turned
announcements by mail off; pending, rejected and disqualified players get none."""

from __future__ import annotations

from datetime import datetime

import pytest

from turf_common.contracts import subjects
from turf_common.contracts.notify import AnnouncementOut, AnnouncementReply, PublishAnnouncement
from turf_common.testing import FakeClock
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.ports import NewPlayer, StatusChange
from turf_gateway.testing import CannedServices, MemoryPlayers, NoLimits

NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")


@pytest.mark.parametrize(("rule_change", "expected"), [(True, ["ada", "bo"]), (False, ["ada"])])
async def test_r30_announcements_are_mailed_to_verified_players_and_optional_ones_only_to_who_wants_them(
        rule_change: bool, expected: list[str]) -> None:
    players = MemoryPlayers()
    ids = {n: await players.create(NewPlayer(n, f"{n}@example.org", n, "-", "h")) for n in ("ada", "bo", "cy", "di")}
    for n in ("ada", "bo", "di"):
        await players.change_status(StatusChange(ids[n], "verified", "org", "", None, NOW, False))
    await players.change_status(StatusChange(ids["di"], "disqualified", "org", "cheat", None, NOW, False))
    players.t.players[ids["ada"]].announcements_by_mail = True   # turned optional mail on (R30: off at first)
    players.t.players[ids["bo"]].announcements_by_mail = False
    asked: list[PublishAnnouncement] = []

    def answer(cmd: PublishAnnouncement) -> AnnouncementReply:
        asked.append(cmd)
        return AnnouncementReply(announcement=AnnouncementOut(id="a1", at=NOW, title=cmd.title, body=cmd.body))

    notes = Notifications(CannedServices({subjects.NOTIFY_ANNOUNCE: answer}), NoLimits(), FakeClock(NOW),
                          rehearsal=True, players=players)
    await notes.announce("Title", "Body", None, rule_change)
    [cmd] = asked
    assert cmd.rule_change is rule_change
    assert sorted(r.to for r in cmd.recipients) == [f"{n}@example.org" for n in expected]
