"""R18 races over the real stack, fired together with asyncio.gather over HTTP and repeated K times each, bounded
in time:

* a proposal made while a steal of its offered territory commits never stays open once both settled (refused, or
  cancelled and both told);
* an acceptance in flight when ownership changes never leaves the proposal open again when it can no longer
  succeed, and the owners are those of the moves that succeeded;
* concurrent acceptances of proposals offering one territory: one swap, ``trade_no_longer_valid`` for the rest,
  consistent owners and cards.

Ownership is set up with the organizer's ``set_owner`` (no claim, so no same-day lock, R10) and cards with
``adjust_hand`` (R28), so every repetition starts from fresh territories under the manual clock's one instant."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.support.cards import give, point
from tests.support.client import API, Player, move_clock, until, verified_player
from turf_common.board import load_board
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # K repetitions of each race

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
K = 12          # repetitions of each race
#: how long the second request of a race waits, by repetition: both orders happen (the swap's saga takes a
#: round trip more than a claim, so with no gap the claim nearly always commits first)
STAGGER = (0.0, 0.02, 0.05, 0.1)
BOUND_S = 180   # each race, all repetitions: well under the e2e timeout


@pytest.fixture(scope="module")
def pool(org: Player) -> Iterator[str]:
    """Territory ids, each used once in this module."""
    move_clock(org, MON)
    return iter(sorted(load_board().territories))


def set_owner(org: Player, territory_id: str, player_id: str) -> None:
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": territory_id, "player_id": player_id,
                                        "reason": "race test set-up"})
    assert r.status_code == 201, r.text


def owner(http: httpx.Client, territory_id: str) -> str | None:
    return http.get(f"{API}/territories/{territory_id}").json()["owner_id"]  # type: ignore[no-any-return]


def open_trades(p: Player) -> set[str]:
    return {t["id"] for t in p.get("/trades").json()["trades"]}


def closed_soon(p: Player, trade_id: str | None = None) -> set[str]:
    """P's open proposals once ``trade_id`` (or every one) is no longer among them, or after 10 s: the
    ``territory.changed`` consumer cancels a few ms after the change."""
    return until(lambda: open_trades(p),  # type: ignore[no-any-return]
                 lambda ids: (trade_id not in ids) if trade_id else not ids, timeout=10)


def trade_cards(p: Player) -> int:
    return sum(1 for c in p.get("/me/hand").json()["cards"] if c["type"] == "trade" and c["state"] == "ready")


async def _post(base: str, p: Player, path: str, body: Any = None, after: float = 0.0) -> httpx.Response:
    """POST as ``p``, ``after`` seconds from now (the client is connected first, so both requests of a race leave
    within a millisecond of the intended gap)."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        await asyncio.sleep(after)
        return await c.post(API + path, json=body, headers=p.auth)


def _claim_body(territory_id: str) -> dict[str, Any]:
    lat, lon = point(territory_id)
    return {"lat": lat, "lon": lon, "accuracy_m": 8.0, "fix_time": (MON - timedelta(seconds=3)).isoformat()}


def together(*calls: Any) -> list[httpx.Response]:
    async def go() -> list[httpx.Response]:
        return list(await asyncio.gather(*calls))
    return asyncio.run(go())


def test_r18_a_proposal_racing_a_steal_of_its_territory_never_stays_open(
        stack: Stack, http: httpx.Client, org: Player, pool: Iterator[str]) -> None:
    p, q = verified_player(http, org, "Proposer"), verified_player(http, org, "Partner")
    give(stack, p.id, "trade")
    give(stack, q.id, "trade")
    seen: Counter[str] = Counter()
    start = time.monotonic()
    for k in range(K):
        x, y = next(pool), next(pool)
        set_owner(org, x, p.id)
        set_owner(org, y, q.id)
        r = verified_player(http, org)           # one claim a day each (R6): a fresh thief per repetition
        made, stole = together(
            _post(stack.base_url, p, "/trades", {"offer_territory_id": x, "want_territory_id": y},
                  after=STAGGER[k % 4] if k % 2 else 0.0),
            _post(stack.base_url, r, "/claims", _claim_body(x), after=0.0 if k % 2 else STAGGER[k % 4]))
        stolen = stole.status_code == 201 and stole.json()["kind"] == "steal"
        if not stolen:
            seen["no_steal:" + str(stole.json().get("reason"))] += 1
            continue
        assert owner(http, x) == r.id
        if made.status_code == 409:
            assert made.json()["reason"] == "not_owner", made.text     # the steal came first
            seen["refused"] += 1
            continue
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        # R18: it can never succeed (P no longer owns X): cancelled, not left open, on both sides
        assert tid not in closed_soon(p, tid) and tid not in open_trades(q), tid
        seen["made_then_cancelled"] += 1
    elapsed = time.monotonic() - start
    print(f"R18 proposal vs steal: K={K} in {elapsed:.1f} s: {dict(seen)}")
    assert seen["refused"] + seen["made_then_cancelled"] >= K // 2, seen   # most repetitions raced a real steal
    assert elapsed < BOUND_S


def test_r18_an_acceptance_racing_a_steal_never_reopens_a_proposal_that_cannot_succeed(
        stack: Stack, http: httpx.Client, org: Player, pool: Iterator[str]) -> None:
    p, q = verified_player(http, org, "Proposer2"), verified_player(http, org, "Partner2")
    seen: Counter[str] = Counter()
    start = time.monotonic()
    for k in range(K):
        x, y = next(pool), next(pool)
        set_owner(org, x, p.id)
        set_owner(org, y, q.id)
        give(stack, p.id, "trade")
        give(stack, q.id, "trade")
        cards_before = (trade_cards(p), trade_cards(q))
        made = p.post("/trades", {"offer_territory_id": x, "want_territory_id": y})
        assert made.status_code == 201 and made.json()["state"] == "open", made.text
        tid = made.json()["id"]
        r = verified_player(http, org)
        accepted, stole = together(_post(stack.base_url, q, f"/trades/{tid}/accept"),
                                   _post(stack.base_url, r, "/claims", _claim_body(x), after=STAGGER[k % 4]))
        stolen = stole.status_code == 201 and stole.json()["kind"] == "steal"
        # whatever the order, the proposal is no longer open once both settled
        assert tid not in closed_soon(p, tid), tid
        if accepted.status_code == 200:
            assert accepted.json() == {"id": tid, "state": "accepted"}, accepted.text
            assert owner(http, y) == p.id and owner(http, x) == (r.id if stolen else q.id)
            assert (trade_cards(p), trade_cards(q)) == (cards_before[0] - 1, cards_before[1] - 1)   # R18
            seen["accepted_then_" + ("stolen" if stolen else "kept")] += 1
        else:
            assert (accepted.status_code, accepted.json()["reason"]) == (409, "trade_no_longer_valid"), accepted.text
            assert stolen, stole.text                     # only the steal can have made it fail
            assert owner(http, x) == r.id and owner(http, y) == q.id
            assert (trade_cards(p), trade_cards(q)) == cards_before                                 # R13
            seen["stolen_then_refused"] += 1
    elapsed = time.monotonic() - start
    print(f"R18 acceptance vs steal: K={K} in {elapsed:.1f} s: {dict(seen)}")
    assert elapsed < BOUND_S


def test_r18_concurrent_acceptances_of_one_offered_territory_give_one_swap_and_clear_refusals(
        stack: Stack, http: httpx.Client, org: Player, pool: Iterator[str]) -> None:
    n = 3
    partners = [verified_player(http, org, f"Taker{i}") for i in range(n)]
    seen: Counter[str] = Counter()
    start = time.monotonic()
    for _ in range(K):
        p = verified_player(http, org)
        x = next(pool)
        ys = [next(pool) for _ in partners]
        set_owner(org, x, p.id)
        for y, q in zip(ys, partners, strict=True):
            set_owner(org, y, q.id)
            give(stack, q.id, "trade")
        give(stack, p.id, *["trade"] * n)          # enough cards that only the territory decides
        held = trade_cards(p)                       # and any its verification drew (R12)
        tids = []
        for y in ys:
            made = p.post("/trades", {"offer_territory_id": x, "want_territory_id": y})
            assert made.status_code == 201, made.text
            tids.append(made.json()["id"])
        answers = together(*(_post(stack.base_url, q, f"/trades/{tid}/accept")
                             for q, tid in zip(partners, tids, strict=True)))
        won = [i for i, a in enumerate(answers) if a.status_code == 200]
        assert len(won) == 1, [a.text for a in answers]
        for i, a in enumerate(answers):
            if i != won[0]:
                assert (a.status_code, a.json()["reason"]) == (409, "trade_no_longer_valid"), a.text
        w = won[0]
        assert owner(http, x) == partners[w].id and owner(http, ys[w]) == p.id
        assert [owner(http, y) for i, y in enumerate(ys) if i != w] == [q.id for i, q in enumerate(partners) if i != w]
        assert trade_cards(p) == held - 1                # one Trade card consumed, the others released
        assert closed_soon(p) == set()
        seen[f"winner_{w}"] += 1
    elapsed = time.monotonic() - start
    print(f"R18 concurrent acceptances: K={K} x {n} in {elapsed:.1f} s: {dict(seen)}")
    assert elapsed < BOUND_S
