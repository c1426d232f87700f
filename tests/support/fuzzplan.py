"""Which routes the suite fuzzes (tests/integration/test_fuzz_api.py): every operation whose contract changed since
the last landing, plus a seventh of the others chosen by the date, so every route is fuzzed within a week of
landings; ``TURF_FUZZ=all`` fuzzes every route.

An operation's fingerprint is the SHA-256 of its OpenAPI object with every ``$ref`` it reaches resolved, so a change
to a body's or an answer's schema marks the route changed too. ``fuzz_baseline.json`` holds the fingerprints of the
last landing: ``.venv/bin/python -m tests.support.fuzzplan --record`` writes them (run it when landing)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from datetime import date
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).resolve().parents[1] / "integration" / "fuzz_baseline.json"
METHODS = ("get", "put", "post", "delete", "patch")
ROTATION = 7   # days: each route is in the sample one day in seven


def _resolve(node: Any, doc: dict[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            if ref in seen:   # a recursive schema: its name stands for it
                return {"$ref": ref}
            target: Any = doc
            for part in ref[2:].split("/"):
                target = target[part]
            return _resolve(target, doc, seen | {ref})
        return {k: _resolve(v, doc, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, doc, seen) for v in node]
    return node


def fingerprints(doc: dict[str, Any]) -> dict[str, str]:
    """``{"POST /api/v1/claims": sha256, …}``: every operation of the document."""
    out = {}
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                body = json.dumps(_resolve(item[method], doc), sort_keys=True, separators=(",", ":"))
                out[f"{method.upper()} {path}"] = hashlib.sha256(body.encode()).hexdigest()
    return out


def plan(doc: dict[str, Any], baseline: dict[str, str], day: date) -> tuple[list[str], list[str]]:
    """The operations to fuzz on ``day``: (changed since ``baseline`` or new, the day's share of the others), each
    sorted by name."""
    now = fingerprints(doc)
    changed = sorted(name for name, fp in now.items() if baseline.get(name) != fp)
    rest = sorted(set(now) - set(changed))
    sample = [name for i, name in enumerate(rest) if i % ROTATION == day.toordinal() % ROTATION]
    return changed, sample


def name_regex(names: list[str]) -> str:
    """schemathesis' ``--include-name-regex`` matching exactly ``names`` ("METHOD /path")."""
    return "^(" + "|".join(re.escape(n) for n in names) + ")$"


def load_baseline() -> dict[str, str]:
    return json.loads(BASELINE.read_text()) if BASELINE.exists() else {}


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"]:
        sys.exit("usage: python -m tests.support.fuzzplan --record [openapi.json]")
    if len(sys.argv) > 2:
        document = json.loads(Path(sys.argv[2]).read_text())
    else:
        from turfwar.openapi import document as openapi_document  # the app's document, no stack needed

        document = openapi_document()
    BASELINE.write_text(json.dumps(fingerprints(document), indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(fingerprints(document))} operations in {BASELINE}")
