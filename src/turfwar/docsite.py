"""MkDocs hook of the docs site (``mkdocs.yml``'s ``hooks``): puts the gateway's OpenAPI document into the site as
``api/openapi.json`` at every build, generated from the app (``turfwar.openapi``), so the API page can never show a
stale contract and no generated file is committed. ``api/http.md`` renders it with Swagger UI."""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

OPENAPI_URI = "api/openapi.json"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated ``api/openapi.json`` to the site's files (before the pages that link it are checked)."""
    from turfwar.openapi import document_json

    files.append(File.generated(config, OPENAPI_URI, content=document_json()))
    return files
