"""The suite's file budget (the root conftest.py): a test file over 90 s fails the suite, named, unless it was
already over when the budget came; that list only shrinks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
assert _spec is not None and _spec.loader is not None
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)


def test_a_file_over_the_budget_is_named_slowest_first_unless_it_was_already_over() -> None:
    times = {"tests/a.py": 91.0, "tests/b.py": 200.0, "tests/c.py": 89.9, "tests/old.py": 150.0}
    assert conftest.files_over_budget(times, {"tests/old.py": 140.0}) == ["tests/b.py", "tests/a.py"]


def test_every_file_on_the_list_of_those_over_budget_still_exists() -> None:
    # a file renamed or split leaves the list; the list never names what is gone
    assert [f for f in conftest.OVER_BUDGET if not (ROOT / f).exists()] == []
