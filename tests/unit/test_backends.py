"""The test backends share one interface (tests/support/backends.servers)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.backends import servers


def test_default_backend_is_embedded_unless_urls_are_given(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("TURF_NATS_URL", "TURF_DATABASE_URL", "TURF_REDIS_URL", "TURF_TEST_BACKEND"):
        monkeypatch.delenv(k, raising=False)
    with servers() as urls:
        assert urls == {}
    monkeypatch.setenv("TURF_REDIS_URL", "redis://127.0.0.1:6379/0")
    with servers() as urls:
        assert urls == {"TURF_REDIS_URL": "redis://127.0.0.1:6379/0"}


def _docker_engine() -> bool:
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0


@pytest.mark.skipif(not _docker_engine(), reason="no Docker engine on this machine (TURF_TEST_BACKEND=containers)")
def test_containers_backend_gives_three_live_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    import nats
    import psycopg
    import redis

    from tests.support.backends import missing_images

    if missing := missing_images():
        pytest.skip(f"the engine has no {', '.join(missing)} and no registry is reachable here: build or load them, "
                    "or name local ones with TURF_TEST_IMAGE_POSTGRES/_REDIS/_NATS")

    monkeypatch.setenv("TURF_TEST_BACKEND", "containers")
    for k in ("TURF_NATS_URL", "TURF_DATABASE_URL", "TURF_REDIS_URL"):
        monkeypatch.delenv(k, raising=False)
    with servers() as urls:
        with psycopg.connect(urls["TURF_DATABASE_URL"]) as c:
            assert c.execute("SELECT 1").fetchone() == (1,)
        assert redis.Redis.from_url(urls["TURF_REDIS_URL"]).ping()

        async def js() -> None:
            nc = await nats.connect(urls["TURF_NATS_URL"])
            await nc.jetstream().account_info()
            await nc.close()

        import asyncio

        asyncio.run(js())
