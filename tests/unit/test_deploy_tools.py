"""The organizer's tools reach the compose deployment: its `tools` service runs `turfwar status`, `verify scores` and
`audit draws` from the backup image, which holds the services' packages and the wheels build-wheels.sh adds (TOOLS).
Each command is run here with only those packages importable, against servers that do not answer: an import the
image lacks fails the test, not the organizer on game day."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
MEMBERS = ["turf-common", "turf-geo-verify", "turf-claims", "turf-cards", "turf-scoring", "turf-clock", "turf-notify",
           "turf-modes", "turf-gateway"]


def _image_packages() -> set[str]:
    """The distributions of the backup image: the services' locked closure and build-wheels.sh's TOOLS."""
    tools = re.search(r"^TOOLS=\(([^)]*)\)", (ROOT / "deploy" / "build-wheels.sh").read_text(), re.M)
    assert tools, "build-wheels.sh names its TOOLS"
    lock = {p["name"]: p for p in tomllib.loads((ROOT / "uv.lock").read_text())["package"]}
    seen: set[str] = set()
    todo = [*MEMBERS, *tools.group(1).split()]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [d["name"] for d in lock.get(name, {}).get("dependencies", [])]
    return seen | {"turfwar"}


BLOCKER = textwrap.dedent("""
    import importlib.metadata as md, sys
    allowed = set(sys.stdlib_module_names)
    for name in sys.argv[1].split(","):
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        allowed |= set((dist.read_text("top_level.txt") or "").split())
        allowed |= {f.parts[0].removesuffix(".py") for f in dist.files or [] if not f.parts[0].endswith(
            (".dist-info", ".data", ".pth")) and f.parts[0] != ".."}

    class NotInTheImage:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] not in allowed and not name.startswith("_"):
                raise ModuleNotFoundError(f"not in the tools image: {name}", name=name)

    sys.meta_path.insert(0, NotInTheImage())
    import nats   # in the image; refused at once (nats-py would go on reconnecting to a port nobody listens on)

    async def nobody(*args, **kwargs):
        raise ConnectionRefusedError("nobody answers here")

    nats.connect = nobody
    sys.argv = ["turfwar", *sys.argv[2:]]
    from turfwar.cli import app
    app()
""")


@pytest.mark.parametrize("command", [["status"], ["verify", "scores"], ["audit", "draws"]])
def test_the_tools_image_runs_the_organizers_commands(command: list[str], tmp_path: Path) -> None:
    nowhere = {"TURF_DATA_DIR": str(tmp_path), "TURF_NATS_URL": "nats://127.0.0.1:1",
               "TURF_DATABASE_URL": "postgresql://u:p@127.0.0.1:1/turfwar", "TURF_REDIS_URL": "redis://127.0.0.1:1/0",
               "TURF_GATEWAY_URL": "http://127.0.0.1:1", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", BLOCKER, ",".join(sorted(_image_packages())), *command],
                       capture_output=True, text=True, timeout=60, env=nowhere, cwd=tmp_path)
    assert "not in the tools image" not in r.stdout + r.stderr, r.stderr[-2000:]
    # it got as far as the servers
    assert "Traceback" not in r.stderr or "nobody answers here" in r.stderr or "connection failed" in r.stderr, \
        r.stderr[-2000:]
    assert r.returncode != 0   # nothing answers here


def test_the_blocker_catches_a_package_the_image_lacks(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-c", BLOCKER, ",".join(sorted(_image_packages() - {"typer"})), "status"],
                       capture_output=True, text=True, timeout=120, env={"TURF_DATA_DIR": str(tmp_path)}, cwd=tmp_path)
    assert "not in the tools image: typer" in r.stderr


def test_the_tools_service_reads_with_the_backups_role_and_the_tools_nats_user() -> None:
    svc = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]["tools"]
    env = svc["environment"]
    assert svc["image"] == "turfwar-backup:latest" and "ports" not in svc
    assert env["TURF_DATABASE_URL"].startswith("postgresql://turf_backup:")   # pg_read_all_data, nothing more
    assert env["TURF_NATS_URL"].split(",")[0] == "nats://admin:${TURF_NATS_PASSWORD_ADMIN}@nats-1:4222"
    assert env["TURF_GATEWAY_URL"] == "http://gateway:8000"
    assert "PATH=/opt/tools/bin:" in (ROOT / "deploy" / "Dockerfile").read_text()
