"""The notification kinds tests/e2e/test_notify.py leaves out: ``cards_dealt``
(R12), ``protection_active`` / ``protection_lapsed`` (R15, R16), ``fortified`` (R9, R11), ``trade_accepted`` /
``trade_cancelled`` (R18) and ``correction`` (R28) — each arriving exactly once in GET /me/notifications, to the
player it concerns only, with its data and a message naming towns and players by their public names. The tests of
this module share one manual clock and run in order (Monday 5 October to Thursday 8 October 2026)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.bus import consumed, stream_events
from tests.support.cards import claim, give, play
from tests.support.client import Player, move_clock, until, verified_player
from turf_common.contracts import subjects
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, NEWARK = "3401732250", "3401736000", "3401351000"
MON, TUE, WED, THU = (datetime.fromisoformat(f"2026-10-{d:02d}T07:00:00-04:00") for d in (5, 6, 7, 8))
#: the module's stack, for the barrier: every event so far consumed (no fixed wait for a second copy)
BUS: dict[str, Stack] = {}


@pytest.fixture(scope="module", autouse=True)
def _bus(stack: Stack) -> None:
    BUS["stack"] = stack


def all_consumed() -> None:
    """Once this returns, notify has handled every event published so far: a second copy, if any, is there."""
    consumed(BUS["stack"].env["TURF_NATS_URL"], BUS["stack"].env["TURF_STREAM"])


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    return {name: verified_player(http, org, name) for name in ("F", "G", "H", "J")}


def notes(pl: Player) -> list[dict[str, Any]]:
    r = pl.get("/me/notifications")
    assert r.status_code == 200, r.text
    return r.json()["notifications"]  # type: ignore[no-any-return]


def kinds(pl: Player, kind: str) -> list[dict[str, Any]]:
    return [n for n in notes(pl) if n["kind"] == kind]


def settled(pl: Player, kind: str, n: int = 1) -> list[dict[str, Any]]:
    """The player's notifications of ``kind`` once at least ``n`` came and every event so far was consumed."""
    until(lambda: kinds(pl, kind), lambda ns: len(ns) >= n)
    all_consumed()
    return kinds(pl, kind)


def display(http: httpx.Client, pl: Player) -> str:
    return str(http.get(f"/api/v1/players/{pl.id}").json()["display_name"])


def private(http: httpx.Client, pl: Player) -> list[str]:
    """What must never appear in another player's message: their e-mail and home addresses (GET /me only)."""
    me = pl.get("/me").json()
    out = [str(me[k]) for k in ("email", "home_address") if me.get(k)]
    assert out, me
    return out


def dealt(stack: Stack) -> list[dict[str, Any]]:
    return asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"], subjects.CARD_DEALT))


def test_r12_the_week_start_deal_tells_each_player_once(stack: Stack, http: httpx.Client, org: Player,
                                                        p: dict[str, Player]) -> None:
    move_clock(org, MON)
    events = until(lambda: dealt(stack), lambda es: any(e["game_day"] == "2026-10-05" for e in es))
    monday = [e for e in events if e["game_day"] == "2026-10-05"]
    assert len(monday) == 1, monday
    for pl in p.values():
        n = monday[0]["draws"][pl.id]
        assert n > 0   # R12: a week start deals a hand to everyone
        got = settled(pl, "cards_dealt")
        assert [(x["data"], x["at"], x["message"]) for x in got] == [
            ({"count": n, "game_day": "2026-10-05"}, "2026-10-05T06:00:00-04:00",
             f"You were dealt {n} card{'s' if n != 1 else ''} this morning.")]
        # the count is what the player now holds (the hand was empty before the week start)
        assert len(pl.get("/me/hand").json()["cards"]) == n


def test_r15_r16_protections_scheduled_for_tomorrow_are_told_active_at_its_day_start(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    f, g, h = p["F"], p["G"], p["H"]
    assert claim(f, HOBOKEN, MON).status_code == 201
    assert claim(g, NEWARK, MON).status_code == 201
    assert claim(h, JERSEY_CITY, MON).status_code == 201
    give(stack, f.id, "freeze")
    give(stack, g.id, "blockade")
    r = play(f, "freeze", territory_id=HOBOKEN)            # R15: for the next game day
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-06"}, r.text
    freeze = r.json()["card_id"]
    r = play(g, "blockade", rival_id=h.id)                 # R16: against H, for the next game day
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-06"}, r.text
    blockade = r.json()["card_id"]
    all_consumed()
    assert kinds(f, "protection_active") == [] and kinds(g, "protection_active") == []   # scheduled, not active
    move_clock(org, TUE)
    got = settled(f, "protection_active")
    assert [(x["data"], x["at"], x["message"]) for x in got] == [(
        {"card_id": freeze, "card_type": "freeze", "day": "2026-10-06", "territory_id": HOBOKEN, "rival_id": None},
        "2026-10-06T06:00:00-04:00", "Your Freeze on Hoboken is active today.")]
    got = settled(g, "protection_active")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"card_id": blockade, "card_type": "blockade", "day": "2026-10-06", "territory_id": None,
         "rival_id": h.id}, f"Your Blockade against {display(http, h)} is active today.")]
    # the card's player only: the blockaded rival is not told of it, nobody is told of a lapse
    for pl in p.values():
        assert kinds(pl, "protection_lapsed") == []
    assert kinds(h, "protection_active") == [] and kinds(p["J"], "protection_active") == []
    for x in got:
        for secret in private(http, h):
            assert secret not in x["message"]
    # R9: F claims Hoboken again on Tuesday, the second consecutive day: progress 2, not fortified yet
    r = claim(f, HOBOKEN, TUE)
    assert r.status_code == 201 and r.json()["progress"] == 2 and r.json()["fortified"] is False, r.text


def test_r15_a_freeze_lapses_when_its_territory_changes_owner_before_its_day(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    g, j = p["G"], p["J"]
    give(stack, g.id, "freeze")
    r = play(g, "freeze", territory_id=NEWARK)              # for Wednesday
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-07"}, r.text
    freeze = r.json()["card_id"]
    r = claim(j, NEWARK, TUE)                               # J steals Newark on Tuesday: not frozen yet
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    move_clock(org, WED)
    got = settled(g, "protection_lapsed")
    # R15: the Freeze lapses (G no longer owns Newark at Wednesday's start); the card returns to the hand
    assert [(x["data"], x["at"], x["message"]) for x in got] == [(
        {"card_id": freeze, "card_type": "freeze", "day": "2026-10-07", "territory_id": NEWARK, "rival_id": None,
         "reason": "not_owner"},
        "2026-10-07T06:00:00-04:00",
        "Your Freeze on Newark lapsed (the territory was no longer yours); the card is back in your hand.")]
    assert {"id": freeze, "type": "freeze", "state": "ready"} in g.get("/me/hand").json()["cards"]
    assert kinds(g, "protection_active") != [] and all(x["data"]["card_id"] != freeze
                                                       for x in kinds(g, "protection_active"))
    assert kinds(j, "protection_lapsed") == []


def test_r12_day_start_draws_are_told_once_per_day_and_only_when_cards_were_drawn(
        stack: Stack, p: dict[str, Player]) -> None:
    events = dealt(stack)
    by_day = {e["game_day"]: e for e in events}
    assert len(events) == len(by_day) and {"2026-10-05", "2026-10-06", "2026-10-07"} <= set(by_day)
    for pl in p.values():
        want = [(d, e["draws"].get(pl.id, 0)) for d, e in sorted(by_day.items()) if e["draws"].get(pl.id, 0) > 0]
        got = until(lambda pl=pl: kinds(pl, "cards_dealt"), lambda ns, want=want: len(ns) >= len(want))
        all_consumed()
        got = kinds(pl, "cards_dealt")
        assert [(x["data"]["game_day"], x["data"]["count"]) for x in got] == want
        for x in got:
            assert x["at"] == f"{x['data']['game_day']}T06:00:00-04:00"


def test_r9_r11_three_consecutive_days_fortify_and_the_owner_is_told_once(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    f = p["F"]
    # F claimed Hoboken on Monday and Tuesday (progress 2, nothing told); Wednesday's claim makes 3: fortified
    assert kinds(f, "fortified") == []
    r = claim(f, HOBOKEN, WED)
    assert r.status_code == 201 and r.json()["progress"] == 3 and r.json()["fortified"] is True, r.text
    got = settled(f, "fortified")
    assert [(x["data"], x["at"], x["message"]) for x in got] == [
        ({"territory_id": HOBOKEN}, "2026-10-07T07:00:00-04:00",
         "Hoboken is fortified: nobody can take it from you this season.")]
    for name in ("G", "H", "J"):
        assert kinds(p[name], "fortified") == []


def test_r11_claiming_a_fortified_territory_again_does_not_tell_it_again(
        stack: Stack, org: Player, p: dict[str, Player]) -> None:
    f = p["F"]
    move_clock(org, THU)
    r = claim(f, HOBOKEN, THU)
    if r.status_code == 201:
        assert r.json()["fortified"] is True, r.text
    all_consumed()
    assert len(kinds(f, "fortified")) == 1


def test_r18_an_accepted_trade_tells_the_proposer_once(stack: Stack, http: httpx.Client, p: dict[str, Player]) -> None:
    h, j = p["H"], p["J"]
    give(stack, h.id, "trade")
    give(stack, j.id, "trade")
    r = h.post("/trades", {"offer_territory_id": JERSEY_CITY, "want_territory_id": NEWARK})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert j.post(f"/trades/{tid}/accept").json() == {"id": tid, "state": "accepted"}
    got = settled(h, "trade_accepted")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"trade_id": tid, "offer_territory_id": JERSEY_CITY, "want_territory_id": NEWARK, "by": j.id},
        f"{display(http, j)} accepted your trade: Newark is yours, Jersey City is theirs.")]
    assert kinds(j, "trade_accepted") == []
    assert [x["data"]["trade_id"] for x in kinds(j, "trade_proposed")] == [tid]
    for secret in private(http, j):
        assert secret not in got[0]["message"]


def test_r18_a_withdrawn_trade_tells_the_partner_once(stack: Stack, http: httpx.Client, p: dict[str, Player]) -> None:
    h, f = p["H"], p["F"]
    # after the swap H owns Newark (J's steal of Tuesday is out of dispute) and F owns Hoboken
    give(stack, h.id, "trade")
    give(stack, f.id, "trade")
    r = h.post("/trades", {"offer_territory_id": NEWARK, "want_territory_id": HOBOKEN})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    until(lambda: kinds(f, "trade_proposed"), lambda ns: any(x["data"]["trade_id"] == tid for x in ns))
    assert h.post(f"/trades/{tid}/withdraw").json() == {"id": tid, "state": "cancelled"}
    got = settled(f, "trade_cancelled")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"trade_id": tid, "offer_territory_id": NEWARK, "want_territory_id": HOBOKEN, "reason": "withdrawn"},
        f"{display(http, h)} withdrew the offer of Newark for your Hoboken.")]
    assert kinds(h, "trade_cancelled") == []   # the proposer withdrew: they know


def test_r28_a_correction_tells_the_players_it_concerns_once(stack: Stack, http: httpx.Client, org: Player,
                                                             p: dict[str, Player]) -> None:
    j, g, h = p["J"], p["G"], p["H"]
    assert http.get(f"/api/v1/territories/{JERSEY_CITY}").json()["owner_id"] == j.id   # J's since the trade
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": JERSEY_CITY, "player_id": g.id,
                                        "reason": "GPS glitch on Thursday."})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    got = settled(g, "correction")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"correction_id": cid, "action": "set_owner", "territory_id": JERSEY_CITY},
        "The organizer made a correction that concerns you (Jersey City): GPS glitch on Thursday.")]
    # the previous owner, whose territory it was, is told as well (from the correction's territory.changed,
    # which carries no correction id; the reason is public in GET /corrections)
    got = settled(j, "correction")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"correction_id": None, "action": "set_owner", "territory_id": JERSEY_CITY},
        f"The organizer made a correction that concerns you: Jersey City is no longer yours (now "
        f"{display(http, g)}'s).")]
    # a hand adjustment tells its player only
    r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": h.id, "add": ["freeze"],
                                        "remove": [], "reason": "Lost card restored."})
    assert r.status_code == 201, r.text
    cid2 = r.json()["id"]
    got = settled(h, "correction")
    assert [(x["data"], x["message"]) for x in got] == [(
        {"correction_id": cid2, "action": "adjust_hand", "territory_id": None},
        "The organizer made a correction that concerns you: Lost card restored.")]
    assert len(kinds(j, "correction")) == 1 and len(kinds(g, "correction")) == 1
    assert kinds(p["F"], "correction") == []


def test_no_message_carries_another_players_private_data(http: httpx.Client, p: dict[str, Player]) -> None:
    secrets = {name: private(http, pl) for name, pl in p.items()}
    for name, pl in p.items():
        mine = notes(pl)
        assert len({n["id"] for n in mine}) == len(mine)
        for n in mine:
            text = n["message"] + repr(n["data"])
            for other, values in secrets.items():
                if other != name:
                    assert not any(v in text for v in values), (name, n)
