"""The gateway's request metrics are labelled by route template, whole (routers' prefixes included)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.routing import Mount

from turf_gateway.api.middleware.edge import template


@pytest.mark.parametrize(("path", "route", "want"), [
    ("/api/v1/territories/3401732250", "/territories/{territory_id}", "/api/v1/territories/{territory_id}"),
    ("/api/v1/admin/players/abc/verify", "/admin/players/{player_id}/verify",
     "/api/v1/admin/players/{player_id}/verify"),
    ("/health", "/health", "/health"),
])
def test_the_label_is_the_whole_template(path: str, route: str, want: str) -> None:
    assert template({"path": path, "route": SimpleNamespace(path=route)}) == want


def test_mounted_files_and_unmatched_paths_are_one_series_each() -> None:
    assert template({"path": "/static/js/play.js", "route": Mount("/static", app=lambda *a: None)}) == "/static/*"
    assert template({"path": "/no/such/page/123"}) == "unmatched"
