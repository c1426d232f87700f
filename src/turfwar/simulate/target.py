"""The stack a simulation plays on: a running one (``--url`` and organizer credentials) or one started here with
the manual clock, exactly as the end-to-end tests start theirs."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from turfwar.simulate.config import SimConfig

CLOCK_START = "2026-10-05T05:00:00-04:00"


class TargetError(RuntimeError):
    """The simulation cannot find or start its stack."""


@dataclass(frozen=True)
class Target:
    base_url: str
    organizer_email: str
    organizer_password: str
    database_url: str | None
    nats_url: str | None
    stream: str
    started_here: bool
    logs_dir: Path | None = None


@contextlib.contextmanager
def stack_target(cfg: SimConfig, say: Callable[[str], object] | None = print) -> Iterator[Target]:
    if cfg.url:
        yield _existing(cfg)
        return
    from turfwar.embedded import free_port
    from turfwar.stack import Stack, StackError

    temp = cfg.data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="turfwar-sim-")) if temp else Path(cfg.data_dir).resolve()  # type: ignore[arg-type]
    org = ("organizer@sim.turfwar.test", "sim-" + secrets.token_hex(8))
    env = {"TURF_CLOCK": "manual", "TURF_CLOCK_START": CLOCK_START, "TURF_ORGANIZER_EMAIL": org[0],
           "TURF_ORGANIZER_PASSWORD": org[1], "TURF_GEOCODER": "none", "TURF_LOG_LEVEL": "WARNING",
           "TURF_STREAM": "SIM" + uuid.uuid4().hex[:8].upper(), "TURF_REDIS_PREFIX": "sim" + uuid.uuid4().hex[:8] + ":"}
    stack = Stack(data_dir=data_dir, env=env, http_port=free_port())
    failed = False
    try:
        try:
            stack.lock()
        except StackError as e:
            raise TargetError(str(e)) from None
        if say is not None:
            say(f"starting a stack (manual clock from {CLOCK_START}) in {data_dir} …")
        stack.start_servers()
        stack.start_services()
        yield Target(stack.base_url, org[0], org[1], stack.env.get("TURF_DATABASE_URL"),
                     stack.env.get("TURF_NATS_URL"), env["TURF_STREAM"], started_here=True,
                     logs_dir=data_dir / "logs")
    except BaseException:
        failed = True
        raise
    finally:
        stack.stop()
        if temp and not failed:
            shutil.rmtree(data_dir, ignore_errors=True)
        elif failed and say is not None:
            say(f"the stack's data and logs are kept in {data_dir} (logs/<service>.log)")


def _existing(cfg: SimConfig) -> Target:
    from turf_common.settings import get_settings

    if not (cfg.organizer_email and cfg.organizer_password):
        raise TargetError("--url needs --organizer-email and --organizer-password (the manual clock is the "
                          "organizer's)")
    s = get_settings()
    info: dict[str, str] = {}
    manifest = Path(cfg.data_dir or s.data_dir) / "stack.json"
    if manifest.exists():
        info = json.loads(manifest.read_text())
    db = cfg.database_url or os.environ.get("TURF_DATABASE_URL") or info.get("database_url")
    nats_url = cfg.nats_url or os.environ.get("TURF_NATS_URL") or info.get("nats_url")
    assert cfg.url is not None
    logs = Path(cfg.data_dir) / "logs" if cfg.data_dir else None
    return Target(cfg.url.rstrip("/"), cfg.organizer_email, cfg.organizer_password, db, nats_url,
                  cfg.stream or s.stream, started_here=False, logs_dir=logs if logs and logs.is_dir() else None)
