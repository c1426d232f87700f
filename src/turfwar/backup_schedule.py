"""``python -m turfwar.backup_schedule``: the deployment's scheduled backup, the compose file's
``backup`` service.

Every ``--every`` (default 6 h) it makes one ``turfwar backup`` folder, ``<into>/<UTC time>/`` (the same folder
``turfwar restore`` takes), into ``TURF_*_URL``'s servers' season, then keeps the newest ``--keep`` complete ones
(a folder is complete once its ``manifest.json`` is written, the backup's last step); a failed backup is removed,
logged as an error and tried again after ``--retry`` seconds, never left to look like a good one. Each run logs
one JSON line (``backup.done`` with the folder and its parts, or ``backup.failed`` with the error) and keeps it in
``<into>/last-run.json``, which ``--check`` (the container's healthcheck) reads."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from turfwar.backup import Servers, backup
from turfwar.embedded import write_file

MANIFEST = "manifest.json"
LAST_RUN = "last-run.json"   # the last run's record: the container's healthcheck reads it (``--check``)
_STAMP = re.compile(r"^\d{8}T\d{6}Z$")


def seconds(text: str) -> float:
    """``"6h"``, ``"30m"``, ``"90s"`` or a bare number of seconds → seconds. Raises ValueError otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([hms]?)\s*", text)
    if m is None or float(m.group(1)) <= 0:
        raise ValueError(f"not a positive duration: {text!r} (e.g. 6h, 30m, 90s)")
    return float(m.group(1)) * {"h": 3600, "m": 60, "s": 1, "": 1}[m.group(2)]


def prune(into: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` complete backups under ``into``, and every incomplete one older than the
    newest complete one (a run that died mid-way). Returns the folders deleted."""
    folders = sorted(p for p in into.iterdir() if p.is_dir() and _STAMP.match(p.name))
    complete = [p for p in folders if (p / MANIFEST).exists()]
    newest = complete[-1].name if complete else ""
    doomed = complete[:-keep] if keep > 0 else complete
    doomed += [p for p in folders if not (p / MANIFEST).exists() and p.name < newest]
    for p in doomed:
        shutil.rmtree(p)
    return sorted(doomed)


def run_once(servers: Servers, into: Path, keep: int, now: Callable[[], datetime] = lambda: datetime.now(UTC),
             make: Callable[..., dict[str, Any]] = backup) -> dict[str, Any]:
    """One scheduled backup: ``<into>/<UTC time>/``, then :func:`prune`. Returns the log record (``event``
    ``backup.done`` or ``backup.failed``); a failed folder is removed."""
    into.mkdir(mode=0o700, parents=True, exist_ok=True)
    out = into / now().strftime("%Y%m%dT%H%M%SZ")
    if out.exists():   # a second run within the second: never touch the backup already there
        return {"event": "backup.failed", "level": "error", "folder": str(out), "error": "folder exists"}
    try:
        manifest = make(servers, out, None, step=lambda _what: None)
    except Exception as e:   # the schedule outlives one bad run: log it and try again later
        shutil.rmtree(out, ignore_errors=True)
        return {"event": "backup.failed", "level": "error", "folder": str(out), "error": f"{type(e).__name__}: {e}"}
    pruned = prune(into, keep)
    return {"event": "backup.done", "level": "info", "folder": str(out), "parts": manifest.get("parts"),
            "pruned": [p.name for p in pruned]}


def healthy(into: Path) -> bool:
    """Whether the schedule's last run made a backup (False before the first run ends)."""
    try:
        return bool(json.loads((into / LAST_RUN).read_text())["event"] == "backup.done")
    except (OSError, ValueError, KeyError):
        return False


def servers_from_settings() -> Servers:
    """The season's servers from ``TURF_DATABASE_URL``, ``TURF_REDIS_URL`` and ``TURF_NATS_URL`` (all needed)."""
    from turf_common.settings import get_settings

    s = get_settings()
    missing = [n for n, v in (("TURF_DATABASE_URL", s.database_url), ("TURF_REDIS_URL", s.redis_url),
                              ("TURF_NATS_URL", s.nats_url)) if not v]
    if missing:
        raise SystemExit(f"set {', '.join(missing)}: the scheduled backup backs up those servers' season")
    assert s.database_url and s.redis_url and s.nats_url
    return Servers(s.database_url, s.redis_url, s.nats_url, s.stream, s.redis_prefix)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m turfwar.backup_schedule", description=__doc__.split("\n\n")[0])
    p.add_argument("--into", type=Path, default=Path("/backups"), help="the folder the backups go in")
    p.add_argument("--every", type=seconds, default=seconds("6h"), help="time between backups (6h, 30m, 90s)")
    p.add_argument("--keep", type=int, default=28, help="how many complete backups to keep (28: a week at 6 h)")
    p.add_argument("--retry", type=seconds, default=seconds("5m"), help="wait after a failed backup")
    p.add_argument("--check", action="store_true", help="exit 0 when the last run succeeded (a healthcheck)")
    p.add_argument("--restore", type=Path, metavar="FOLDER",
                   help="restore this backup into the servers instead (stop every service first), then exit")
    args = p.parse_args(argv)
    if args.check:
        raise SystemExit(0 if healthy(args.into) else 1)
    servers = servers_from_settings()
    if args.restore is not None:
        from turfwar.backup import restore

        manifest = restore(servers, args.restore, step=lambda what: print(f"restoring {what} …", flush=True))
        print(json.dumps({"event": "backup.restored", "folder": str(args.restore), "made_at": manifest["made_at"]}))
        return
    while True:
        record = {"at": datetime.now(UTC).isoformat(), **run_once(servers, args.into, args.keep)}
        write_file(args.into / LAST_RUN, json.dumps(record))
        print(json.dumps(record), flush=True)
        time.sleep(args.every if record["event"] == "backup.done" else min(args.retry, args.every))


if __name__ == "__main__":
    main(sys.argv[1:])
