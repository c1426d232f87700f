"""The game board: territories, adjacency and point lookup (rules R21, R22, R24)."""

from turf_common.board.loader import DEFAULT_BOARD_DIR, Board, Location, Territory, load_board, read_features

__all__ = ["DEFAULT_BOARD_DIR", "Board", "Location", "Territory", "load_board", "read_features"]
