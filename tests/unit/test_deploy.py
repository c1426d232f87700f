"""#10 deploy/: the compose file against the Compose specification, the Kubernetes manifests against the
Kubernetes API schemas (strict, offline), and the NATS Helm values for a 3-node JetStream cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
BIN = Path(sys.executable).parent
SERVICES = {"geo-verify", "claims", "cards", "scoring", "clock", "gateway"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def test_compose_file_follows_the_compose_spec_and_has_every_part() -> None:
    r = run(str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(DEPLOY / "compose.yaml"))
    assert r.returncode == 0, r.stdout + r.stderr
    doc = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert SERVICES | {"nats-1", "nats-2", "nats-3", "postgres", "redis"} <= set(doc["services"])


def test_kubernetes_manifests_validate_strictly() -> None:
    files = sorted(str(p) for p in (DEPLOY / "k8s").glob("*.yaml"))
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
    assert yaml.safe_load((DEPLOY / "k8s" / "config.yaml").read_text())["data"]["TURF_STREAM_REPLICAS"] == "3"


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_service_module_exists(name: str) -> None:
    module = yaml.safe_load((DEPLOY / "k8s" / f"{name}.yaml").read_text())["spec"]["template"]["spec"][
        "containers"][0]["command"][-1]
    assert run(sys.executable, "-c", f"import importlib.util as u; assert u.find_spec('{module}')").returncode == 0
