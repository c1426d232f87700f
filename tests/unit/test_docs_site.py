"""The docs site (mkdocs.yml, docs/): it builds with ``--strict`` (a broken link, a missing page or a missing document
fails), its API page carries the OpenAPI document made from the gateway itself, and the README stays a front door."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).parent / "mkdocs"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(MKDOCS), "build", "--strict", "--quiet", "--site-dir", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def test_the_site_builds_strict_with_every_section(site: Path) -> None:
    for page in ("players/index.html", "players/pages.html", "organizer/index.html", "organizer/settings.html",
                 "organizer/clock.html", "organizer/rehearsal.html", "organizer/deployment.html",
                 "organizer/backups.html", "organizer/mail.html", "organizer/game-day.html", "api/http.html",
                 "api/asyncapi.html", "api/modes.html", "architecture/index.html", "architecture/claim-path.html",
                 "architecture/bus.html", "architecture/vocabulary.html", "benchmarks/results.html",
                 "players/rulings.html", "players/cards.html", "players/prizes.html", "players/refusals.html",
                 "players/location.html", "changelog.html", "security.html", "development/contributing.html",
                 "development/pages.html", "development/card-forms.html", "development/countdowns.html"):
        assert (site / page.replace(".html", "/index.html")).is_file() or (site / page).is_file(), page


def test_the_api_page_renders_the_openapi_document_the_gateway_serves(site: Path) -> None:
    # made at build time from the app (turfwar/docsite.py), so the page never shows a stale contract
    built = json.loads((site / "api" / "openapi.json").read_text())
    assert built["info"]["title"] == "Turf War gateway"
    assert {"/api/v1/claims", "/api/v1/claims/check", "/api/v1/modes/hill"} <= set(built["paths"])
    page = (site / "api" / "http" / "index.html").read_text()
    assert "<swagger-ui" not in page and "swagger-ui-iframe" in page   # the tag became Swagger UI's frame


def test_the_benchmark_page_includes_bench_results_as_they_are(site: Path) -> None:
    html = (site / "benchmarks" / "results" / "index.html").read_text()
    assert "Notes per benchmark" in html and "--8&lt;--" not in html


def test_the_claim_path_is_drawn_as_a_mermaid_diagram(site: Path) -> None:
    html = (site / "architecture" / "claim-path" / "index.html").read_text()
    assert 'class="mermaid"' in html and "claims.verified.submit" in html


def test_the_readme_is_a_front_door_under_120_lines_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 120
    # .ci/run runs the README's test command: the line keeps its form
    assert "./turf test    # install (first time) and run the test suite" in readme
    assert "./turf up " in readme and "TURF_CLOCK=manual" in readme


def test_mermaid_is_served_from_the_site_itself_and_no_page_loads_a_script_from_elsewhere(site: Path) -> None:
    # Material asks unpkg for mermaid unless the page already defines it: the vendored copy does, so a diagram
    # draws offline (docs/javascripts/vendor/mermaid/VENDORED.txt)
    vendored = site / "javascripts" / "vendor" / "mermaid" / "mermaid.min.js"
    assert vendored.stat().st_size > 1_000_000
    page = (site / "architecture" / "claim-path" / "index.html").read_text()
    assert 'src="../../javascripts/vendor/mermaid/mermaid.min.js"' in page
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert '<script src="http' not in text and "<script src=\"//" not in text, html
        assert "unpkg.com" not in text and "cdn.jsdelivr" not in text, html


def test_mermaid_fences_have_no_semicolon_which_ends_a_sequence_diagram_statement() -> None:
    # a ";" inside a message or a note splits the statement: the diagram is not drawn at all, only its error
    for md in (ROOT / "docs").rglob("*.md"):
        fence = False
        for n, line in enumerate(md.read_text().splitlines(), 1):
            if line.strip().startswith("```"):
                fence = line.strip() == "```mermaid"
                continue
            assert not (fence and ";" in line), f"{md.relative_to(ROOT)}:{n}: {line.strip()}"


def test_the_readme_and_the_docs_state_no_suite_timing_that_goes_stale() -> None:
    for path in (ROOT / "README.md", ROOT / "docs" / "development" / "tests.md"):
        text = path.read_text()
        assert not re.search(r"about \d+ minutes|\d[\d,]* tests\)|\d+(\.\d+)? min \(", text), path.name


def test_the_security_policy_and_contributing_pages_are_the_root_files(site: Path) -> None:
    # SECURITY.md and CONTRIBUTING.md at the root are the pages' one source (snippets), not copies that drift
    security = (site / "security" / "index.html").read_text()
    assert "How to report a hole" in security and "In scope" in security and "--8&lt;--" not in security
    contributing = (site / "development" / "contributing" / "index.html").read_text()
    assert "The rules come first" in contributing


def test_developer_reference_is_not_under_the_players_tab() -> None:
    # the card forms' JSON, the countdowns' route and the pages' security-policy hashes are developer reference
    nav = (ROOT / "mkdocs.yml").read_text().split("  - Players:", 1)[1].split("\n  - ", 1)[0]
    assert "card-forms" not in nav and "countdowns" not in nav
    for md in (ROOT / "docs" / "players").glob("*.md"):
        text = md.read_text()
        assert "```json" not in text and "Content-Security-Policy" not in text and "sha256" not in text, md.name


def test_the_changelog_is_newest_first_and_opens_with_seasons_as_data() -> None:
    text = (ROOT / "docs" / "changelog.md").read_text()
    days = re.findall(r"^## (\d{4}-\d{2}-\d{2})$", text, re.MULTILINE)
    assert days and days == sorted(days, reverse=True) and len(set(days)) == len(days)
    newest = text.split(f"## {days[0]}", 1)[1].split("\n## ", 1)[0]
    assert newest.lstrip().startswith("- **Seasons as data** ([R31]")
