"""Public display names (the Discord username), cached; never email or address."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from turf_gateway import tables as t


async def display_names(state: Any, ids: list[str]) -> dict[str, str]:
    missing = [i for i in ids if i not in state.display_names]
    if missing:
        async with state.engine.connect() as conn:
            rows = (await conn.execute(select(t.players.c.id, t.players.c.discord)
                                       .where(t.players.c.id.in_(missing)))).all()
        for r in rows:
            state.display_names[r.id] = r.discord
    return {i: state.display_names.get(i, "") for i in ids}
