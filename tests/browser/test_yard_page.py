"""The yard card game's page (/yard) in a real browser on a 390×844 phone viewport against the real stack: a player
opens a room and invites another by its link, starts it; each plays a turn with the page's buttons (start actions,
AWAY: work and buy from the store; HOME: a tool from the hand onto a pile), a refusal shows the ruling's sentence,
a spectator sees the table without anyone's hand (Y27), and the game ends when one leaves (Y26). The turn's time
left is counted down (Y25); Leave is offered in the lobby too, in a secondary style, and asks first; the choices a
move takes (a card's targets, Y18; a bribe's cards, Y19; the Potting Shed's extra buy, Y11) are asked on the page and
sent, not left to the defaults."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import dismissed
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _signed_in(page: Any, stack: Stack, p: Player, path: str = "/yard") -> None:
    page.goto(stack.base_url + "/yard")
    page.evaluate("s => localStorage.setItem('turf.session', s)",
                  json.dumps({"token": p.token, "player_id": p.id, "role": "player"}))
    page.goto(stack.base_url + path)


def _open_room(page: Any) -> str:
    """Open a room with hour-long turns from the page; its game id, read from the invite link it shows."""
    page.wait_for_selector("#open-room:not([hidden])")
    page.fill("#open-room [name=turn_seconds]", "3600")
    page.click("#open-room button[type=submit]")
    page.wait_for_selector("#room-invite:not([hidden])")
    return str(page.get_attribute("#room-invite a", "href")).rsplit("=", 1)[1]


def _turn_of(page: Any) -> str:
    return str(page.inner_text("#room-status"))


def test_a_yard_room_is_played_from_the_page(stack: Stack, http: httpx.Client, org: Player,
                                             phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Ada"), verified_player(http, org, "Bo")
    ada = phone()
    _signed_in(ada, stack, a)
    gid = _open_room(ada)
    bo = phone()
    _signed_in(bo, stack, b, f"/yard?room={gid}")
    bo.click("#room-join")
    ada.click("#room-start")
    ada.wait_for_selector("#room-status:has-text('Round 1')")
    first = a.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["table"]["turn"]["player"]
    (p1, page1), (p2, page2) = ((a, ada), (b, bo)) if first == a.id else ((b, bo), (a, ada))

    # the first player: start actions, AWAY, work, buy the cheapest store card
    page1.click("#do-start")
    page1.click("#go-away")
    page1.click("#do-work")
    page1.wait_for_selector("#yards h4:has-text('you · AWAY · $5')")
    costs = {c["id"]: c["cost"] for c in p1.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["catalogue_cards"]}
    store = p1.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["table"]["store"]
    dear = max(store, key=lambda c: costs[c["id"]])
    if costs[dear["id"]] > 5:
        page1.click(f"#store button[data-card={dear['card']}]")
        page1.wait_for_selector("#error:has-text('You do not have enough money in your piggy bank.')")  # Y11
    cheap = min(store, key=lambda c: costs[c["id"]])
    page1.click(f"#store button[data-card={cheap['card']}]")
    page1.wait_for_selector(f"#garage [data-card={cheap['card']}]")    # Y11: onto the garage, seen by its owner
    page1.click("#do-end")

    # a spectator sees the table and counts, never a hand or a garage (Y27)
    watcher = phone()
    watcher.goto(stack.base_url + f"/yard?room={gid}")
    watcher.wait_for_selector("#yards .seat >> nth=1")
    assert watcher.is_hidden("#hand-box") and "garage 1" in watcher.inner_text("#yards")
    assert watcher.locator(f"[data-card={cheap['card']}]").count() == 0

    # the second player: HOME, the Hand Trowel onto pile 5 of their yard makes it GRASS (Y13, Y17)
    page2.wait_for_selector("#do-start:not([hidden])")
    page2.click("#do-start")
    page2.click("#go-home")
    page2.click("#hand button[data-id=trowel]")
    page2.click(f"#yards .pile[data-owner='{p2.id}'][data-pile='4']")
    page2.wait_for_selector(f"#yards .pile.grass[data-owner='{p2.id}'][data-pile='4']")
    page2.click("#do-end")
    page1.wait_for_selector("#do-start:not([hidden])")

    # the first player leaves, saying yes to the question: the other wins (Y26), and the seed is revealed
    page1.once("dialog", lambda d: d.accept())
    page1.click("#do-leave")
    page2.wait_for_selector("#room-status:has-text('Over: you won')")
    assert "Seed revealed" in watcher.wait_for_selector("#room-seed:has-text('Seed revealed')").inner_text()


def test_the_turn_is_counted_down_and_leave_asks_first(stack: Stack, http: httpx.Client, org: Player,
                                                       phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Cai"), verified_player(http, org, "Dot")
    cai = phone()
    _signed_in(cai, stack, a)
    gid = _open_room(cai)
    dot = phone()
    _signed_in(dot, stack, b, f"/yard?room={gid}")
    dot.click("#room-join")
    # Y26 in a lobby: Leave is there, secondary (not the green of the game's moves), and asks first
    dot.wait_for_selector("#do-leave:not([hidden])")
    assert "secondary" in (dot.get_attribute("#do-leave", "class") or "")
    asked = dismissed(dot, "#do-leave")
    assert asked and "Leave this room?" in asked[0]
    assert b.id in b.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["players"]    # "no": still seated
    dot.once("dialog", lambda d: d.accept())
    dot.click("#do-leave")
    dot.wait_for_selector("#room-join:not([hidden])")
    assert b.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["players"] == [a.id]
    dot.click("#room-join")
    cai.wait_for_selector("#room-start:not([hidden])")
    cai.click("#room-start")
    # Y25: the turn's deadline, counted down on the game clock (the manual clock stands at T0: one hour left)
    cai.wait_for_selector("#turn-clock:not([hidden])")
    cai.wait_for_selector("#turn-clock:has-text('in 1 h 00 min')")
    assert "Mon 5 Oct, 08:00" in cai.inner_text("#turn-clock")
    dot.wait_for_selector("#turn-clock:has-text('in 1 h 00 min')")
    # in the game Leave is still secondary, away from End turn, and asks "for good?"
    assert "secondary" in (cai.get_attribute("#do-leave", "class") or "")
    assert cai.locator("#turn-actions #do-leave").count() == 0
    asked = dismissed(cai, "#do-leave")
    assert asked and "for good?" in asked[0]
    assert a.get(f"/modes/yard-cards/{gid}").json()["status"] == "running"
    # Y28: a lobby its only player leaves closes, and says so
    alone = a.post("/modes/yard-cards", {"turn_seconds": 60}).json()["game_id"]
    cai.goto(stack.base_url + f"/yard?room={alone}")
    cai.once("dialog", lambda d: d.accept())
    cai.click("#do-leave")
    cai.wait_for_selector("#room-status:has-text('Closed: everyone left before it started.')")
    assert a.get(f"/modes/yard-cards/{alone}").json()["status"] == "finished"


def _fake_room(page: Any, stack: Stack, gid: str, room: dict[str, Any], posted: list[tuple[str, Any]]) -> None:
    """The room's reads answer ``room`` as it is now; its moves are recorded (path, body), not played."""
    def answer(route: Any) -> None:
        if route.request.method == "POST":
            posted.append((route.request.url.rsplit("/", 1)[1], route.request.post_data_json))
        route.fulfill(status=200, content_type="application/json", body=json.dumps(room))

    page.route(f"{stack.base_url}/api/v1/modes/yard-cards/{gid}", answer)
    page.route(f"{stack.base_url}/api/v1/modes/yard-cards/{gid}/*", answer)


def _sent(page: Any, posted: list[tuple[str, Any]], n: int) -> tuple[str, Any]:
    """The ``n``-th move the page sent (the route's handler runs while the page is waited on)."""
    for _ in range(200):
        if len(posted) >= n:
            return posted[n - 1]
        page.wait_for_timeout(50)
    raise AssertionError(f"move {n} never sent: {posted}")


def test_targets_a_bribes_cards_and_an_extra_buy_are_chosen_on_the_page(stack: Stack, http: httpx.Client,
                                                                         org: Player,
                                                                         phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Eli"), verified_player(http, org, "Fay")
    gid = a.post("/modes/yard-cards", {"turn_seconds": 3600}).json()["game_id"]
    assert b.post(f"/modes/yard-cards/{gid}/join").status_code == 200
    room = a.post(f"/modes/yard-cards/{gid}/start").json()
    t = room["yard_cards"]["table"]
    me = next(s for s in t["seats"] if s["player"] == a.id)
    t["turn"] = {"player": a.id, "step": "act", "done": [], "extra_buys": 1}
    me |= {"side": "away", "money": 30}
    store = [c["card"] for c in t["store"]]
    posted: list[tuple[str, Any]] = []
    page = phone()
    _signed_in(page, stack, a)
    _fake_room(page, stack, gid, room, posted)
    page.goto(stack.base_url + f"/yard?room={gid}")

    # Y11: a Potting Shed's extra buy: two store cards picked, then bought at once
    page.wait_for_selector("#do-buy:not([hidden])")
    page.click(f"#store button[data-card={store[0]}]")
    page.click(f"#store button[data-card={store[2]}]")
    assert not posted
    page.click("#do-buy")
    assert _sent(page, posted, 1) == ("buy", {"cards": [store[0], store[2]]})

    # Y18: the Tiller's piles, chosen in one's own yard
    me |= {"side": "home", "hand": [{"card": "x1", "id": "tiller"}], "hand_count": 1}
    t["turn"] = {"player": a.id, "step": "act", "done": [], "extra_buys": 0}
    page.wait_for_selector("#hand button[data-id=tiller]")
    page.click("#hand button[data-id=tiller]")
    page.click(f"#yards .pile[data-owner='{a.id}'][data-pile='0']")
    page.wait_for_selector("#choice:not([hidden])")
    page.check("#choice-options input[value='3']")
    page.check("#choice-options input[value='5']")
    page.click("#choice-ok")
    assert _sent(page, posted, 2) == ("play", {"card": "x1", "pile": 0, "owner": None, "targets": [3, 5]})

    # Y19: the Compost Collector's bribe: which plant of the yard is trashed
    me["yard"][1]["cards"] = [{"card": "p1", "id": "clover"}]
    me["yard"][2]["cards"] = [{"card": "p2", "id": "shade_hostas"}]
    t["row"] = [{"card": "n1", "id": "compost_collector"}, *t["row"][1:]]
    page.wait_for_selector("#row button[data-card=n1]")
    page.click("#row button[data-card=n1]")
    page.wait_for_selector("#choice:not([hidden])")
    page.check("#choice-options input[value='p2']")
    page.click("#choice-ok")
    assert _sent(page, posted, 3) == ("sway", {"neighbour": "n1", "trash": ["p2"]})

    # Y7, Y18: the Sprinkler's start action: the pile it turns to GRASS
    me["yard"][4]["cards"] = [{"card": "s1", "id": "sprinkler"}]
    t["turn"] = {"player": a.id, "step": "start", "done": [], "extra_buys": 0}
    page.wait_for_selector("#do-start:not([hidden])")
    page.click("#do-start")
    page.wait_for_selector("#choice:not([hidden])")
    page.check("#choice-options input[value='7']")
    page.click("#choice-ok")
    assert _sent(page, posted, 4) == ("start-actions", {"targets": {"s1": [7]}})
