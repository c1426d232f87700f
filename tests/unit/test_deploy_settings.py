"""One source of truth for settings: every field of ``turf_common.settings.Settings`` reaches the processes of the
compose deployment and of the Kubernetes manifests, or is named (with why) as set by compose itself or as not for
deployments (turfwar.deployenv); ``turfwar deploy-env`` lists every optional one at its default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from turf_common.settings import Settings
from turfwar import deployenv
from turfwar.cli import app

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SERVICES = ["geo-verify", "claims", "cards", "scoring", "clock", "notify", "modes", "gateway"]
FIELDS = {deployenv.env_name(n, f): n for n, f in Settings.model_fields.items()}


def _compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]  # type: ignore[no-any-return]


def _from_env(value: object, name: str) -> bool:
    """The compose value is the organizer's ``deploy/.env`` entry ``name`` (``${NAME}``, ``${NAME:-…}``, …)."""
    return re.fullmatch(r"\$\{" + name + r"(?::?[-?][^}]*)?\}", str(value)) is not None


def test_every_setting_reaches_a_compose_service_or_says_why_not() -> None:
    svcs = _compose()
    told = {k for name in SERVICES for k in svcs[name]["environment"]}
    for var, field in FIELDS.items():
        assert var in told or field in deployenv.NOT_FOR_DEPLOYMENTS, (
            f"{var} reaches no service in deploy/compose.yaml: add it to x-turf-env (or the service that reads it), "
            "or to turfwar.deployenv.NOT_FOR_DEPLOYMENTS with the reason")
    assert not told & {var for var, field in FIELDS.items() if field in deployenv.NOT_FOR_DEPLOYMENTS}


def test_the_exceptions_name_real_fields_each_with_a_one_line_reason() -> None:
    for table in (deployenv.SET_BY_COMPOSE, deployenv.NOT_FOR_DEPLOYMENTS):
        assert set(table) <= set(Settings.model_fields), set(table) - set(Settings.model_fields)
        assert all(why.strip() and "\n" not in why for why in table.values())
    assert not set(deployenv.SET_BY_COMPOSE) & set(deployenv.NOT_FOR_DEPLOYMENTS)
    assert deployenv.NOTIFY_ONLY <= set(Settings.model_fields)


def test_each_optional_setting_comes_from_deploy_env_to_every_service_secrets_to_notify_alone() -> None:
    svcs = _compose()
    optional = deployenv.optional_settings()
    assert "TURF_SMTP_URL" in optional and "TURF_MAIL_FROM" in optional and "TURF_TILES_URL" in optional
    for var in optional:
        field = FIELDS[var]
        has = [name for name in SERVICES if _from_env(svcs[name]["environment"].get(var), var)]
        if field in deployenv.NOTIFY_ONLY:
            assert has == ["notify"], (var, has)
            assert not [n for n in SERVICES if var in svcs[n]["environment"] and n != "notify"], var
        else:
            assert has == SERVICES, (var, sorted(set(SERVICES) - set(has)))


def test_compose_sets_the_rest_itself() -> None:
    svcs = _compose()
    for field in deployenv.SET_BY_COMPOSE:
        var = f"TURF_{field.upper()}"
        assert any(var in svcs[n]["environment"] for n in SERVICES), var


@pytest.mark.parametrize("organizer,domain", [("org@example.org", None), ("org@example.org", "turf.example.org")])
def test_deploy_env_comments_every_optional_setting_at_its_default(tmp_path: Path, organizer: str,
                                                                   domain: str | None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / ".env"
    args = ["deploy-env", "--organizer-email", organizer, "--out", str(out)] + (["--domain", domain] if domain else [])
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    active = dict(ln.split("=", 1) for ln in lines if ln and not ln.startswith("#"))
    commented = dict(ln[2:].split("=", 1) for ln in lines if re.match(r"# TURF_[A-Z_]+=", ln))
    # every password compose needs, the modes service's database role among them
    asked = set(re.findall(r"\$\{(\w+):\?", (DEPLOY / "compose.yaml").read_text()))
    assert asked <= set(active) and "TURF_DB_PASSWORD_MODES" in active and "TURF_NATS_PASSWORD_MODES" in active
    if domain:
        assert active["TURF_DOMAIN"] == domain and active["TURF_PUBLIC_URL"] == f"https://{domain}"
    else:
        assert "TURF_DOMAIN" in commented and "TURF_DOMAIN" not in active
    assert set(deployenv.optional_settings()) <= set(commented) | set(active)
    assert set(deployenv.COMPOSE_VARIABLES) <= set(commented)
    # every commented line, uncommented as it stands, keeps the setting's default (the relay's and the public
    # address's are examples to fill in)
    examples = {"TURF_SMTP_URL", "TURF_PUBLIC_URL", "TURF_DOMAIN"}
    defaults = Settings().model_dump()
    for var, value in commented.items():
        if var not in examples:
            monkeypatch.setenv(var, value)
    assert Settings().model_dump() == defaults
    assert len([v for v in commented if v in FIELDS]) >= 30   # the list is the Settings class's, not a few


def test_an_empty_variable_is_an_unset_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """compose hands ``TURF_X: ${TURF_X:-}`` to every service: what deploy/.env leaves out arrives empty."""
    monkeypatch.setenv("TURF_HTTP_PORT", "")
    monkeypatch.setenv("TURF_SMTP_URL", "")
    monkeypatch.setenv("TURF_MAIL_FROM", "")
    monkeypatch.setenv("TURF_ERASE_AFTER_DAYS", "7")
    s = Settings()
    assert (s.http_port, s.smtp_url, s.mail_from, s.erase_after_days) == (8000, None, "Turf War <turfwar@localhost>", 7)


def test_every_kubernetes_pod_reads_the_one_config_and_it_lists_every_optional_setting() -> None:
    kustomization = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    assert kustomization["configMapGenerator"] == [{"name": "turfwar-config", "envs": ["config.env"]}]
    text = (DEPLOY / "k8s" / "config.env").read_text()
    named = set(re.findall(r"^(?:# )?(TURF_[A-Z_]+)=", text, re.M))
    secret_example = (DEPLOY / "k8s" / "examples" / "secrets.example.yaml").read_text()
    for var in deployenv.optional_settings():
        where = secret_example if FIELDS[var] in deployenv.NOTIFY_ONLY else text
        assert var in named or var in where, var
    for path in (DEPLOY / "k8s").glob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc["kind"] in ("Deployment", "Job"):
                for c in doc["spec"]["template"]["spec"]["containers"]:
                    assert {"configMapRef": {"name": "turfwar-config"}} in c["envFrom"], path.name
