"""Claims service process: ``python -m turf_claims``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from turf_claims import bootstrap, entrypoints
from turf_common.legacy_bus import Bus
from turf_common.service import run
from turf_common.settings import get_settings


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        svc = await bootstrap.build(settings, bus)
        return await entrypoints.subscribe(bus, svc)

    run("claims", settings, start)
