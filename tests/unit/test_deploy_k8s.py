"""Kubernetes: what `kubectl apply -k deploy/k8s` would apply, built by kustomize (kubectl's) and checked
against the Kubernetes API schemas (strict, offline), then read for what an organizer relies on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
BIN = Path(sys.executable).parent
SERVICES = {"geo-verify", "claims", "cards", "scoring", "clock", "notify", "modes", "gateway"}
KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (its kustomize) is not installed on this machine")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    r = subprocess.run([str(KUBECTL), "kustomize", str(K8S)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = tmp_path_factory.mktemp("kustomize") / "built.yaml"
    out.write_text(r.stdout)
    v = subprocess.run([str(BIN / "kubernetes-validate"), "--strict", "--quiet", str(out)], capture_output=True,
                       text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    return [d for d in yaml.safe_load_all(r.stdout) if d]


def test_the_namespace_comes_first_and_no_secret_is_applied(built: list[dict[str, Any]]) -> None:
    assert (built[0]["kind"], built[0]["metadata"]["name"]) == ("Namespace", "turfwar")
    assert not [d for d in built if d["kind"] == "Secret"]
    assert {d["metadata"].get("namespace") for d in built[1:]} == {"turfwar"}


def test_every_deployment_runs_the_overridden_image_with_probes(built: list[dict[str, Any]]) -> None:
    deployments = {d["metadata"]["name"]: d for d in built if d["kind"] == "Deployment"}
    assert set(deployments) == SERVICES
    for name, d in deployments.items():
        (c,) = d["spec"]["template"]["spec"]["containers"]
        assert c["image"] == "registry.example.org/turfwar:0.1.0", name
        assert {"readinessProbe", "livenessProbe"} <= set(c), name
    gateway = deployments["gateway"]["spec"]["template"]["spec"]["containers"][0]
    assert gateway["readinessProbe"]["httpGet"]["path"] == "/ready"   # NATS, PostgreSQL and Redis reachable
    for name in SERVICES - {"gateway"}:
        meta = deployments[name]["spec"]["template"]["metadata"]
        assert meta["annotations"]["prometheus.io/scrape"] == "true", name


def test_https_through_an_ingress_with_a_cert_manager_certificate(built: list[dict[str, Any]]) -> None:
    (ing,) = [d for d in built if d["kind"] == "Ingress"]
    assert ing["metadata"]["annotations"]["cert-manager.io/cluster-issuer"]
    hosts = {h for t in ing["spec"]["tls"] for h in t["hosts"]}
    assert hosts == {r["host"] for r in ing["spec"]["rules"]}
    config = next(d for d in built if d["kind"] == "ConfigMap")
    assert set(config["data"]["TURF_ALLOWED_HOSTS"].split(",")) == hosts   # the gateway answers that name only
    backend = ing["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "gateway"


def test_the_nats_chart_is_pinned() -> None:
    text = (K8S.parent / "nats" / "values.yaml").read_text()
    assert "--version 1.2.8" in text and "chart-version: 1.2.8" in text
