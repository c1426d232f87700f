"""R12: a stack started without TURF_SEED draws from a seed of its own, random per data directory and kept across
restarts, never from the well-known default of the settings."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from turf_common.settings import Settings
from turfwar.stack import Stack


def test_r12_seed_is_random_per_data_dir_kept_and_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TURF_SEED", raising=False)
    first = Stack(tmp_path / "a").child_env()["TURF_SEED"]
    again = Stack(tmp_path / "a").child_env()["TURF_SEED"]          # a restart on the same directory
    other = Stack(tmp_path / "b").child_env()["TURF_SEED"]
    assert first == again and first != other
    assert len(first) == 64 and int(first, 16) >= 0
    assert first != Settings.model_fields["seed"].default
    assert stat.S_IMODE((tmp_path / "a" / "season-seed").stat().st_mode) == 0o600


def test_r12_a_configured_seed_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_SEED", "organizer chosen")
    assert Stack(tmp_path).child_env()["TURF_SEED"] == "organizer chosen"
    assert not (tmp_path / "season-seed").exists()


def test_r12_a_season_begun_on_the_default_seed_keeps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R12: switching seeds mid-season would change the draws and break the published commitment."""
    monkeypatch.delenv("TURF_SEED", raising=False)
    (tmp_path / "postgres").mkdir()    # a data directory from before seeds were made per directory
    assert Stack(tmp_path).child_env()["TURF_SEED"] == Settings.model_fields["seed"].default
