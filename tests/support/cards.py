"""Helpers for the card tests: organizer hand corrections over NATS, GPS points inside a territory, hands."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Any

import nats

from tests.support.bus import request
from tests.support.client import Player
from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.cards import AdjustHand
from turfwar.stack import Stack


def give(stack: Stack, player_id: str, *types: str, remove: tuple[str, ...] = ()) -> list[str]:
    """The organizer's ``adjust_hand`` correction (R28) through ``cards.adjust``: the ids of the added cards."""

    async def go() -> dict[str, Any]:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            cmd = AdjustHand(correction_id=uuid.uuid4().hex, player_id=player_id, add=list(types),  # type: ignore[arg-type]
                             remove=list(remove))  # type: ignore[arg-type]
            return await request(nc, subjects.CARDS_ADJUST, cmd.model_dump_json().encode())
        finally:
            await nc.close()

    out = asyncio.run(go())
    assert out.get("ok") is True, out
    return [c["id"] for c in out["added"]]


def point(territory_id: str) -> tuple[float, float]:
    """A point well inside the territory (its label point)."""
    return load_board().territories[territory_id].label_point


def claim(p: Player, territory_id: str, at: datetime) -> Any:
    return p.claim(*point(territory_id), at)


def hand(p: Player) -> list[dict[str, Any]]:
    r = p.get("/me/hand")
    assert r.status_code == 200, r.text
    return r.json()["cards"]  # type: ignore[no-any-return]


def ready(p: Player, kind: str) -> list[str]:
    return [c["id"] for c in hand(p) if c["type"] == kind and c["state"] == "ready"]


def play(p: Player, kind: str, **args: Any) -> Any:
    return p.post("/cards/play", {"type": kind, **args})
