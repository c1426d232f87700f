"""R30 (amended 2026-12-07): the mail of an email change speaks of a change, not of a registration: the new address
is asked to confirm in change-of-address words, and the address it replaces is told of the change with no link
that acts on the account. R27: a verified player's mail says they can play, with the play page's link."""

from __future__ import annotations

import re

from turf_common.contracts.notify import QueueMail
from turf_notify import mailtext

LINK = "https://turf.example/account?action=confirm&token=abc"


def test_r30_the_confirmation_of_a_new_address_speaks_of_the_change_not_of_registering() -> None:
    m = mailtext.render("email_change_confirmation", name="Ada", link=LINK)
    assert m.subject == "Turf War: confirm your new email address"
    for part in (m.text, m.html):
        assert "changed the email address" in part and "previous address still signs in" in part
        assert "register" not in part.lower()
    assert LINK in m.text and f'href="{LINK.replace("&", "&amp;")}"' in m.html
    registration = mailtext.render("email_confirmation", name="Ada", link=LINK)
    assert "If you did not register" in registration.text   # the registration's own words stay its own


def test_r30_the_replaced_address_is_told_of_the_change_with_no_link() -> None:
    notice = QueueMail(command_id="n1", to="ada@old.example", kind="email_changed", name="Ada")
    m = mailtext.render(notice.kind, name=notice.name, link=notice.link)
    assert m.subject == "Turf War: your email address was changed"
    for part in (m.text, m.html):
        assert "was just changed" in part and "keeps signing you in until the new one is confirmed" in part
        assert not re.findall(r"https?://", part)


def test_r27_a_verified_player_is_mailed_that_they_can_play() -> None:
    m = mailtext.render("verified", name="Ada", link="https://turf.example/")
    assert m.subject == "Turf War: you are verified, you can play"
    assert "you can play Turf War now" in m.text and "https://turf.example/" in m.text
