"""The suite's fuzz plan (tests/support/fuzzplan.py): a route whose contract changed since the last landing is
always fuzzed, also when only a schema it refers to changed; the others take turns, each once in seven days."""

from __future__ import annotations

import copy
import re
from datetime import date, timedelta
from typing import Any

from tests.support.fuzzplan import ROTATION, fingerprints, name_regex, plan


def doc(n: int) -> dict[str, Any]:
    paths = {f"/r{i}": {"get": {"responses": {"200": {"$ref": "#/components/responses/Ok"}}}} for i in range(n)}
    paths["/body"] = {"post": {"requestBody": {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Body"}}}}}}
    return {"paths": paths, "components": {"responses": {"Ok": {"description": "ok"}},
                                           "schemas": {"Body": {"type": "object", "properties": {"a": {}}}}}}


def test_an_unchanged_document_fuzzes_each_route_exactly_once_in_a_week() -> None:
    d = doc(20)
    base = fingerprints(d)
    seen: list[str] = []
    for k in range(ROTATION):
        changed, sample = plan(d, base, date(2026, 12, 7) + timedelta(days=k))
        assert changed == []
        seen += sample
    assert sorted(seen) == sorted(base)


def test_a_route_is_changed_when_a_schema_it_refers_to_changes_and_a_new_route_always_is() -> None:
    d = doc(3)
    base = fingerprints(d)
    later = copy.deepcopy(d)
    later["components"]["schemas"]["Body"]["properties"]["b"] = {"type": "integer"}
    later["paths"]["/new"] = {"delete": {}}
    changed, sample = plan(later, base, date(2026, 12, 7))
    assert changed == ["DELETE /new", "POST /body"]
    assert not set(changed) & set(sample)


def test_the_name_regex_matches_exactly_the_routes_named() -> None:
    rx = re.compile(name_regex(["GET /seasons/{season_id}", "POST /claims"]))
    assert rx.match("GET /seasons/{season_id}") and rx.match("POST /claims")
    assert not rx.match("POST /claims/check") and not rx.match("GET /seasons")
