from __future__ import annotations

import pytest

from turf_common.board import Board, load_board


@pytest.fixture(scope="session")
def board() -> Board:
    return load_board()


@pytest.fixture(scope="session")
def by_name(board: Board) -> dict[str, str]:
    names: dict[str, str] = {}
    for t in board.territories.values():
        assert t.name not in names, f"duplicate name {t.name}"
        names[t.name] = t.id
    return names
