"""The players' guide on the docs site (docs/players/): every ruling the code cites is explained on "The rulings",
every refusal code players can read is explained on "When the game says no" with the sentence the game shows, and no
page cites a rule number a reader cannot look up on the site. Read from the Markdown sources, no build needed (the
strict build, which checks every link and anchor, is tests/unit/test_docs_site.py)."""

from __future__ import annotations

import re
from pathlib import Path

from turf_common.rules.refusals import MESSAGES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RULINGS = DOCS / "players" / "rulings.md"
REFUSALS = DOCS / "players" / "refusals.md"

#: a ruling as the code cites it: R7, R7.1, R8.2 (its list's second item), R12.1
CITED = re.compile(r"(?<![\w.$-])R(\d{1,2})(?:\.(\d+))?(?![\w-])")
#: where the code cites rulings: its sources, the pages' scripts and templates (not third-party or built files)
SOURCES = ("libs", "services", "gateway/src")
SUFFIXES = {".py", ".js", ".html", ".json", ".sql", ".txt", ".css", ".j2", ".jinja", ".yaml", ".yml", ".md"}
SKIPPED_PARTS = {"__pycache__", "node_modules", "vendor", "dist", ".venv"}


def anchors(md: Path) -> set[str]:
    """The ids a page's headings ({#id}) and inline anchors (<a id="…">) give it."""
    text = md.read_text()
    return set(re.findall(r"\{#([\w-]+)\}", text)) | set(re.findall(r'<a id="([\w-]+)"', text))


def anchor(number: str, item: str | None) -> str:
    return f"r{number}" + (f"-{item}" if item else "")


def cited_in_code() -> dict[str, str]:
    """Every ruling cited in the code's sources → one file citing it."""
    found: dict[str, str] = {}
    for top in SOURCES:
        for path in (ROOT / top).rglob("*"):
            if path.suffix not in SUFFIXES or SKIPPED_PARTS & set(path.parts) or not path.is_file():
                continue
            for m in CITED.finditer(path.read_text(errors="replace")):
                found.setdefault(anchor(m[1], m[2]), path.relative_to(ROOT).as_posix())
    return found


def test_the_rulings_page_explains_r1_to_r31() -> None:
    have = anchors(RULINGS)
    assert {f"r{n}" for n in range(1, 32)} <= have
    # and each one in a paragraph of its own, not a bare heading
    for n in range(1, 32):
        section = RULINGS.read_text().split(f"{{#r{n}}}", 1)[1].split("\n### ", 1)[0]
        assert len(section.split()) >= 15, f"R{n}'s entry is too short to explain it"


def test_every_ruling_the_code_cites_has_an_entry_on_the_rulings_page() -> None:
    cited = cited_in_code()
    assert {"r7", "r7-1", "r14", "r12-1", "r31"} <= set(cited)   # the scan finds the code's citations at all
    missing = {a: where for a, where in cited.items() if a not in anchors(RULINGS)}
    assert not missing, f"cited in the code but not explained in docs/players/rulings.md: {missing}"


def test_no_page_of_the_site_cites_a_ruling_it_cannot_look_up() -> None:
    have = anchors(RULINGS)
    for md in DOCS.rglob("*.md"):
        for m in CITED.finditer(md.read_text()):
            assert anchor(m[1], m[2]) in have, f"{md.relative_to(ROOT)} cites {m[0]}, which the rulings page lacks"


def test_how_to_play_links_every_ruling_it_cites_to_its_entry() -> None:
    text = (DOCS / "players" / "index.md").read_text()
    cited = {m[0] for m in CITED.finditer(text)}
    assert cited, "How to play cites the rulings"
    for ruling in cited:
        n, _, item = ruling[1:].partition(".")
        assert f"[{ruling}](rulings.md#{anchor(n, item or None)})" in text, f"{ruling} is cited without its link"


def test_every_refusal_code_has_an_entry_with_the_sentence_players_read() -> None:
    text = REFUSALS.read_text()
    have = anchors(REFUSALS)
    for code, sentence in MESSAGES.items():
        assert code in have, f"docs/players/refusals.md has no entry for {code}"
        entry = text.split(f"{{#{code}}}", 1)[1].split("\n### ", 1)[0]
        assert f"> {sentence}" in entry, f"{code}'s entry does not quote the game's sentence"
        assert "**Means:**" in entry and "**Do:**" in entry, f"{code}'s entry says what it means and what to do"


def test_the_seven_cards_each_have_a_worked_example() -> None:
    text = (DOCS / "players" / "cards.md").read_text()
    for card in ("freeze", "blockade", "war", "double-trouble", "trade", "mulligan", "joker"):
        assert f"{{#{card}}}" in text
        section = text.split(f"{{#{card}}}", 1)[1].split("\n## ", 1)[0]
        assert "!!! example" in section, f"{card} has no worked example"


def test_the_safety_rule_is_not_called_rule_11_where_r11_means_fortification() -> None:
    # the rulebook's section 11 (safety and fair play) and ruling R11 (fortified towns) are different things
    for md in DOCS.rglob("*.md"):
        assert not re.search(r"\brule 11\b", md.read_text(), re.IGNORECASE), md.relative_to(ROOT)
    for page in ("index.html", "js/howto.js", "js/safety.js"):
        text = (ROOT / "gateway/src/turf_gateway/static" / page).read_text()
        assert not re.search(r"\brule 11\b", text, re.IGNORECASE), page
