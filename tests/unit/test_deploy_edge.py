"""The proxies in front of the gateway hold the same edge: Caddy (compose) compresses public reads only and times
out slow headers; the Kubernetes ingress caps a client's connections and bodies. Threats: Caddy compressed every
answer (BREACH on ``/me`` and ``/admin``), and neither proxy bounded a slowloris."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_caddy_compresses_public_reads_only_and_times_out_slow_headers() -> None:
    caddyfile = (DEPLOY / "caddy" / "Caddyfile").read_text()
    encodes = [line.split() for line in caddyfile.splitlines() if line.strip().startswith("encode")]
    assert encodes == [["encode", "@public", "zstd", "gzip"]]   # never unmatched
    public = re.search(r"@public \{(.*?)\n\t\}", caddyfile, re.S)
    assert public is not None
    rules = public.group(1)
    assert "method GET HEAD" in rules and "not header Authorization *" in rules
    for private in ("/api/v1/me", "/api/v1/admin/*", "/api/v1/sessions"):
        assert private in rules.split("not path", 1)[1]
    assert re.search(r"timeouts \{\s*read_header 10s\s*idle 2m\s*\}", caddyfile)
    assert "header -Server" in caddyfile


def test_the_ingress_caps_a_clients_connections_and_bodies() -> None:
    ingress = yaml.safe_load((DEPLOY / "k8s" / "ingress.yaml").read_text())
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/limit-connections"] == "200"
    assert notes["nginx.ingress.kubernetes.io/proxy-body-size"] == "64k"
    assert not any("gzip" in k for k in notes)   # ingress-nginx's default: no compression
