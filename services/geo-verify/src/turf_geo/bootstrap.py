"""The one place where geo-verify's adapters are wired: the real board, or any :class:`BoardIndex` in tests."""

from __future__ import annotations

from faststream.nats import NatsBroker

from turf_common.rules import gametime
from turf_common.rules.claims import ClaimLimits
from turf_common.service import Wire, Wired
from turf_common.settings import Settings
from turf_geo import entrypoints
from turf_geo.adapters.board import LoadedBoard
from turf_geo.handlers import GeoHandlers
from turf_geo.ports import BoardIndex


def handlers(board: BoardIndex, limits: ClaimLimits | None = None) -> GeoHandlers:
    """``limits``: R7's and R7.1's (the season configuration's, R1; RULINGS.md's values by default)."""
    return GeoHandlers(board=board, limits=limits or ClaimLimits())


def wire(settings: Settings) -> Wire:
    """The app's start-up: load the board (a few seconds), then the subscribers."""
    async def build(broker: NatsBroker) -> Wired:
        limits = gametime.load_season(settings.season_file).limits
        h = handlers(LoadedBoard.load(settings.board_dir), limits)
        return Wired(router=entrypoints.router(h, settings.stream))

    return build
