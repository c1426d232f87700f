"""No HTTP request pays a thread hop. FastAPI runs a plain ``def`` endpoint or dependency in its thread
pool (a worker thread and a GIL handoff per call, on the claim's path), so every one of them is ``async``."""

from __future__ import annotations

import inspect
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIWebSocketRoute

from turf_common.settings import Settings
from turf_gateway.main import create_app


def _runs_in_a_thread(call: Any) -> bool:
    if inspect.isclass(call):
        return False   # a model or parameter class: built, not called in the pool
    target = call if inspect.isroutine(call) else getattr(call, "__call__", call)  # noqa: B004
    return not inspect.iscoroutinefunction(target)


def _sync_calls(dep: Dependant, where: str) -> list[str]:
    out = [f"{where}: {getattr(dep.call, '__qualname__', dep.call)}"] if dep.call and _runs_in_a_thread(dep.call) \
        else []
    for sub in dep.dependencies:
        out += _sync_calls(sub, where)
    return out


def _routes(routes: list[Any]) -> list[APIRoute | APIWebSocketRoute]:
    """Every API route, those of included routers too (FastAPI keeps an included router whole)."""
    out: list[APIRoute | APIWebSocketRoute] = []
    for r in routes:
        if isinstance(r, APIRoute | APIWebSocketRoute):
            out.append(r)
        elif hasattr(r, "original_router"):
            out += _routes(r.original_router.routes)
    return out


def test_every_endpoint_and_dependency_is_async() -> None:
    app = create_app(Settings())
    found: list[str] = []
    routes = _routes(app.routes)
    for r in routes:
        found += _sync_calls(r.dependant, r.path)
    assert len(routes) > 40   # the whole API was walked
    assert found == []
