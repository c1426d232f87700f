"""deploy/: the compose file against the Compose specification, the Kubernetes manifests against the
Kubernetes API schemas (strict, offline), and the NATS Helm values for a 3-node JetStream cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
BIN = Path(sys.executable).parent
SERVICES = {"geo-verify", "claims", "cards", "scoring", "clock", "notify", "modes", "gateway"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def test_compose_file_follows_the_compose_spec_and_has_every_part() -> None:
    r = run(str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(DEPLOY / "compose.yaml"))
    assert r.returncode == 0, r.stdout + r.stderr
    doc = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert SERVICES | {"nats-1", "nats-2", "nats-3", "postgres", "redis", "backup"} <= set(doc["services"])


def test_compose_backs_the_season_up_on_a_schedule_into_its_own_volume() -> None:
    svc = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["backup"]
    assert svc["build"]["target"] == "backup" and "backups:/backups" in svc["volumes"]
    assert svc["command"][:4] == ["python", "-m", "turfwar.backup_schedule", "--into"]
    assert "--check" in svc["healthcheck"]["test"]
    assert svc["environment"]["TURF_NATS_URL"].startswith("nats://admin:${TURF_NATS_PASSWORD_ADMIN}@")
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "FROM python AS backup" in dockerfile and dockerfile.rstrip().splitlines()[-1].startswith("CMD")
    # the default target (the services' image) is the last stage, and it carries no backup tools
    assert "/opt/tools" not in dockerfile.split("FROM python\n")[-1]


def test_kubernetes_manifests_validate_strictly() -> None:
    files = sorted(str(p) for p in (DEPLOY / "k8s").glob("*.yaml") if p.name != "kustomization.yaml")
    r = run(str(BIN / "kubernetes-validate"), "--strict", "--quiet", *files)
    assert r.returncode == 0, r.stdout + r.stderr
    kinds = {(d["kind"], d["metadata"]["name"]) for f in files for d in yaml.safe_load_all(Path(f).read_text())}
    assert {("Deployment", s) for s in SERVICES} <= kinds and ("Service", "gateway") in kinds


def test_a_broken_manifest_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((DEPLOY / "k8s" / "claims.yaml").read_text().replace("replicas: 2", "replicas: two"))
    assert run(str(BIN / "kubernetes-validate"), "--strict", "--quiet", str(bad)).returncode != 0
    bad_compose = tmp_path / "compose.yaml"
    bad_compose.write_text("services:\n  x:\n    image: 3\n    restart: sometimes\n")
    assert run(str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec",
               str(bad_compose)).returncode != 0


def test_nats_helm_values_ask_for_a_three_node_jetstream_cluster() -> None:
    v = yaml.safe_load((DEPLOY / "nats" / "values.yaml").read_text())
    assert v["config"]["cluster"] == {"enabled": True, "replicas": 3}
    assert v["config"]["jetstream"]["enabled"] is True
    assert "\nTURF_STREAM_REPLICAS=3\n" in (DEPLOY / "k8s" / "config.env").read_text()


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_module_exists(name: str) -> None:
    module = yaml.safe_load((DEPLOY / "k8s" / f"{name}.yaml").read_text())["spec"]["template"]["spec"][
        "containers"][0]["command"][-1]
    assert run(sys.executable, "-c", f"import importlib.util as u; assert u.find_spec('{module}')").returncode == 0


# ---- the deployment's bus asks every process for its own credentials -------------------------------------------------
def test_the_deployments_nats_users_are_the_embedded_servers_table() -> None:
    """deploy/nats/auth.conf is what turfwar/natsauth.py gives (the table the embedded server enforces, tested on a
    live server by tests/integration/test_bus_permissions.py); `turfwar docs nats-auth` rewrites it."""
    from turfwar import natsauth

    assert (DEPLOY / "nats" / "auth.conf").read_text() == natsauth.deploy_conf()
    assert "include ./auth.conf" in (DEPLOY / "nats" / "nats.conf").read_text()


def test_nats_refuses_to_start_without_every_password(tmp_path: Path) -> None:
    """nats-server itself parses the deployment's configuration: valid with each password given, refused with one
    missing (nothing starts on a default)."""
    from turfwar import natsauth

    users = [natsauth.ADMIN, *natsauth.PERMISSIONS]
    env = {natsauth.password_variable(u): f"pw-{u}" for u in users} | {"PATH": os.environ["PATH"]}
    conf = DEPLOY / "nats" / "nats.conf"
    ok = subprocess.run([str(BIN / "nats-server"), "-c", str(conf), "-t"], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    missing = {k: v for k, v in env.items() if k != natsauth.password_variable("claims")}
    bad = subprocess.run([str(BIN / "nats-server"), "-c", str(conf), "-t"], capture_output=True, text=True,
                         env=missing)
    assert bad.returncode != 0 and "TURF_NATS_PASSWORD_CLAIMS" in bad.stdout + bad.stderr


def test_each_compose_service_connects_as_its_own_nats_user() -> None:
    from turfwar import natsauth

    doc = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for name in SERVICES:
        url = doc["services"][name]["environment"]["TURF_NATS_URL"]
        var = natsauth.password_variable(name)
        assert url.split(",") == [f"nats://{name}:${{{var}}}@nats-{i}:4222" for i in (1, 2, 3)], name
    for node in ("nats-1", "nats-2", "nats-3"):
        env = doc["services"][node]["environment"]
        assert {natsauth.password_variable(u) for u in [natsauth.ADMIN, *natsauth.PERMISSIONS]} <= set(env)
    assert "--requirepass" in doc["services"]["redis"]["command"]


def test_deploy_env_makes_every_secret_compose_asks_for(tmp_path: Path) -> None:
    import re
    import stat

    from typer.testing import CliRunner

    from turfwar.cli import app

    out = tmp_path / ".env"
    r = CliRunner().invoke(app, ["deploy-env", "--organizer-email", "org@example.org", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    env = dict(line.split("=", 1) for line in out.read_text().splitlines() if line and not line.startswith("#"))
    asked = set(re.findall(r"\$\{(\w+):\?", (DEPLOY / "compose.yaml").read_text()))
    assert asked == set(env), asked ^ set(env)
    assert env["TURF_ORGANIZER_EMAIL"] == "org@example.org" and env["TURF_SEED"] != "turfwar-2026"
    assert all(v[0].isalpha() for v in env.values())   # nats-server would read "$X" = "4abc…" as a number
    assert len({v for k, v in env.items() if k != "TURF_ORGANIZER_EMAIL"}) == len(env) - 1   # all different
    again = CliRunner().invoke(app, ["deploy-env", "--organizer-email", "x@example.org", "--out", str(out)])
    assert again.exit_code == 1 and "org@example.org" in out.read_text()


# ---- the season's deployment: HTTPS through Caddy, health-gated start, the image, the CI override --------------------
def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_only_caddy_publishes_ports_and_the_gateways_trust_only_caddy() -> None:
    import ipaddress

    doc = _compose()
    assert [n for n, s in doc["services"].items() if s.get("ports")] == ["caddy"]
    caddy_ip = ipaddress.ip_address(doc["services"]["caddy"]["networks"]["turf"]["ipv4_address"])
    ipam = doc["networks"]["turf"]["ipam"]["config"][0]
    assert caddy_ip in ipaddress.ip_network(ipam["subnet"])
    assert caddy_ip not in ipaddress.ip_network(ipam["ip_range"])   # no other container can be handed it
    gw = doc["services"]["gateway"]["environment"]
    assert gw["TURF_FORWARDED_ALLOW_IPS"] == str(caddy_ip)
    assert gw["TURF_ALLOWED_HOSTS"].startswith("${TURF_DOMAIN")
    caddyfile = (DEPLOY / "caddy" / "Caddyfile").read_text()
    assert "{$TURF_DOMAIN}" in caddyfile and "dynamic a gateway 8000" in caddyfile and "tls internal" in caddyfile


def test_every_part_is_health_gated_and_stops_promptly() -> None:
    doc = _compose()
    for name, svc in doc["services"].items():
        assert svc.get("init") is True, name
        # one-shots (the services' PostgreSQL roles; the bus's stream and consumers), retried until they
        # succeed
        if name in ("db-setup", "bus-setup"):
            assert svc.get("restart") == "on-failure"
            continue
        if name in ("tools", "restore"):   # the organizer's commands, run on demand (`run --rm tools turfwar …`)
            assert svc["profiles"] == ["tools"] and svc["restart"] == "no" and not svc.get("ports")
            continue
        assert svc.get("restart") == "unless-stopped", name
        if name != "caddy":
            assert svc.get("healthcheck"), name
        for dep, cond in (svc.get("depends_on") or {}).items():
            want = "service_completed_successfully" if dep in ("db-setup", "bus-setup") else "service_healthy"
            assert cond == {"condition": want}, (name, dep)
    replicas = {n: doc["services"][n]["deploy"]["replicas"] for n in SERVICES}
    assert replicas == {n: 1 if n == "clock" else 2 for n in SERVICES}
    assert all(doc["services"][n]["environment"]["TURF_STREAM_REPLICAS"] == "3" for n in SERVICES)
    assert set(doc["services"]["geo-verify"]["depends_on"]) == {"nats-1", "nats-2", "nats-3", "postgres", "redis",
                                                                "db-setup", "bus-setup"}


def test_the_ci_override_changes_only_image_sources_and_the_rehearsal_settings() -> None:
    r = run(str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(DEPLOY / "compose.ci.yaml"))
    assert r.returncode == 0, r.stdout + r.stderr
    ci = yaml.safe_load((DEPLOY / "compose.ci.yaml").read_text())["services"]
    base = _compose()["services"]
    assert set(ci) - set(base) == {"mailsink"}   # CI's own mail relay (R30), which TURF_SMTP_URL names
    mailsink = ci.pop("mailsink")
    assert (DEPLOY / mailsink["build"] / "Dockerfile").exists() and not mailsink.get("ports")
    # notify trusts the run's relay certificate, mounted read-only; nothing else changes but images and the clock
    assert ci["notify"].pop("volumes") == [
        "${TURF_CI_MAILSINK_DIR:?set by compose-e2e.sh}/certs/mailsink.pem:/ci-mail/mailsink.pem:ro"]
    assert ci["notify"]["environment"]["SSL_CERT_FILE"] == "/ci-mail/mailsink.pem"
    for name, svc in ci.items():
        assert set(svc) <= {"image", "build", "environment"}, name
        if "build" in svc:
            assert (DEPLOY / svc["build"] / "Dockerfile").exists(), name
    assert {n for n, s in ci.items() if "image" in s} == {"nats-1", "nats-2", "nats-3", "postgres", "db-setup",
                                                          "redis", "caddy"}
    assert all(ci[n]["environment"]["TURF_CLOCK"] == "manual" for n in SERVICES)
    assert ci["caddy"]["environment"] == {"TURF_TLS": "internal"}


def test_the_image_is_built_from_wheels_alone_and_runs_as_nobody_in_particular() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "--no-index" in dockerfile and "FROM local/debian:bookworm" in dockerfile
    assert [ln for ln in dockerfile.splitlines() if ln.startswith("USER ")][-1] != "USER root"
    ignored = (DEPLOY.parent / ".dockerignore").read_text().splitlines()
    assert ignored[ignored.index("*") + 1:ignored.index("*") + 2] == ["!deploy/wheels"]   # nothing else gets in
    assert {".venv", ".git", ".turfwar", "deploy/.env"} <= set(ignored)


def test_the_nats_cluster_does_not_advertise_urls_without_credentials() -> None:
    """A client that fails over to an advertised peer URL (no user, no password) is refused, and FastStream then
    gives up the connection for good (found by deploy/ci/drive.py killing a node): clients know only their URLs."""
    conf = (DEPLOY / "nats" / "nats.conf").read_text()
    cluster = conf[conf.index("cluster {"):conf.index("}", conf.index("cluster {"))]
    assert "no_advertise: true" in cluster
