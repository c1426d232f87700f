"""The response of the busiest writes (``POST /claims``, ``POST /trades``): a pydantic model's JSON, written once
by pydantic from the service's decoded reply. FastAPI's own path for a returned model validates it again against
the route's ``response_model`` and serializes it in an operation span: about a twentieth of the gateway's CPU for a
claim (measured in process), for a body the contract already typed. The route still declares its
``response_model`` (the OpenAPI document shows it), and the fields written are that model's."""

from __future__ import annotations

from pydantic import BaseModel
from starlette.responses import Response


class ModelResponse(Response):
    media_type = "application/json"

    def __init__(self, model: BaseModel, fields: type[BaseModel], status_code: int = 200) -> None:
        """``model``'s fields named by the response model ``fields``, as JSON, with ``status_code``."""
        super().__init__(model.model_dump_json(include=_names(fields)), status_code)


_NAMES: dict[type[BaseModel], set[str]] = {}


def _names(fields: type[BaseModel]) -> set[str]:
    names = _NAMES.get(fields)
    if names is None:
        names = _NAMES[fields] = set(fields.model_fields)
    return names
