"""``/docs`` shows a typed answer for every route — no 2xx answer is declared as a bare object."""

from __future__ import annotations

from typing import Any

from turf_common.settings import Settings
from turf_gateway.main import create_app


def _untyped(spec: dict[str, Any]) -> list[str]:
    schemas = spec["components"]["schemas"]
    bad = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for code, answer in op["responses"].items():
                if not code.startswith("2") or code == "204":
                    continue
                # JSON answers (a CSV export is a file: its media type is its declaration)
                content = {t: c for t, c in answer.get("content", {}).items() if "json" in t}
                if answer.get("content") and not content:
                    continue
                refs = [c.get("schema", {}).get("$ref", "") for c in content.values()]
                named = [schemas.get(r.rsplit("/", 1)[-1], {}) for r in refs if r]
                if not named or not all(s.get("properties") for s in named):
                    bad.append(f"{method.upper()} {path} {code}")
    return bad


def test_every_success_answer_has_a_named_model_with_fields() -> None:
    spec = create_app(Settings()).openapi()
    assert _untyped(spec) == []


def test_the_board_is_declared_as_geojson_with_its_feature_properties() -> None:
    spec = create_app(Settings()).openapi()
    ok = spec["paths"]["/api/v1/board"]["get"]["responses"]["200"]["content"]
    assert list(ok) == ["application/geo+json"]
    props = spec["components"]["schemas"]["TerritoryProperties"]["properties"]
    # API.md: each feature's properties
    assert set(props) == {"id", "name", "kind", "county", "state", "owner_id", "progress", "fortified",
                          "borders_water", "land_area_m2", "population", "label_point"}


def test_only_routes_that_answer_no_json_go_without_a_response_model() -> None:
    """Every JSON route has a typed response model, those outside the OpenAPI document included
    (``/health``, ``/ready``, ``/pages/config.json``: the test above cannot see them). The only routes without one
    answer HTML, a script, Prometheus text, GeoJSON (declared by its ``responses``), CSV, a PNG, or no body (204)."""
    from fastapi.routing import APIRoute

    def untyped(routes: list[Any]) -> set[str]:
        out = set()
        for r in routes:
            if isinstance(r, APIRoute) and r.response_model is None:
                out.add(r.endpoint.__name__)
            elif hasattr(r, "original_router"):   # an included router (FastAPI 0.165 keeps it whole)
                out |= untyped(r.original_router.routes)
        return out

    assert untyped(create_app(Settings()).routes) == {
        "page", "index", "swagger_ui",   # HTML
        "service_worker", "prometheus", "board", "export",   # a script, metrics, GeoJSON, CSV
        "player_recap_png", "player_stats_png",   # PNGs
        "mark_read", "save_push", "drop_push", "sign_out", "complete_reset", "change_password", "withdraw",
        "check_password", "check_reset"}   # 204
