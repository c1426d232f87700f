"""R12.1: the season's seed and the organizer's password are fixed before anything starts, from the OS's
CSPRNG unless given, kept readable by their owner only, and never the public defaults outside a manual-clock
rehearsal (the password: on loopback only too). A begun season is marked by ``season.json``, not guessed from the
embedded servers' folders."""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from turf_common.settings import (
    DEFAULT_ORGANIZER_PASSWORD,
    PUBLIC_SEED,
    organizer_password_refusal,
    seed_refusal,
)
from turfwar import embedded
from turfwar.stack import Stack, StackError

# a configured seed or password of a real season holds 128 bits or more (turf_common.secrets_policy)
STRONG = "Vq7dX2kLm9RtW4zB-8nHc3PfJ6sYg1Ee"
SECRETS = ("TURF_SEED", "TURF_ORGANIZER_PASSWORD", "TURF_CLOCK", "TURF_HTTP_HOST", "TURF_NATS_URL",
           "TURF_DATABASE_URL", "TURF_REDIS_URL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in SECRETS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def fake_servers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Embedded servers that only make their data folder, as the real ones do, and note whether the season's seed
    was already chosen when they started."""
    seen: list[tuple[str, bool]] = []

    def fake(name: str):  # type: ignore[no-untyped-def]
        def start(data_dir: Path, port: int | None = None, stream: str | None = None) -> embedded.Server:
            seen.append((name, (data_dir / "season.json").exists()))
            (data_dir / name).mkdir(exist_ok=True)
            proc = subprocess.Popen([sys.executable, "-c", "pass"])
            proc.wait()
            return embedded.Server(name, f"{name}://127.0.0.1:1", proc, data_dir / f"{name}.log")
        return start

    for name in ("nats", "postgres", "redis"):
        monkeypatch.setattr(embedded, f"start_{name}", fake(name))
    return seen


def test_r12_1_seed_is_random_per_data_dir_kept_and_private(tmp_path: Path) -> None:
    first = Stack(tmp_path / "a").child_env()["TURF_SEED"]
    again = Stack(tmp_path / "a").child_env()["TURF_SEED"]          # a restart on the same directory
    other = Stack(tmp_path / "b").child_env()["TURF_SEED"]
    assert first == again and first != other
    assert len(first) == 64 and int(first, 16) >= 0
    assert first != PUBLIC_SEED
    assert stat.S_IMODE((tmp_path / "a" / "season-seed").stat().st_mode) == 0o600


def test_r12_1_a_configured_seed_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_SEED", STRONG)
    assert Stack(tmp_path).child_env()["TURF_SEED"] == STRONG
    assert not (tmp_path / "season-seed").exists()


def test_r12_1_the_seed_is_chosen_before_the_embedded_servers_make_their_folders(
        tmp_path: Path, fake_servers: list[tuple[str, bool]]) -> None:
    """A former bug: `up` started the servers first, then took their postgres folder for a begun season and
    drew every hand from the public default."""
    stack = Stack(tmp_path, env={"TURF_CLOCK": "manual"})
    stack.start_servers()
    assert fake_servers == [("nats", True), ("postgres", True), ("redis", True)]
    seed = stack.child_env()["TURF_SEED"]
    assert seed != PUBLIC_SEED and seed == (tmp_path / "season-seed").read_text()
    began = json.loads((tmp_path / "season.json").read_text())
    assert began["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    assert began["seed_source"] == "season-seed"


def test_r12_1_a_postgres_folder_alone_is_no_begun_season(tmp_path: Path) -> None:
    (tmp_path / "postgres").mkdir()
    seed = Stack(tmp_path, env={"TURF_CLOCK": "manual"}).child_env()["TURF_SEED"]
    assert seed != PUBLIC_SEED and len(seed) == 64


@pytest.mark.parametrize("clock", ["real", "accelerated:60"])
def test_r12_1_the_public_default_seed_is_refused_with_a_real_or_accelerated_clock(
        tmp_path: Path, fake_servers: list[tuple[str, bool]], clock: str) -> None:
    stack = Stack(tmp_path, env={"TURF_SEED": PUBLIC_SEED, "TURF_CLOCK": clock,
                                 "TURF_ORGANIZER_PASSWORD": "a secret"})
    with pytest.raises(StackError, match=r"TURF_SEED is the public default 'turfwar-2026'.*R12\.1"):
        stack.start_servers()
    assert fake_servers == [] and not (tmp_path / "season.json").exists()


def test_r12_1_the_public_default_seed_is_allowed_for_a_manual_rehearsal(tmp_path: Path) -> None:
    env = Stack(tmp_path, env={"TURF_SEED": PUBLIC_SEED, "TURF_CLOCK": "manual"}).child_env()
    assert env["TURF_SEED"] == PUBLIC_SEED
    assert seed_refusal("", "manual") is None and seed_refusal("", "real") is not None
    assert seed_refusal(STRONG, "real") is None


def test_r12_1_a_begun_season_refuses_another_seed(tmp_path: Path, fake_servers: list[tuple[str, bool]]) -> None:
    Stack(tmp_path, env={"TURF_SEED": "first", "TURF_CLOCK": "manual"}).prepare()
    Stack(tmp_path, env={"TURF_SEED": "first", "TURF_CLOCK": "manual"}).prepare()     # a restart: same seed
    changed = Stack(tmp_path, env={"TURF_SEED": "second", "TURF_CLOCK": "manual"})
    with pytest.raises(StackError, match=f"began on another seed \\(SHA-256 {hashlib.sha256(b'first').hexdigest()}"):
        changed.start_servers()
    assert fake_servers == []
    # a season begun on its own random seed is not switched to a configured one either
    Stack(tmp_path / "b").prepare()
    with pytest.raises(StackError, match="from season-seed"):
        Stack(tmp_path / "b", env={"TURF_SEED": STRONG}).prepare()


@pytest.mark.parametrize(("clock", "host", "refused"), [
    ("real", "127.0.0.1", True), ("accelerated:60", "127.0.0.1", True), ("manual", "0.0.0.0", True),
    ("manual", "192.168.1.20", True), ("manual", "127.0.0.1", False), ("manual", "::1", False),
    ("manual", "localhost", False)])
def test_the_default_organizer_password_only_for_a_manual_rehearsal_on_loopback(
        tmp_path: Path, clock: str, host: str, refused: bool) -> None:
    assert (organizer_password_refusal(DEFAULT_ORGANIZER_PASSWORD, clock, host) is not None) is refused
    assert organizer_password_refusal(STRONG, clock, host) is None
    stack = Stack(tmp_path, env={"TURF_ORGANIZER_PASSWORD": DEFAULT_ORGANIZER_PASSWORD, "TURF_CLOCK": clock,
                                 "TURF_HTTP_HOST": host})
    if refused:
        with pytest.raises(StackError, match="TURF_ORGANIZER_PASSWORD is the public default 'organizer'"):
            stack.prepare()
        assert not (tmp_path / "season.json").exists()
    else:
        assert stack.child_env()["TURF_ORGANIZER_PASSWORD"] == DEFAULT_ORGANIZER_PASSWORD


def test_without_a_password_the_stack_makes_a_random_one_once_and_keeps_it_private(tmp_path: Path) -> None:
    first = Stack(tmp_path)
    pw = first.child_env()["TURF_ORGANIZER_PASSWORD"]
    assert pw != DEFAULT_ORGANIZER_PASSWORD and len(pw) >= 24 and first.new_organizer_password == pw
    path = tmp_path / "organizer-password"
    assert path.read_text() == pw and stat.S_IMODE(path.stat().st_mode) == 0o600
    again = Stack(tmp_path)
    assert again.child_env()["TURF_ORGANIZER_PASSWORD"] == pw and again.new_organizer_password is None
    assert Stack(tmp_path / "other").child_env()["TURF_ORGANIZER_PASSWORD"] != pw


def test_up_prints_a_made_organizer_password_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`turfwar up` without TURF_ORGANIZER_PASSWORD: the first start shows the password it made and where it is
    kept; later starts do not show it again."""
    from turfwar import cli

    def stop_here(self: Stack, progress: bool = False) -> None:
        raise StackError("stopped by the test before any server")

    monkeypatch.setattr(Stack, "start_servers", stop_here)
    monkeypatch.setattr(cli.signal, "signal", lambda *_: None)   # keep pytest's own Ctrl-C
    monkeypatch.setenv("TURF_DATA_DIR", str(tmp_path))
    runner = CliRunner()
    outs = [runner.invoke(cli.app, ["up"], catch_exceptions=True).output for _ in range(2)]
    pw = (tmp_path / "organizer-password").read_text()
    assert pw in outs[0] and "organizer-password" in outs[0]
    assert pw not in outs[1]
