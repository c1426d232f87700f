"""Cards service process: ``python -m turf_cards``.

The walking skeleton only runs the process and answers health; hands, draws and the seven cards arrive with #5.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from turf_common.bus import Bus
from turf_common.service import serve_forever
from turf_common.settings import get_settings


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        async def cleanup() -> None:
            return None

        return cleanup

    asyncio.run(serve_forever("cards", settings, start))
