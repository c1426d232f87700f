"""The test backends share one interface (tests/support/backends.servers), and the stack stops and starts a server
it did not start through that server's control, as it does an embedded one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.backends import servers
from turfwar.stack import Stack


def test_default_backend_is_embedded_unless_urls_are_given(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("TURF_NATS_URL", "TURF_DATABASE_URL", "TURF_REDIS_URL", "TURF_TEST_BACKEND"):
        monkeypatch.delenv(k, raising=False)
    with servers() as given:
        assert (given.urls, given.controls) == ({}, {})
    monkeypatch.setenv("TURF_REDIS_URL", "redis://127.0.0.1:6379/0")
    with servers() as given:
        assert (given.urls, given.controls) == ({"TURF_REDIS_URL": "redis://127.0.0.1:6379/0"}, {})


class RecordingControl:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def stop(self) -> int:
        self.calls.append("stop")
        return 15432

    def start(self) -> None:
        self.calls.append("start")


def test_stack_kills_and_restarts_a_server_it_did_not_start_through_its_control(tmp_path: Path) -> None:
    control = RecordingControl()
    stack = Stack(data_dir=tmp_path, controls={"postgres": control})
    assert stack.stop_server("postgres") == 15432
    stack.start_server("postgres", 15432)
    stack.restart_server("postgres")
    assert control.calls == ["stop", "start", "stop", "start"]
    assert stack.servers == {}   # nothing embedded was started in its place


def _docker_engine() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0


needs_docker = pytest.mark.skipif(not _docker_engine(),
                                  reason="no Docker engine on this machine (TURF_TEST_BACKEND=containers)")


@pytest.fixture(scope="module")
def containers():  # type: ignore[no-untyped-def]
    """The containers backend's servers, one set for this module (their images built first when this engine lacks
    them)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TURF_TEST_BACKEND", "containers")
        for k in ("TURF_NATS_URL", "TURF_DATABASE_URL", "TURF_REDIS_URL"):
            mp.delenv(k, raising=False)
        with servers() as given:
            yield given


@pytest.mark.containers
@needs_docker
def test_containers_backend_gives_three_live_servers(containers) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    import nats
    import psycopg
    import redis

    urls = containers.urls
    with psycopg.connect(urls["TURF_DATABASE_URL"]) as c:
        assert c.execute("SELECT 1").fetchone() == (1,)
    assert redis.Redis.from_url(urls["TURF_REDIS_URL"]).ping()

    async def js() -> None:
        nc = await nats.connect(urls["TURF_NATS_URL"])
        await nc.jetstream().account_info()
        await nc.close()

    asyncio.run(js())
    assert sorted(containers.controls) == ["nats", "postgres", "redis"]


@pytest.mark.containers
@needs_docker
def test_a_killed_postgres_container_comes_back_at_its_address_with_what_it_committed(containers) -> None:  # type: ignore[no-untyped-def]
    import psycopg

    url = containers.urls["TURF_DATABASE_URL"]
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("CREATE TABLE kept (n int)")
        c.execute("INSERT INTO kept VALUES (7)")
    control = containers.controls["postgres"]
    port = control.stop()   # SIGKILL: no shutdown checkpoint, the WAL replays at the start
    assert f":{port}/" in url
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)
    control.start()
    with psycopg.connect(url) as c:
        assert c.execute("SELECT n FROM kept").fetchall() == [(7,)]
