"""R30: an announcement is mailed to each recipient the gateway names, queued with the announcement, once however
often the command comes; an optional one says how to turn such mail off, a rule change does not."""

from __future__ import annotations

from notify_world import World, at

from turf_common.contracts.notify import MailRecipient, PublishAnnouncement


def announcement(command_id: str, rule_change: bool) -> PublishAnnouncement:
    return PublishAnnouncement(command_id=command_id, at=at("2026-10-05T12:00:00-04:00"), title="Bridges <closed>",
                               body="The GWB counts as land.\n\nSee you out there.", rule_change=rule_change,
                               recipients=[MailRecipient(player_id="v", to="v@example.org"),
                                           MailRecipient(player_id="a", to="a@example.org")])


async def test_r30_an_announcement_is_mailed_to_each_recipient_once_per_command(w: World) -> None:
    await w.h.announce(announcement("c1", rule_change=True))
    await w.h.announce(announcement("c1", rule_change=True))
    mails = sorted(w.store.state.mails.values())
    assert [(to, kind, subject) for to, kind, subject, _, _ in mails] == [
        ("a@example.org", "announcement", "Bridges <closed>"), ("v@example.org", "announcement", "Bridges <closed>")]
    _, _, _, text, html = mails[0]
    assert "The GWB counts as land." in text and "turn off" not in text
    assert "<p>The GWB counts as land.</p>" in html and "Bridges &lt;closed&gt;" in html
    assert "Rule changes reach every player" in html


async def test_r30_an_optional_announcement_tells_how_to_turn_such_mail_off(w: World) -> None:
    await w.h.announce(announcement("c2", rule_change=False))
    [(_, _, _, text, html), _] = w.store.state.mails.values()
    assert "turn off these messages" in text and "turn off these messages" in html
