"""The organizer's deployment pages match the machine they are followed on: Debian 12's compose (v1,
`docker-compose`) throughout, crontab lines cron reads as written, no step that installs the tests' tools on the
server, and the restore stopping every service whose schema it replaces."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs" / "organizer").glob("*.md"))
CRON = re.compile(r"^(@\w+|([\d*/,-]+\s+){4}[\d*/,-]+)\s+\S")


def _blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def test_one_compose_flavour_the_one_debian_12_has() -> None:
    for page in PAGES:
        assert "docker compose " not in page.read_text().replace("`docker compose` v2", ""), page.name


def test_every_crontab_line_escapes_its_percent_signs() -> None:
    lines = [ln for page in PAGES for block in _blocks(page.read_text()) for ln in block.splitlines()
             if CRON.match(ln)]
    assert len(lines) >= 2   # the compose copy off the server, and turfwar up's backup
    for ln in lines:
        assert not re.search(r"(?<!\\)%", ln), ln   # cron ends the command at an unescaped % (crontab(5))


def test_the_server_steps_install_no_test_tools() -> None:
    text = (ROOT / "docs" / "organizer" / "deployment.md").read_text().split("## Secrets")[0]   # the steps
    assert "./turf test" not in text and "chromium" not in text.lower() and "./turf cli" in text
    assert "apt-get install -y --no-install-recommends docker.io docker-compose debootstrap" in text


def test_the_documented_restore_stops_every_service_and_uses_the_restore_service() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    running = {n for n, s in compose.items() if "image" in s and s["image"].startswith("turfwar")
               and not s.get("profiles") and n != "bus-setup"}
    text = (ROOT / "docs" / "organizer" / "backups.md").read_text()
    [stop] = re.findall(r"^dc stop (.*)$", text, re.M)
    assert set(stop.split()) == running, running ^ set(stop.split())
    assert "dc run --rm restore /backups/" in text
    script = (ROOT / "deploy" / "ci" / "compose-e2e.sh").read_text()
    assert f"stop {stop} " in script   # CI runs the documented restore
