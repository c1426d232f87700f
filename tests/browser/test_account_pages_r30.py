"""R30 in a real browser, on a stack with no SMTP relay (the embedded default writes each message as an .eml file
under the data directory): the link of the confirmation message, opened, confirms the email; "Forgot password?"
asks for a link and answers in a sentence; the play page's account panel saves a change, changes the password,
downloads my data and withdraws, each answering in a sentence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, sign_in_page
from tests.support.client import API, Player, register
from tests.support.emlmail import eml_link as mail_link
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)


def eml_link(stack: Stack, to: str) -> str:
    """The link of the message written for ``to``."""
    # the account's own links (R27's "you are verified" mail links the play page)
    return mail_link(stack, to, r"https?://\S+/account\?\S+")


def test_r30_the_mailed_link_the_forgot_form_and_the_account_panel(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    pid, addr, password = register(http, "Ada")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone()
    link = eml_link(stack, addr)
    assert link.startswith(stack.base_url + "/account?action=confirm&token=")
    page.goto(link)
    assert message(page, "#account-msg", "ok") == "Your email address is confirmed. Thank you!"
    assert "token=" not in page.url   # the token left the address bar

    page.goto(stack.base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("text=Forgot password?")
    page.fill("#forgot-form [name=email]", addr)
    page.click("#forgot-form button[type=submit]")
    assert message(page, "#account-msg", "ok").startswith("If this address belongs to a player")

    open_page(page, stack.base_url + "/")
    sign_in_page(page, addr, password)
    page.wait_for_selector("#me:not([hidden])")
    page.click("#account summary")
    assert page.input_value("#profile-form [name=email]") == addr
    page.fill("#profile-form [name=name]", "Ada Lovelace")
    page.click("#profile-form button[type=submit]")
    assert message(page, "#account-msg", "ok") == "Saved."
    assert http.get(API + "/me", headers={"Authorization": "Bearer " + page.evaluate(
        "JSON.parse(localStorage.getItem('turf.session')).token")}).json()["name"] == "Ada Lovelace"

    page.fill("#password-form [name=current_password]", password)
    page.fill("#password-form [name=new_password]", "violet lantern over the river")
    page.click("#password-form button[type=submit]")
    assert message(page, "#account-msg", "ok") == "Your password is changed; your other devices are signed out."

    with page.expect_download() as got:
        page.click("#export-btn")
    data = json.loads(Path(got.value.path()).read_text())
    assert (data["profile"]["id"], data["profile"]["name"]) == (pid, "Ada Lovelace")

    page.on("dialog", lambda d: d.accept())
    page.fill("#withdraw-form [name=password]", "violet lantern over the river")
    page.click("#withdraw-form button[type=submit]")
    assert "You have withdrawn" in message(page, "#auth-msg", "ok")
    assert http.post(API + "/sessions", json={"email": addr, "password": "violet lantern over the river"}
                     ).status_code == 401
