"""Every NATS subject has one pydantic model (contract test), and docs/asyncapi.yaml, generated from them by
FastStream, is current."""

from __future__ import annotations

from pathlib import Path

import yaml

from turf_common.contracts import subjects
from turfwar.asyncapi import COMMANDS, EVENTS, NOT_SUBJECTS, document_yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"


def test_every_subject_constant_has_a_model() -> None:
    constants = {name: v for name, v in vars(subjects).items() if name.isupper() and isinstance(v, str)}
    missing = {name: v for name, v in constants.items()
               if name not in NOT_SUBJECTS and v not in COMMANDS and v not in EVENTS}
    assert missing == {}
    assert not set(COMMANDS) & set(EVENTS)


def test_events_carry_an_id_and_a_version() -> None:
    for subject, (_, model) in EVENTS.items():
        fields = model.model_fields
        assert {"event_id", "occurred_at", "schema_version"} <= set(fields), subject


def test_asyncapi_document_is_current() -> None:
    generated = yaml.safe_load(document_yaml())
    assert yaml.safe_load(DOC.read_text()) == generated, "run `turfwar docs asyncapi` and commit docs/asyncapi.yaml"
    channels = {c["address"] for c in generated["channels"].values()}
    assert set(COMMANDS) | set(EVENTS) <= channels


def test_every_event_model_names_its_subject_in_its_type() -> None:
    """Typed wire: an ordered consumer of several subjects dispatches on ``type``, so each event model's ``type``
    literal must be exactly the subject(s) it is published on."""
    from typing import get_args

    for subject, (_, model) in EVENTS.items():
        allowed = get_args(model.model_fields["type"].annotation)
        assert subject in allowed, (subject, model.__name__, allowed)


def test_refusal_codes_are_the_rule_codes_with_sentences() -> None:
    """R29: every rule code has the sentence players read, and the RuleCode type lists exactly those codes."""
    from turf_common.rules.refusals import MESSAGES, RULE_CODES

    assert set(RULE_CODES) == set(MESSAGES)
    assert all(MESSAGES[c].endswith(".") for c in RULE_CODES)
