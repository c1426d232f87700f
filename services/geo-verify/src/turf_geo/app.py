"""geo-verify process: ``python -m turf_geo``. Holds the board in memory; answers ``geo.locate``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from turf_common.board import load_board
from turf_common.bus import Bus
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.geo import LocatePoint
from turf_common.service import run
from turf_common.settings import get_settings
from turf_geo.handlers import locate


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        board = load_board(settings.board_dir)
        board.territory_at(0.0, 0.0)  # build the lookup index now, before the first request

        async def on_locate(data: bytes) -> Message:
            return locate(board, LocatePoint.model_validate_json(data))

        await bus.serve(subjects.GEO_LOCATE, "geo-verify", on_locate)

        async def cleanup() -> None:
            return None

        return cleanup

    run("geo-verify", settings, start)
