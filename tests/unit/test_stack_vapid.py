"""The Web Push (VAPID) key is made once per data directory, kept private (0600) and the same across
restarts; ``TURF_VAPID_PRIVATE_KEY`` overrides it."""

from __future__ import annotations

import base64
import stat
from pathlib import Path

import pytest

from turf_notify.adapters.webpush import public_key
from turfwar.stack import Stack


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("TURF_VAPID_PRIVATE_KEY", "TURF_SEED", "TURF_ORGANIZER_PASSWORD", "TURF_CLOCK"):
        monkeypatch.delenv(var, raising=False)


def test_the_vapid_key_is_made_once_per_data_dir_and_private(tmp_path: Path) -> None:
    first = Stack(tmp_path / "a").child_env()["TURF_VAPID_PRIVATE_KEY"]
    again = Stack(tmp_path / "a").child_env()["TURF_VAPID_PRIVATE_KEY"]
    other = Stack(tmp_path / "b").child_env()["TURF_VAPID_PRIVATE_KEY"]
    assert first == again != other
    assert len(base64.urlsafe_b64decode(first + "=")) == 32   # the raw P-256 scalar
    assert len(base64.urlsafe_b64decode(public_key(first) + "==")) == 65
    assert stat.S_IMODE((tmp_path / "a" / "vapid-private-key").stat().st_mode) == 0o600


def test_a_configured_vapid_key_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_VAPID_PRIVATE_KEY", "configured")
    assert Stack(tmp_path).child_env()["TURF_VAPID_PRIVATE_KEY"] == "configured"
    assert not (tmp_path / "vapid-private-key").exists()
