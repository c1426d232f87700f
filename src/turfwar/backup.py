"""``turfwar backup`` and ``turfwar restore``: a season's state in one private folder, and back.

What a season is made of, and where the backup keeps it:

* ``database.dump`` — every service schema (claims, cards, clock, gateway), ``pg_dump --format=custom``;
* ``redis.json`` — scoring's read model, the organizer's score adjustments and final results, under the stack's
  Redis prefix (each key's ``DUMP`` and time to live);
* ``clock.json`` — the game clock's KV bucket (mode, anchor, rate: a manual clock's time);
* ``season/`` — the data directory's season files when it has them (``season-seed``, ``season.json``,
  ``organizer-password``): without the seed, restored hands could not be audited or dealt on (R12.1);
* ``manifest.json`` — when, from which stream and prefix, the seed's commitment, what each part holds.

The folder is 0700 and its files 0600: it holds the season's seed and every player's private data. The event
stream itself is not copied: every service's state is in the database and Redis, and the outboxes republish what
was not yet published. Restore into servers no service is using (before ``turfwar up``): it replaces each schema
and each key of the prefix."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from turfwar.embedded import write_file

SEASON_FILES = ("season-seed", "season.json", "organizer-password", "vapid-private-key")
SCHEMAS = ("claims", "cards", "clock", "notify", "modes", "gateway")


@dataclass(frozen=True)
class Servers:
    """Where the season's servers are (admin URLs) and the stack's names on them."""

    database_url: str
    redis_url: str
    nats_url: str
    stream: str
    redis_prefix: str


def pg_tool(name: str) -> str:
    """``pg_dump``/``pg_restore``: pgserver's (PostgreSQL 16: it reads servers up to 16), else the PATH's."""
    try:
        from pgserver._commands import POSTGRES_BIN_PATH

        if (POSTGRES_BIN_PATH / name).exists():
            return str(POSTGRES_BIN_PATH / name)
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} is not installed (pip install pgserver, or PostgreSQL's client tools)")
    return found


def _run(args: list[str]) -> None:
    r = subprocess.run(args, capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"{Path(args[0]).name} failed: {r.stderr.strip()[-2000:]}")


# ---- Redis ------------------------------------------------------------------------------------------------
def dump_redis(url: str, prefix: str) -> dict[str, dict[str, Any]]:
    """Every key under ``prefix``: ``{key: {dump: base64, pttl_ms}}`` (rate-limit windows included: harmless)."""
    import redis

    r = redis.Redis.from_url(url)
    out: dict[str, dict[str, Any]] = {}
    for key in r.scan_iter(match=prefix + "*", count=1000):
        value = r.dump(key)
        if value is not None:
            out[key.decode()] = {"dump": base64.b64encode(value).decode(), "pttl_ms": int(r.pttl(key))}  # type: ignore[arg-type]
    return out


def restore_redis(url: str, prefix: str, keys: dict[str, dict[str, Any]], from_prefix: str) -> int:
    """Replace every key under ``prefix`` by the backup's (renamed from ``from_prefix``); returns how many."""
    import redis

    r = redis.Redis.from_url(url)
    stale = list(r.scan_iter(match=prefix + "*", count=1000))
    if stale:
        r.delete(*stale)
    for key, v in keys.items():
        ttl = v["pttl_ms"] if v["pttl_ms"] > 0 else 0
        r.restore(prefix + key[len(from_prefix):], ttl, base64.b64decode(v["dump"]), replace=True)
    return len(keys)


# ---- the clock's KV bucket ----------------------------------------------------------------------------------
async def _clock_entries(nats_url: str, stream: str, put: dict[str, str] | None = None) -> dict[str, str]:
    """Read the clock bucket's entries, or (``put``) write them; returns what the bucket then holds."""
    from turf_common.bus import make_broker
    from turf_common.bus.streams import ensure_clock_kv

    broker = make_broker(nats_url, "turfwar-backup")
    await broker.connect()
    try:
        kv = await ensure_clock_kv(broker, stream)   # a restore comes before the bus set-up: made when missing
        for key, value in (put or {}).items():
            await kv.put(key, base64.b64decode(value))
        out = {}
        for key in await _keys(kv):
            entry = await kv.get(key)
            out[key] = base64.b64encode(entry.value or b"").decode()
        return out
    finally:
        await broker.stop()


async def _keys(kv: Any) -> list[str]:
    from nats.js.errors import NoKeysError

    try:
        return list(await kv.keys())
    except NoKeysError:
        return []


# ---- the whole season ------------------------------------------------------------------------------------
def backup(servers: Servers, out: Path, data_dir: Path | None, step: Callable[[str], None] = print) -> dict[str, Any]:
    """Write the season's backup into the new folder ``out`` (see the module); returns its manifest."""
    out.mkdir(mode=0o700, parents=True, exist_ok=False)
    step("PostgreSQL: every schema")
    _run([pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", *(f"--schema={s}" for s in SCHEMAS),
          f"--file={out / 'database.dump'}", servers.database_url])
    (out / "database.dump").chmod(0o600)
    step("Redis: the read models under " + servers.redis_prefix)
    keys = dump_redis(servers.redis_url, servers.redis_prefix)
    write_file(out / "redis.json", json.dumps(keys))
    step("NATS: the game clock")
    clock = asyncio.run(_clock_entries(servers.nats_url, servers.stream))
    write_file(out / "clock.json", json.dumps(clock))
    season: list[str] = []
    if data_dir is not None:
        (out / "season").mkdir(mode=0o700)
        for name in SEASON_FILES:
            if (data_dir / name).exists():
                write_file(out / "season" / name, (data_dir / name).read_text())
                season.append(name)
    commitment = json.loads((data_dir / "season.json").read_text()).get("seed_commitment") \
        if data_dir is not None and (data_dir / "season.json").exists() else None
    manifest = {"made_at": datetime.now(UTC).isoformat(), "stream": servers.stream,
                "redis_prefix": servers.redis_prefix, "seed_commitment": commitment,
                "parts": {"database": (out / "database.dump").stat().st_size, "redis_keys": len(keys),
                          "clock_keys": len(clock), "season_files": season}}
    write_file(out / "manifest.json", json.dumps(manifest, indent=2))
    return manifest


def restore_season_files(src: Path, data_dir: Path) -> list[str]:
    """Put the backup's season files into ``data_dir`` before anything starts there. Refuses (ValueError) a data
    directory whose season began on another seed."""
    data_dir.mkdir(parents=True, exist_ok=True)
    mine, theirs = data_dir / "season.json", src / "season" / "season.json"
    if mine.exists() and theirs.exists() and \
            json.loads(mine.read_text())["seed_commitment"] != json.loads(theirs.read_text())["seed_commitment"]:
        raise ValueError(f"{data_dir} holds another season (another seed): restore into a new TURF_DATA_DIR")
    done = []
    for name in SEASON_FILES:
        if (src / "season" / name).exists():
            write_file(data_dir / name, (src / "season" / name).read_text())
            done.append(name)
    return done


def restore(servers: Servers, src: Path, step: Callable[[str], None] = print) -> dict[str, Any]:
    """Load the backup ``src`` into ``servers`` (which no service may be using); returns the backup's manifest."""
    manifest: dict[str, Any] = json.loads((src / "manifest.json").read_text())
    step("PostgreSQL: every schema")
    _run([pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
          f"--dbname={servers.database_url}", str(src / "database.dump")])
    step("Redis: the read models")
    restore_redis(servers.redis_url, servers.redis_prefix, json.loads((src / "redis.json").read_text()),
                  manifest["redis_prefix"])
    step("NATS: the game clock")
    asyncio.run(_clock_entries(servers.nats_url, servers.stream, put=json.loads((src / "clock.json").read_text())))
    return manifest
