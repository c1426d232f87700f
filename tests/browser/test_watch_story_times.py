"""The watch page's stories give the day and the New York time (rule 2), whatever offset the message's time is
written in: an organizer's correction (its time in UTC) at Monday 07:00 reads "Mon 5 Oct, 07:00" beside the claim of
the same moment, and a claim on Tuesday at the same hour reads "Tue 6 Oct, 07:00", not the same "07:00"."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_card_forms import HOBOKEN, JERSEY_CITY, WEEHAWKEN, set_owner, verified
from tests.browser.test_pages import open_page, until
from tests.support.cards import claim
from tests.support.client import Player, move_clock

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TUE = datetime.fromisoformat("2026-10-06T07:00:00-04:00")


def stories(page: Any) -> list[dict[str, str]]:
    return page.evaluate("""[...document.querySelectorAll('#feed li[data-type]')].map((li) => ({
      type: li.dataset.type, when: li.querySelector('.when')?.textContent || '', text: li.textContent
    }))""")  # type: ignore[no-any-return]


def test_stories_on_the_watch_page_give_the_day_and_new_york_time(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    a, _, _ = verified(http, org, "Story Teller")
    page = phone()
    open_page(page, stack.base_url + "/watch")
    assert claim(a, HOBOKEN, MON).status_code == 201
    set_owner(org, WEEHAWKEN, a.id)   # the organizer's correction
    # told once, by the town's change (its time written in UTC by the organizer's correction)
    until(page, "[...document.querySelectorAll('#feed li')].some((li) => li.textContent.includes('Correction:'))",
          timeout=30)
    move_clock(org, TUE)
    assert claim(a, JERSEY_CITY, TUE).status_code == 201
    until(page, "document.querySelectorAll('#feed li[data-type=\"territory.changed\"]').length >= 3", timeout=30)

    shown = stories(page)
    correction = next(s for s in shown if "Correction:" in s["text"])
    assert correction["when"] == "Mon 5 Oct, 07:00", shown
    whens = {s["when"] for s in shown if s["type"] == "territory.changed"}
    assert whens == {"Mon 5 Oct, 07:00", "Tue 6 Oct, 07:00"}, shown
