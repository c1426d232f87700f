"""The committed board, loaded into memory with its point index built before the first request."""

from __future__ import annotations

from pathlib import Path

from turf_common.board import Board, load_board
from turf_common.board.loader import Location


class LoadedBoard:
    """:class:`turf_geo.ports.BoardIndex` over the board in ``directory`` (None: the packaged board)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        board.territory_at(0.0, 0.0)   # build the lookup index now, not on the first request

    @classmethod
    def load(cls, directory: Path | None) -> LoadedBoard:
        return cls(load_board(directory))

    def locate(self, lat: float, lon: float) -> Location:
        return self.board.locate(lat, lon)

    def name_of(self, territory_id: str) -> str:
        return self.board.territories[territory_id].name
