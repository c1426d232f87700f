"""The organizer's flag clearances (R7.1), one contract for the memory fake and PostgreSQL (see
conftest.py): the first clearance of a flag is the one kept, also against a repeat and a concurrent clear (two tabs),
and each is one ``flag_cleared`` entry of the organizer's action log."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from gateway_backends import Backend

from turf_gateway.ports import Clearance

AT = "2026-10-06T09:00:00-04:00"


def detail(at: str = AT) -> dict[str, str | None]:
    return {"at": at, "kind": "jump", "player_id": "ann", "claim_id": "c1"}


async def test_r71_the_first_clearance_wins_and_a_repeat_keeps_it(backend: Backend) -> None:
    cl = backend.clearances
    assert await cl.all() == {}
    first = Clearance(at=AT, by="org", reason="the train")
    assert await cl.clear("f1", "org", "the train", detail()) == first
    assert await cl.clear("f1", "org2", "again", detail("2026-10-06T10:00:00-04:00")) == first
    assert await cl.clear("f2", "org", None, detail()) == Clearance(at=AT, by="org", reason=None)
    assert await cl.all() == {"f1": first, "f2": Clearance(at=AT, by="org", reason=None)}
    assert await backend.admin_log() == [("org", "flag_cleared", "f1", "the train", detail()),
                                         ("org", "flag_cleared", "f2", None, detail())]


async def test_r71_concurrent_clears_of_one_flag_keep_one(backend: Backend) -> None:
    got = await asyncio.gather(*(backend.clearances.clear("f1", by, by, detail()) for by in ("tab1", "tab2")))
    assert got[0] == got[1] and got[0].by in ("tab1", "tab2")
    assert await backend.clearances.all() == {"f1": got[0]}
    assert [(e[1], e[2], e[0]) for e in await backend.admin_log()] == [("flag_cleared", "f1", got[0].by)]


async def test_r71_a_clearance_without_its_game_time_answers_the_entrys_time(backend: Backend) -> None:
    before = datetime.now(UTC)
    got = await backend.clearances.clear("f1", "org", None, {"kind": "jump"})
    at = datetime.fromisoformat(got.at)
    assert before <= at <= datetime.now(UTC) and got.at.endswith("+00:00"), got.at
    assert await backend.clearances.all() == {"f1": got}
