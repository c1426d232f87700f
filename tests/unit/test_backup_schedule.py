"""The deployment's scheduled backup — one folder per run, the newest complete ones kept, a failed run
removed and reported."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from turfwar.backup import Servers
from turfwar.backup_schedule import prune, run_once, seconds

SERVERS = Servers("postgresql://db", "redis://r", "nats://n", "TURF", "turf:")


def fake_backup(servers: Servers, out: Path, data_dir: Path | None, step: Any) -> dict[str, Any]:
    out.mkdir(mode=0o700)
    (out / "database.dump").write_bytes(b"x")
    manifest = {"parts": {"database": 1}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def clock(start: datetime) -> Any:
    t = [start]

    def now() -> datetime:
        t[0] += timedelta(hours=6)
        return t[0]
    return now


def test_durations_read_as_seconds() -> None:
    assert [seconds(x) for x in ("6h", "30m", "90s", "45", "1.5h")] == [21600, 1800, 90, 45, 5400]
    for bad in ("", "0", "-1h", "6d", "h"):
        with pytest.raises(ValueError):
            seconds(bad)


def test_each_run_makes_a_folder_and_the_newest_complete_ones_are_kept(tmp_path: Path) -> None:
    now = clock(datetime(2026, 10, 5, tzinfo=UTC))
    records = [run_once(SERVERS, tmp_path, keep=3, now=now, make=fake_backup) for _ in range(5)]
    assert [r["event"] for r in records] == ["backup.done"] * 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["20261005T180000Z", "20261006T000000Z",
                                                          "20261006T060000Z"]
    assert records[-1]["pruned"] == ["20261005T120000Z"] and records[-1]["parts"] == {"database": 1}
    assert oct(tmp_path.stat().st_mode & 0o777) == "0o700"


def test_a_failed_run_is_removed_reported_and_never_replaces_a_good_backup(tmp_path: Path) -> None:
    now = clock(datetime(2026, 10, 5, tzinfo=UTC))
    run_once(SERVERS, tmp_path, keep=2, now=now, make=fake_backup)

    def broken(servers: Servers, out: Path, data_dir: Path | None, step: Any) -> dict[str, Any]:
        out.mkdir()
        (out / "database.dump").write_bytes(b"half")
        raise RuntimeError("pg_dump failed: connection refused")

    r = run_once(SERVERS, tmp_path, keep=2, now=now, make=broken)
    assert (r["event"], r["level"], r["error"]) == ("backup.failed", "error",
                                                    "RuntimeError: pg_dump failed: connection refused")
    assert [p.name for p in tmp_path.iterdir()] == ["20261005T060000Z"]
    again = run_once(SERVERS, tmp_path, keep=2, now=lambda: datetime(2026, 10, 5, 6, tzinfo=UTC), make=fake_backup)
    assert (again["event"], again["error"]) == ("backup.failed", "folder exists")
    assert (tmp_path / "20261005T060000Z" / "manifest.json").exists()


def test_prune_drops_incomplete_folders_older_than_the_newest_complete_one(tmp_path: Path) -> None:
    for name, complete in (("20261005T000000Z", True), ("20261005T060000Z", False), ("20261005T120000Z", True),
                           ("20261005T180000Z", False)):
        (tmp_path / name).mkdir()
        if complete:
            (tmp_path / name / "manifest.json").write_text("{}")
    (tmp_path / "notes").mkdir()   # not a backup: left alone
    assert [p.name for p in prune(tmp_path, keep=5)] == ["20261005T060000Z"]
    # the newest folder may be a backup still being written: kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["20261005T000000Z", "20261005T120000Z",
                                                          "20261005T180000Z", "notes"]


def test_the_healthcheck_is_the_last_runs_outcome(tmp_path: Path) -> None:
    from turfwar.backup_schedule import LAST_RUN, healthy

    assert healthy(tmp_path) is False   # before the first run
    (tmp_path / LAST_RUN).write_text(json.dumps({"event": "backup.done"}))
    assert healthy(tmp_path) is True
    (tmp_path / LAST_RUN).write_text(json.dumps({"event": "backup.failed", "error": "x"}))
    assert healthy(tmp_path) is False
    (tmp_path / LAST_RUN).write_text("{half")
    assert healthy(tmp_path) is False
