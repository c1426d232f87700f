"""Placeholder secrets: outside a manual-clock rehearsal a seed or organizer password that is a known
placeholder (the Kubernetes example's ``CHANGE-ME``) or holds fewer than 128 bits is refused at start, by the
gateway, the cards service and ``turfwar up`` alike (``sha256(seed)`` is published: a guessable seed is found from
it offline). What ``turfwar deploy-env`` and ``turfwar up`` make always passes."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
import yaml

from turf_cards import bootstrap as cards_bootstrap
from turf_common.secrets_policy import MIN_BITS, estimated_bits, weakness
from turf_common.settings import Settings, organizer_password_refusal, seed_refusal
from turf_gateway.main import create_app
from turfwar.deployenv import env_text

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "examples" / "secrets.example.yaml"
STRONG = "Vq7dX2kLm9RtW4zB-8nHc3PfJ6sYg1Ee"
WEAK = ["CHANGE-ME", "change_me_please_to_something_long_and_random", "fall-2026-league", "Turfwar2026!",
        "correct horse", "abcdefgh" * 8, "0123456789abcdef", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "our league's secret seed, 2026 edition", "my-example-seed-Vq7dX2kLm9RtW4zB8nHc3PfJ6sYg1Ee"]


def test_the_kubernetes_examples_placeholders_are_refused_with_a_real_clock() -> None:
    example = next(yaml.safe_load_all(EXAMPLE.read_text()))["stringData"]
    seed_why = seed_refusal(example["TURF_SEED"], "real")
    assert seed_why and "TURF_SEED" in seed_why and "placeholder 'changeme'" in seed_why
    pw_why = organizer_password_refusal(example["TURF_ORGANIZER_PASSWORD"], "real", "0.0.0.0")
    assert pw_why and "TURF_ORGANIZER_PASSWORD" in pw_why


@pytest.mark.parametrize("value", WEAK)
@pytest.mark.parametrize("clock", ["real", "accelerated:60"])
def test_weak_or_placeholder_secrets_are_refused_outside_a_rehearsal(value: str, clock: str) -> None:
    assert weakness(value, "X") is not None
    assert seed_refusal(value, clock) is not None
    assert organizer_password_refusal(value, clock, "0.0.0.0") is not None


@pytest.mark.parametrize("value", WEAK[:3])
def test_a_manual_clock_rehearsal_may_keep_them(value: str) -> None:
    assert seed_refusal(value, "manual") is None
    assert organizer_password_refusal(value, "manual", "127.0.0.1") is None


def test_what_deploy_env_and_turfwar_up_make_always_passes() -> None:
    env = dict(line.split("=", 1) for line in env_text("o@example.org").splitlines() if "=" in line)
    assert seed_refusal(env["TURF_SEED"], "real") is None
    assert organizer_password_refusal(env["TURF_ORGANIZER_PASSWORD"], "real", "0.0.0.0") is None
    for _ in range(300):   # turfwar up's own (turfwar.stack): token_hex(32) seeds, token_urlsafe(18) passwords
        assert weakness(secrets.token_hex(32), "TURF_SEED") is None
        assert weakness(secrets.token_urlsafe(18), "TURF_ORGANIZER_PASSWORD") is None


def test_the_estimate_follows_length_and_alphabet() -> None:
    assert estimated_bits("Vq7dX2kLm9RtW4z-") == pytest.approx(16 * 6.570, abs=0.01)   # 95 printable ASCII
    assert estimated_bits("Vq7dX2kLm9RtWzBa") == pytest.approx(16 * 5.954, abs=0.01)   # punctuation: 62
    assert estimated_bits("vq7dx2klm9rtwzba" * 2) == estimated_bits("vq7dx2klm9rtwzba")   # a repeat adds nothing
    assert estimated_bits(STRONG) >= MIN_BITS and estimated_bits(STRONG[:16]) < MIN_BITS


async def test_the_gateway_refuses_the_examples_placeholders_at_start() -> None:
    app = create_app(Settings(clock="real", seed=STRONG, organizer_password="CHANGE-ME"))
    with pytest.raises(RuntimeError, match="TURF_ORGANIZER_PASSWORD contains the placeholder 'changeme'"):
        async with app.router.lifespan_context(app):
            pass
    app = create_app(Settings(clock="real", seed="CHANGE-ME", organizer_password=STRONG))
    with pytest.raises(RuntimeError, match="TURF_SEED contains the placeholder"):
        async with app.router.lifespan_context(app):
            pass


async def test_the_cards_service_refuses_a_weak_seed_at_start() -> None:
    build = cards_bootstrap.wire(Settings(clock="real", seed="fall-2026-league",
                                          database_url="postgresql://nowhere:1/x"))
    with pytest.raises(RuntimeError, match=r"TURF_SEED holds about \d+ bits, fewer than 128"):
        await build(None)  # type: ignore[arg-type]
