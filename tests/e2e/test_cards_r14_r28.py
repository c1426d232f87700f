"""R28 (amended) and R14 (amended) on the cards side, through the public API on the real stack:

* ``adjust_hand`` removes ready cards first, then a reserved (scheduled) one, whose schedule is withdrawn: the
  Freeze never activates;
* a disqualification cancels the player's open trades, as proposer and as partner, both parties told
  (``trade.cancelled``, reason ``disqualified``), and their Blockade active today stops applying;
* while the attacker's reclaim window is open nobody may trade the territory away (``territory_in_dispute``).

The tests share one manual clock and run in order."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.bus import stream_events
from tests.support.cards import claim, give, hand, play
from tests.support.client import Player, move_clock, until, verified_player
from turf_common.contracts import subjects
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, NEWARK = "3401732250", "3401736000", "3401351000"
BAYONNE, ELIZABETH, PATERSON, WEEHAWKEN = "3401703580", "3403921000", "3403157000", "3401777930"
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TUE = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
SHARED: dict[str, str] = {}


@pytest.fixture(scope="module")
def p(http: httpx.Client, org: Player) -> dict[str, Player]:
    players = {n: verified_player(http, org, n) for n in ("P", "Q", "R", "S", "D", "V", "A")}
    move_clock(org, MON)
    return players


def set_owner(org: Player, territory_id: str, player_id: str) -> None:
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": territory_id, "player_id": player_id,
                                        "reason": "test set-up"})
    assert r.status_code == 201, r.text


def code(r: httpx.Response) -> tuple[int, str | None]:
    return r.status_code, r.json().get("reason")


def events(stack: Stack, subject: str) -> list[dict[str, Any]]:
    return asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"], subject))


def test_r28_adjust_hand_removes_ready_cards_first_then_a_scheduled_freeze_whose_schedule_is_withdrawn(
        stack: Stack, org: Player, p: dict[str, Player]) -> None:
    set_owner(org, HOBOKEN, p["P"].id)
    give(stack, p["P"].id, remove=tuple(c["type"] for c in hand(p["P"]) if c["type"] == "freeze"))
    give(stack, p["P"].id, "freeze", "freeze")
    r = play(p["P"], "freeze", territory_id=HOBOKEN)
    assert r.status_code == 200 and r.json()["state"] == "reserved", r.text
    scheduled = r.json()["card_id"]
    (spare,) = [c["id"] for c in hand(p["P"]) if c["type"] == "freeze" and c["state"] == "ready"]
    r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": p["P"].id,
                                        "remove": ["freeze", "freeze"], "reason": "R28 test"})
    assert r.status_code == 201, r.text
    removed = [c["id"] for c in r.json()["before"]["removed"]]
    assert removed == [spare, scheduled]            # the ready card first, then the scheduled one
    assert [c for c in hand(p["P"]) if c["type"] == "freeze"] == []
    SHARED["withdrawn"] = scheduled


def test_r28_setup_trades_and_a_blockade_of_the_player_to_be_disqualified(stack: Stack, org: Player,
                                                                          p: dict[str, Player]) -> None:
    set_owner(org, JERSEY_CITY, p["D"].id)
    set_owner(org, BAYONNE, p["Q"].id)
    set_owner(org, ELIZABETH, p["S"].id)
    for who in ("D", "Q", "S"):
        give(stack, p[who].id, "trade")
    give(stack, p["D"].id, "blockade")
    r = play(p["D"], "blockade", rival_id=p["R"].id)
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-06"}, r.text
    r = p["D"].post("/trades", {"offer_territory_id": JERSEY_CITY, "want_territory_id": BAYONNE})
    assert r.status_code == 201, r.text
    SHARED["as_proposer"] = r.json()["id"]
    r = p["S"].post("/trades", {"offer_territory_id": ELIZABETH, "want_territory_id": JERSEY_CITY})
    assert r.status_code == 201, r.text
    SHARED["as_partner"] = r.json()["id"]


def test_r28_a_withdrawn_freeze_never_activates_and_a_disqualification_ends_trades_and_an_active_blockade(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    move_clock(org, TUE)
    # the Freeze withdrawn by the correction did not activate: Hoboken may be taken
    r = claim(p["Q"], HOBOKEN, TUE)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    assert SHARED["withdrawn"] not in [e["card_id"] for e in events(stack, subjects.PROTECTION_ACTIVATED)]
    # D's Blockade against R is active today ...
    assert code(claim(p["R"], JERSEY_CITY, TUE)) == (409, "blockaded")
    assert org.post(f"/admin/players/{p['D'].id}/disqualify", {"reason": "R28 test"}).status_code == 200
    # ... and stops applying once D is disqualified (D owns nothing any more: Jersey City is open land)
    r = until(lambda: claim(p["R"], JERSEY_CITY, TUE), lambda r: r.status_code == 201, timeout=10)
    assert r.status_code == 201 and r.json()["kind"] == "take", r.text
    # R28: D's open trades, as proposer and as partner, are cancelled and both parties are told
    mine = {SHARED["as_proposer"], SHARED["as_partner"]}
    cancelled = until(lambda: [e for e in events(stack, subjects.TRADE_CANCELLED) if e["trade_id"] in mine],
                      lambda es: len(es) == 2, timeout=10)
    assert sorted((e["trade_id"], e["reason"], e["proposer_id"], e["partner_id"]) for e in cancelled) == sorted([
        (SHARED["as_proposer"], "disqualified", p["D"].id, p["Q"].id),
        (SHARED["as_partner"], "disqualified", p["S"].id, p["D"].id)])
    assert p["Q"].get("/trades").json() == {"trades": []} and p["S"].get("/trades").json() == {"trades": []}


def test_r14_amended_nobody_may_trade_a_territory_during_the_attackers_reclaim_window(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    set_owner(org, NEWARK, p["V"].id)
    set_owner(org, PATERSON, p["Q"].id)
    set_owner(org, WEEHAWKEN, p["S"].id)
    give(stack, p["V"].id, "war", "trade")
    give(stack, p["Q"].id, "trade")
    give(stack, p["S"].id, "trade")
    r = claim(p["A"], NEWARK, TUE)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    r = play(p["V"], "war", territory_id=NEWARK)
    assert r.status_code == 200, r.text                     # Newark is V's again; A's reclaim window is open
    # nobody may trade Newark away: not its owner V, and nobody may ask V for it
    assert code(p["V"].post("/trades", {"offer_territory_id": NEWARK, "want_territory_id": PATERSON})) == \
        (409, "territory_in_dispute")
    assert code(p["S"].post("/trades", {"offer_territory_id": WEEHAWKEN, "want_territory_id": NEWARK})) == \
        (409, "territory_in_dispute")
