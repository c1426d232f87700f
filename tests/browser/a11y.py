"""An accessibility check of a page: axe-core (vendored in ``vendor/axe``) evaluated in the page through
the DevTools protocol, so the page's Content-Security-Policy stays as it is, and the page is checked as served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "vendor" / "axe" / "axe.min.js"
#: what "no serious violations" means: axe's two highest impacts
SERIOUS = ("serious", "critical")

_RUN = """async () => {
  const r = await axe.run(document, { resultTypes: ["violations"] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}"""


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """axe's serious and critical violations on the page as it is now: ``[{id, impact, help, nodes}]``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text())
    return [v for v in page.evaluate(_RUN) if v["impact"] in SERIOUS]
