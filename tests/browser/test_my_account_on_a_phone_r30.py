"""R30's "My account" and the reset page on a 390-px phone, as a player reads them:

* the answer to Save shows under Save (not at the foot of the panel beside the red Withdraw);
* the optional-mail checkbox is a normal checkbox beside its words, and off for a new player;
* Withdraw checks the password before it asks "for good?"; a wrong one is said and nothing is asked;
* the reset page hides its form once the password is set and links the Play page; a link already used says so at
  once, before anything is typed, and offers to ask for a new one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, sign_in_page
from tests.support.client import API, Player, register
from tests.support.emlmail import eml_link as mail_link
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)


def reset_link(stack: Stack, to: str) -> str:
    """The link of the message written for ``to``."""
    return mail_link(stack, to, r"https?://\S+action=reset\S*")


def box(page: Any, selector: str) -> dict[str, float]:
    return page.locator(selector).bounding_box()  # type: ignore[no-any-return]


def test_r30_my_account_answers_where_i_pressed_and_withdraw_checks_the_password_first(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    pid, address, password = register(http, "Phone User")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone()
    open_page(page, stack.base_url + "/")
    sign_in_page(page, address, password)
    page.wait_for_selector("#me:not([hidden])")
    page.click("#account summary")

    # the optional mail: off for a new player, a normal checkbox on the line of its words
    check = "#profile-form [name=announcements_by_mail]"
    assert not page.is_checked(check)
    tick, label = box(page, check), box(page, "#profile-form label.check")
    words = box(page, "#profile-form label.check span")
    assert tick["width"] <= 32 and tick["height"] <= 32, tick
    # beside its words, inside the label's box: not a box on a line of its own
    assert words["x"] >= tick["x"] + tick["width"] and label["y"] <= tick["y"] <= label["y"] + label["height"], (
        tick, words, label)

    # Save: the answer is right under the button, above the password form
    page.fill("#profile-form [name=name]", "Phone User II")
    page.click("#profile-form button[type=submit]")
    assert message(page, "#account-msg", "ok").startswith("Saved.")
    save, said, below = box(page, "#profile-form button[type=submit]"), box(page, "#account-msg"), \
        box(page, "#password-form")
    assert 0 <= said["y"] - (save["y"] + save["height"]) < 40 and said["y"] < below["y"], (save, said, below)

    # Withdraw with a wrong password: said at once, no "for good?" asked
    asked: list[str] = []
    page.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.fill("#withdraw-form [name=password]", "not my password at all")
    page.click("#withdraw-form button[type=submit]")
    assert message(page, "#account-msg", "error") == "Your password is not right; nothing was changed."
    assert asked == []
    said, withdraw = box(page, "#account-msg"), box(page, "#withdraw-form")
    assert said["y"] >= withdraw["y"] + withdraw["height"] - 1   # under the form it answers
    # the right one: asked, and "no" changes nothing
    page.fill("#withdraw-form [name=password]", password)
    page.click("#withdraw-form button[type=submit]")
    assert message(page, "#account-msg", "ok") == "Nothing changed: you are still in the game."
    assert asked and "for good" in asked[0]
    token = page.evaluate("JSON.parse(localStorage.getItem('turf.session')).token")
    assert http.get(API + "/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_r30_the_reset_page_hides_its_form_when_done_and_a_used_link_says_so_at_once(
        stack: Stack, http: httpx.Client, phone: Callable[..., Any]) -> None:
    _, address, _ = register(http, "Forgetful")
    assert http.post(API + "/password-resets", json={"email": address}).status_code == 202
    link = reset_link(stack, address)

    page = phone()
    page.goto(link)
    page.wait_for_selector("#reset:not([hidden])")
    page.fill("#reset-form [name=new_password]", "violet lantern over the river")
    page.click("#reset-form button[type=submit]")
    assert message(page, "#account-msg", "ok").startswith("Your password is changed")
    assert page.is_hidden("#reset") and page.is_hidden("#reset-form")
    play = page.locator("#account-msg a", has_text="Play page")
    assert play.get_attribute("href") == "/"

    # the same link again: used, said before anything is typed; a new link can be asked for
    again = phone()
    again.goto(link)
    assert message(again, "#account-msg", "error").startswith("This link was already used")
    assert again.is_hidden("#reset") and again.is_visible("#forgot-form")
