"""The wire, checked on the AsyncAPI document generated from the services' real subscribers and publishers: every
subject constant is served or published by some process, every event model names its subject in its ``type``, and
docs/asyncapi.yaml is current (CI also runs ``turfwar docs asyncapi --check``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from turf_common.contracts import subjects
from turfwar.asyncapi import document, document_yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"
#: constants of subjects.py that name no message of their own
# GATEWAY_SESSIONS_REVOKED: between gateways only (core NATS), not a service channel of the AsyncAPI document
NOT_SUBJECTS = {"SERVICES", "CLOCK_GET", "CLOCK_CHANGED", "GATEWAY_SESSIONS_REVOKED"}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return document()


def _payload(doc: dict[str, Any], message_ref: str) -> dict[str, Any]:
    message = doc["components"]["messages"][message_ref.rsplit("/", 1)[-1]]
    schema: dict[str, Any] = doc["components"]["schemas"][message["payload"]["$ref"].rsplit("/", 1)[-1]]
    return schema


def test_every_subject_constant_is_served_or_published_by_the_code(doc: dict[str, Any]) -> None:
    constants = {name: v for name, v in vars(subjects).items()
                 if name.isupper() and isinstance(v, str) and name not in NOT_SUBJECTS}
    addresses = {c["address"] for c in doc["channels"].values()}
    assert {name: v for name, v in constants.items() if v not in addresses} == {}


def test_every_published_event_carries_an_id_a_version_and_its_subject_as_type(doc: dict[str, Any]) -> None:
    published = {k: c for k, c in doc["channels"].items() if "Message" in c.get("messages", {})}
    assert len(published) >= 25
    for name, channel in published.items():
        schema = _payload(doc, channel["messages"]["Message"]["$ref"])
        props = schema["properties"]
        assert {"event_id", "occurred_at", "schema_version", "type"} <= set(props), name
        allowed = [props["type"]["const"]] if "const" in props["type"] else props["type"]["enum"]
        assert channel["address"] in allowed, (name, allowed)


def test_every_command_documents_its_reply_and_its_refusal(doc: dict[str, Any]) -> None:
    commands = [k for k, op in doc["operations"].items()
                if op["action"] == "receive" and "." in k and ":" not in k and not k.startswith("gateway")
                and not k.startswith("spectator")]
    assert "claims.submit" in commands and "clock.set" in commands
    for name in commands:
        reply = doc["operations"][name].get("reply")
        assert reply is not None, name
        if not name.startswith("svc."):
            assert any(m["$ref"].endswith(":Refusal") for m in reply["messages"]), name


def test_the_spectator_websocket_is_documented(doc: dict[str, Any]) -> None:
    feed = doc["channels"]["spectator feed"]
    assert feed["address"] == "/api/v1/ws/scores"
    assert {"ws.snapshot", "ws.territory.changed", "ws.score.updated"} <= set(feed["messages"])


def test_asyncapi_document_is_current() -> None:
    assert yaml.safe_load(DOC.read_text()) == yaml.safe_load(document_yaml()), \
        "run `turfwar docs asyncapi` and commit docs/asyncapi.yaml"


def test_every_event_model_names_its_subject_in_its_type(doc: dict[str, Any]) -> None:
    """Typed wire: an ordered consumer of several subjects dispatches on ``type``."""
    from typing import get_args

    from turf_common.contracts import claims, clock, players, scoring

    for model, subject in ((claims.TerritoryChanged, subjects.TERRITORY_CHANGED),
                           (clock.DayStarted, subjects.CLOCK_DAY_STARTED),
                           (players.PlayerDisqualified, subjects.PLAYER_DISQUALIFIED),
                           (scoring.ScoreUpdated, subjects.SCORE_UPDATED)):
        assert get_args(model.model_fields["type"].annotation) == (subject,)


def test_refusal_codes_are_the_rule_codes_with_sentences() -> None:
    """R29: every rule code has the sentence players read, and the RuleCode type lists exactly those codes."""
    from turf_common.rules.refusals import MESSAGES, RULE_CODES

    assert set(RULE_CODES) == set(MESSAGES)
    assert all(MESSAGES[c].endswith(".") for c in RULE_CODES)
