"""The one place where geo-verify's adapters are wired: the real board, or any :class:`BoardIndex` in tests."""

from __future__ import annotations

from faststream.nats import NatsBroker

from turf_common.service import Wire, Wired
from turf_common.settings import Settings
from turf_geo import entrypoints
from turf_geo.adapters.board import LoadedBoard
from turf_geo.handlers import GeoHandlers
from turf_geo.ports import BoardIndex


def handlers(board: BoardIndex) -> GeoHandlers:
    return GeoHandlers(board=board)


def wire(settings: Settings) -> Wire:
    """The app's start-up: load the board (a few seconds), then the subscribers."""
    async def build(broker: NatsBroker) -> Wired:
        return Wired(router=entrypoints.router(handlers(LoadedBoard.load(settings.board_dir)), settings.stream))

    return build
