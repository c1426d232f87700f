"""Nobody gets in, round two: the deployment's part, read statically from deploy/:
the Kubernetes NATS authenticates every client as its own user (the compose table, one Secret each), NetworkPolicies
deny by default, the gateway trusts only the ingress controller's X-Forwarded-For; compose hands each container only
its own secrets and a PostgreSQL role of its own; the image installs only what uv.lock pins, by hash; every pod and
container runs without privileges on a read-only root."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import yaml

from turfwar import deployenv, natsauth

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S = DEPLOY / "k8s"
SERVICES = ["geo-verify", "claims", "cards", "scoring", "clock", "notify", "gateway"]
#: what each service reads (turf_common.settings): its secrets and nothing else
NEEDS = {"geo-verify": {"redis"}, "claims": {"db"}, "cards": {"db", "seed"}, "scoring": {"redis"}, "clock": {"db"},
         "notify": {"db", "email"}, "gateway": {"db", "redis", "seed", "email", "password"}}
VAR = {"db": "TURF_DATABASE_URL", "redis": "TURF_REDIS_URL", "seed": "TURF_SEED", "email": "TURF_ORGANIZER_EMAIL",
       "password": "TURF_ORGANIZER_PASSWORD"}


def _config_env() -> dict[str, str]:
    """turfwar-config's settings (kustomization.yaml's configMapGenerator reads config.env)."""
    lines = (K8S / "config.env").read_text().splitlines()
    return dict(ln.split("=", 1) for ln in lines if ln and not ln.startswith("#"))


def _k8s(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((K8S / name).read_text()) if d]


def _deployment(name: str) -> dict[str, Any]:
    (d,) = _k8s(f"{name}.yaml")
    return d


# ---- 1. Kubernetes: NATS users, NetworkPolicies, the ingress controller's range ---------------------------------
def test_the_kubernetes_nats_has_the_compose_users_each_password_from_its_own_secret() -> None:
    values = yaml.safe_load((DEPLOY / "nats" / "values.yaml").read_text())
    gen = natsauth.helm_values()
    assert values["config"]["merge"] == gen["config"]["merge"]   # `turfwar.natsauth.helm_values()`: regenerate
    users = values["config"]["merge"]["authorization"]["users"]
    assert [u["user"] for u in users] == [natsauth.ADMIN, *natsauth.PERMISSIONS]
    # the same permissions as compose's auth.conf (one table: turfwar/natsauth.py)
    assert [u["permissions"] for u in users] == [u["permissions"] for u in natsauth.users(lambda u: "")]
    env = values["container"]["env"]
    for u in users:
        var = natsauth.password_variable(u["user"])
        assert u["password"] == f"<< ${var} >>"
        assert env[var]["valueFrom"]["secretKeyRef"] == {"name": natsauth.secret_name(u["user"]), "key": "password"}
    assert values["natsBox"]["enabled"] is False


def test_each_kubernetes_service_connects_as_its_own_nats_user_with_its_own_secret() -> None:
    config = _config_env()
    assert "TURF_NATS_URL" not in config   # no shared, credential-less URL
    for name in SERVICES:
        (c,) = _deployment(name)["spec"]["template"]["spec"]["containers"]
        env = {e["name"]: e for e in c["env"]}
        assert env["TURF_NATS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": f"turfwar-nats-{name}",
                                                                         "key": "password"}
        assert env["TURF_NATS_URL"]["value"].startswith(f"nats://{name}:$(TURF_NATS_PASSWORD)@")
        names = [e["name"] for e in c["env"]]
        assert names.index("TURF_NATS_PASSWORD") < names.index("TURF_NATS_URL")   # $(VAR): defined above
    example = [d["metadata"]["name"] for d in _k8s("examples/secrets.example.yaml")]
    assert {natsauth.secret_name(u) for u in [natsauth.ADMIN, *natsauth.PERMISSIONS]} <= set(example)


def _policies() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in _k8s("networkpolicy.yaml")}


def _selects(policy: dict[str, Any], labels: dict[str, str]) -> bool:
    sel = policy["spec"]["podSelector"]
    if any(labels.get(k) != v for k, v in (sel.get("matchLabels") or {}).items()):
        return False
    return all((labels.get(e["key"]) in e["values"]) is (e["operator"] == "In")
               for e in sel.get("matchExpressions") or [])


def test_network_policies_deny_by_default_and_open_only_what_each_pod_needs() -> None:
    pol = _policies()
    assert "networkpolicy.yaml" in yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    deny = pol["default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny and "egress" not in deny
    for name in SERVICES:
        labels = {"app.kubernetes.io/name": "turfwar", "app.kubernetes.io/component": name}
        out = {(p["port"], n) for n, d in pol.items() if _selects(d, labels)
               for rule in d["spec"].get("egress", []) for p in rule["ports"]}
        ports = {p for p, _ in out}
        assert 4222 in ports and 53 in ports, name
        assert (5432 in ports) is ("db" in NEEDS[name]), name
        assert (6379 in ports) is ("redis" in NEEDS[name]), name
        assert (443 in ports) is (name in ("gateway", "notify")), name
        inbound = {p["port"] for n, d in pol.items() if _selects(d, labels)
                   for rule in d["spec"].get("ingress", []) for p in rule["ports"]}
        assert inbound == ({8000} if name == "gateway" else {9100}), name
    (rule,) = pol["gateway-from-ingress"]["spec"]["ingress"]
    (peer,) = rule["from"]
    assert peer["namespaceSelector"] and peer["podSelector"]   # the ingress controller's pods, not a namespace's
    https = pol["https-out"]["spec"]["egress"][0]["to"][0]["ipBlock"]
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} <= set(https["except"])
    nats = pol["nats"]["spec"]
    assert {p["port"] for r in nats["ingress"] for p in r["ports"]} == {4222, 6222}


def test_the_gateway_trusts_forwarded_headers_from_a_narrow_documented_range_only() -> None:
    text = (K8S / "config.env").read_text()
    value = _config_env()["TURF_FORWARDED_ALLOW_IPS"]
    for part in value.split(","):
        net = ipaddress.ip_network(part.strip())
        assert net.prefixlen >= 24, part   # never the cluster's whole pod range (10.0.0.0/8 before)
    assert "SET THIS: the ingress controller's pod addresses" in text


# ---- 2. compose: each container only its own secrets, PostgreSQL roles that are no superuser ---------------------
def _compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_each_compose_service_gets_only_its_own_secrets() -> None:
    svcs = _compose()["services"]
    secret_vars = set(VAR.values())
    for name in SERVICES:
        env = svcs[name]["environment"]
        assert {k for k in env if k in secret_vars} == {VAR[n] for n in NEEDS[name]}, name
        other_nats = [u for u in natsauth.PERMISSIONS if u != name]
        assert not [u for u in [natsauth.ADMIN, *other_nats] if natsauth.password_variable(u) in str(env)], name
        db = env.get("TURF_DATABASE_URL", "")
        if db:   # its own role, never the superuser's password
            assert db.startswith(f"postgresql://turf_{name}:${{TURF_DB_PASSWORD_{name.upper()}:?"), name
        assert "${TURF_DB_PASSWORD:" not in str(env) and "${TURF_DB_PASSWORD}" not in str(env), name
    backup = svcs["backup"]["environment"]
    assert backup["TURF_DATABASE_URL"].startswith("postgresql://turf_backup:") and "TURF_SEED" not in backup


def test_the_superuser_password_reaches_postgres_and_the_one_shot_set_up_alone() -> None:
    svcs = _compose()["services"]
    holders = {n for n, s in svcs.items() if "TURF_DB_PASSWORD:" in str(s.get("environment"))
               or "TURF_DB_PASSWORD}" in str(s.get("environment"))}
    # and the organizer's restore, run on demand only (its profile), which replaces every service's schema
    assert holders == {"postgres", "db-setup", "restore"} and svcs["restore"]["profiles"] == ["tools"]
    setup = svcs["db-setup"]
    assert setup["restart"] == "on-failure" and setup["entrypoint"] == ["sh", "/setup/roles.sh"]
    for name in SERVICES:
        assert svcs[name]["depends_on"]["db-setup"] == {"condition": "service_completed_successfully"}, name
    roles = (DEPLOY / "postgres" / "roles.sh").read_text()
    assert "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS" in roles
    assert "REVOKE ALL ON DATABASE turfwar FROM PUBLIC" in roles and "GRANT pg_read_all_data TO turf_backup" in roles
    # every role's password is one compose asks deploy/.env for, and `turfwar deploy-env` makes
    asked = set(re.findall(r"\$\{(TURF_DB_PASSWORD_[A-Z]+):\?", (DEPLOY / "compose.yaml").read_text()))
    assert asked == {f"TURF_DB_PASSWORD_{r.upper()}" for r in deployenv.DB_ROLES} <= set(deployenv.SECRETS)
    assert set(re.findall(r"\bfor svc in ([a-z ]+);", roles)[0].split()) == set(deployenv.DB_ROLES)


# ---- 4. supply chain and hardened pods ---------------------------------------------------------------------------
def test_the_image_installs_only_what_uv_lock_pins_by_hash() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    installs = [ln for ln in dockerfile.replace("\\\n", " ").splitlines() if "pip install" in ln]
    assert installs and all("--require-hashes" in ln and "--no-deps" in ln for ln in installs)
    assert "/wheels/*.whl" not in dockerfile and "/wheels/tools/*.whl" not in dockerfile
    script = (DEPLOY / "build-wheels.sh").read_text()
    assert "pip freeze" not in script and "uv pip freeze" not in script
    assert script.count("export --project \"$ROOT\" --frozen --no-dev") == 2
    assert "download --no-deps --require-hashes" in script
    # no CA of the build machine in any image
    assert "update-ca-certificates --fresh" in dockerfile and "rm -rf /var/lib/apt/lists/* /usr/local/share/ca-" \
        "certificates/*" in dockerfile
    base_image = (DEPLOY / "ci" / "base-image.sh").read_text()
    before_the_rule = base_image.split("# the host's certificate authorities stay out")[0]
    assert "ca-certificates" not in before_the_rule
    assert "cp /usr/local/share/ca-certificates" not in (DEPLOY / "ci" / "base-image.sh").read_text()


def test_every_pod_runs_unprivileged_on_a_read_only_root() -> None:
    for name in SERVICES:
        spec = _deployment(name)["spec"]["template"]["spec"]
        assert spec["automountServiceAccountToken"] is False, name
        pod = spec["securityContext"]
        assert pod["runAsNonRoot"] is True and pod["runAsUser"] != 0, name
        assert pod["seccompProfile"] == {"type": "RuntimeDefault"}, name
        (c,) = spec["containers"]
        sc = c["securityContext"]
        assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True, name
        assert sc["capabilities"] == {"drop": ["ALL"]}, name
        assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"], name
        assert {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}} in spec["volumes"], name
    values = yaml.safe_load((DEPLOY / "nats" / "values.yaml").read_text())
    nats_sc = values["container"]["merge"]["securityContext"]
    assert nats_sc["allowPrivilegeEscalation"] is False and nats_sc["capabilities"] == {"drop": ["ALL"]}
    assert values["podTemplate"]["merge"]["spec"]["securityContext"]["runAsNonRoot"] is True
    svcs = _compose()["services"]
    for name in SERVICES:   # compose's containers alike
        s = svcs[name]
        assert s["read_only"] is True and s["tmpfs"] == ["/tmp"] and s["cap_drop"] == ["ALL"], name
        assert "no-new-privileges:true" in s["security_opt"], name
