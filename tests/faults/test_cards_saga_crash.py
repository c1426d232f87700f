"""DESIGN "Sagas for cards": the cards service is killed in the middle of a card play — after reserving the card,
and after the claims service applied the effect but before the card was consumed. After a restart the saga is
completed from its record: the card is never lost, and the effect is applied exactly once."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.bus import stream_events
from tests.support.cards import give, hand
from tests.support.client import API, Player, move_clock, verified_player
from turf_common.contracts import subjects
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


@pytest.fixture(scope="module")
def opened(org: Player) -> datetime:
    move_clock(org, T0)
    return T0


def owned(http: httpx.Client, pid: str) -> list[str]:
    feats = http.get(API + "/board").json()["features"]
    return [f["properties"]["id"] for f in feats if f["properties"]["owner_id"] == pid]


def db(stack: Stack, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        return conn.execute(sql, args).fetchall()


def joker_events(stack: Stack, pid: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    url, stream = stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"]
    changed = [e for e in asyncio.run(stream_events(url, stream, subjects.TERRITORY_CHANGED))
               if e["owner_id"] == pid and e["cause"] == "joker"]
    played = [e for e in asyncio.run(stream_events(url, stream, subjects.CARD_PLAYED)) if e["player_id"] == pid]
    return changed, played


def crash_during_play(stack: Stack, player: Player, fault: str) -> None:
    stack.kill("cards", 9)
    stack.proc_env["cards"] = {"TURF_FAULT": fault}
    stack.restart("cards")
    r = player.post("/cards/play", {"type": "joker", "mode": "random"})
    assert r.status_code == 503 and r.json()["reason"] == "unavailable", r.text   # the service died mid-saga
    assert stack.procs["cards"].wait(10) == 70
    stack.proc_env.pop("cards")


def wait_until(pred: Any, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize("fault,applied_before_restart", [("cards.after_reserve", False),
                                                          ("cards.after_effect", True)])
def test_cards_killed_mid_saga_keeps_the_card_and_applies_the_effect_once(
        stack: Stack, http: httpx.Client, org: Player, opened: datetime, fault: str,
        applied_before_restart: bool) -> None:
    p = verified_player(http, org)
    wait_until(lambda: len(hand(p)) == 3)            # the verification top-up
    (joker,) = give(stack, p.id, "joker")
    jokers = [c["id"] for c in hand(p) if c["type"] == "joker"]
    crash_during_play(stack, p, fault)
    # the card is reserved by a pending saga; the effect is applied or not, depending on where it died
    rows = db(stack, "SELECT c.state, s.state FROM cards.cards c JOIN cards.sagas s ON s.id = c.saga_id "
                     "WHERE c.player_id = %s", p.id)
    assert rows == [("reserved", "pending")]
    assert len(owned(http, p.id)) == (1 if applied_before_restart else 0)
    stack.restart("cards")                           # recovery completes the saga from its record
    wait_until(lambda: len([c for c in hand(p) if c["type"] == "joker"]) == len(jokers) - 1)
    territories = owned(http, p.id)
    assert len(territories) == 1
    changed, played = joker_events(stack, p.id)
    assert [e["territory_id"] for e in changed] == territories
    assert [(e["card_type"], e["state"], e["effect"]) for e in played] == \
        [("joker", "consumed", {"territory_id": territories[0]})]
    assert db(stack, "SELECT state FROM cards.sagas WHERE player_id = %s", p.id) == [("done",)]
    # killed again after completion: nothing is replayed, nothing is applied twice
    stack.kill("cards", 9)
    stack.restart("cards")
    time.sleep(1.0)
    assert owned(http, p.id) == territories and joker_events(stack, p.id) == (changed, played)
    assert joker in jokers
