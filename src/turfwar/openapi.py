"""The gateway's OpenAPI document, made from the app itself (``create_app().openapi()``): no stack, no server. The
docs site renders it (``turfwar.docsite``), and ``turfwar docs openapi`` writes it, so two versions of the HTTP
contract can be compared byte for byte."""

from __future__ import annotations

import json


def document() -> dict[str, object]:
    """The OpenAPI 3 document ``GET /openapi.json`` serves, as a dict (the app is built, never started)."""
    from turf_common.settings import Settings
    from turf_gateway.main import create_app

    return create_app(Settings()).openapi()


def document_json() -> str:
    """The document as JSON text: keys in the app's order, two-space indent, a final newline (a stable diff)."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"
