"""Logging set-up: every line a process writes is one JSON object on stderr, with its ``service`` and, while a
request or message is handled, its ``trace_id``. structlog's own loggers and the standard library's (alembic,
uvicorn and its access log, nats, sqlalchemy, faststream, ...) share the same processors, so an organizer's
``jq`` or a log collector reads every line the same way."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

#: stdlib loggers too chatty at INFO for a season's logs (one line per connection or statement)
QUIET = {"sqlalchemy.engine": logging.WARNING, "sqlalchemy.pool": logging.WARNING}


def _shared() -> list[Any]:
    return [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso")]


def json_handler() -> logging.Handler:
    """A stderr handler rendering standard-library records as structlog's JSON lines (``event`` is the message,
    ``logger`` the logger's name, exceptions formatted into ``exception``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*_shared(), structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]))
    return handler


def configure(service: str, level: str = "INFO") -> None:
    numeric = getattr(logging, level.upper(), logging.INFO)
    root = logging.getLogger()
    root.handlers[:] = [json_handler()]
    root.setLevel(numeric)
    for name, quiet in QUIET.items():
        logging.getLogger(name).setLevel(max(quiet, numeric))
    # libraries that set up handlers of their own (uvicorn, alembic's fileConfig) write through the root instead
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "alembic", "nats", "faststream"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []
        lg.propagate = True
    structlog.configure(
        processors=[*_shared(), structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )
    structlog.contextvars.bind_contextvars(service=service)
    logging.captureWarnings(True)   # warnings.warn(...) lines through the same handler, not bare text
    sys.excepthook = _log_uncaught


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    """A crash's traceback as one JSON line (``event: uncaught``) rather than bare text on stderr."""
    structlog.get_logger("turf").critical("uncaught", exc_info=(kind, value, tb))
