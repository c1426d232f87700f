"""No ticket numbers in the tree. The tracker is not in the repository, so "issue 29", "#5" or a file named
``test_sessions_issue15.py`` is a dangling reference to whoever reads it: a test's name says what it shows, and a
comment says why the code is so, citing a ruling (R14, T9, K5) where one applies.

Every file git knows (tracked, or new and not ignored) is read, except binary files, ``uv.lock`` and vendored
third-party code."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: this file, whose examples of what is refused are the only ticket numbers the checks let through
HERE = Path(__file__).resolve().relative_to(ROOT).as_posix()

#: Not ours to edit (third-party files as published) or not prose (the lock file's hashes and versions).
SKIPPED: tuple[str, ...] = ("uv.lock", "gateway/src/turf_gateway/static/vendor/", "tests/browser/vendor/",
                            "docs/javascripts/vendor/")

#: "issue 29", "Issue #9", "issues 15, 29", "issue_29" in a name, and "issue" / "29" split over two comment lines.
#: A URL to another project's tracker (``…/nats-server/issues/6180``) is no ticket of ours and passes.
ISSUE = re.compile(r"(?<![A-Za-z])issues?(?:[ \t_-]*|[ \t]*\n[ \t]*(?:#:?|//|\*)?[ \t]*)#?\d+", re.IGNORECASE)
#: "#5" as a ticket: opening a docstring or a line, in parentheses, after a comment's "# " or joined by a slash
#: ("#4/#5"). Colours (``color: #222``), replicas (``gateway#2``) and addresses ("Apt #2") pass.
HASH = re.compile(r'(?:^[ \t]*|"""|\(|/|#:? )#\d{1,4}(?![\w-])', re.MULTILINE)
#: a file named after a ticket: ``test_signin_issue29.py``, ``issue-15/``
NAMED = re.compile(r"issue[_-]?\d", re.IGNORECASE)


def files() -> list[str]:
    """Every path git knows under the repository root (tracked, or untracked and not ignored), relative to it."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout: {e}")
    return sorted({p for p in out.decode().split("\0") if p})


def exempt(path: str) -> bool:
    return path.startswith(SKIPPED)


def text(path: str) -> str | None:
    """The file's text, or None for a binary file (or one listed but deleted since)."""
    try:
        data = (ROOT / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def references(body: str) -> list[str]:
    """Each ticket reference in ``body`` as ``<line>: <the match>``."""
    found = []
    for rx in (ISSUE, HASH):
        for m in rx.finditer(body):
            line = body.count("\n", 0, m.start()) + 1
            found.append(f"{line}: {m.group(0).strip()!r}")
    return found


@pytest.mark.parametrize(("cited", "count"), [
    ('"""Issue 29: the bus set-up', 1), ("# issue 15: a password", 1), ("(issues 15, 29)", 1),
    ("benchmarks of issue #9", 1), ("def test_issue29_ipv6", 1), ("before issue\n29's feed stream", 1),
    ("filter (nats-server issue\n#: 6180)", 1), ('"""#10 faults: kill -9', 1), ("sagas (#5).", 1),
    ('"""#4/#5: the card effects', 2), ("# ---- cards and trades (#5) ----", 1), ("# #12: why", 1),
], ids=["docstring", "comment", "several", "hash", "test-name", "split-line", "split-comment", "hash-docstring",
        "hash-parens", "hash-slash", "hash-banner", "hash-comment"])
def test_a_ticket_reference_is_found(cited: str, count: int) -> None:
    assert len(references(cited)) == count


@pytest.mark.parametrize("name", ["tests/integration/test_signin_issue29.py", "bench/issue-15/run.py"],
                         ids=["test-module", "folder"])
def test_a_file_named_after_a_ticket_is_found(name: str) -> None:
    assert NAMED.search(name)


@pytest.mark.parametrize("plain", [
    "await tokens.issue(\"h1\", pid)", 'start_process("gateway#2")', "color: #222;", "1 Main St., Apt #2 ",
    "(https://github.com/nats-io/nats-server/issues/6180)", "HMAC(key, label#0)", "R7.1, T9, K5", "dialog#confirm",
])
def test_what_is_no_ticket_passes(plain: str) -> None:
    assert references(plain) == []


def test_no_file_cites_a_ticket() -> None:
    cited: dict[str, list[str]] = {}
    for path in files():
        if exempt(path) or path == HERE or (body := text(path)) is None:
            continue
        if found := references(body):
            cited[path] = found
    assert cited == {}, "say what the ticket meant (a ruling where one applies):\n" + "\n".join(
        f"{p}:{ref}" for p, refs in cited.items() for ref in refs)


def test_no_file_is_named_after_a_ticket() -> None:
    assert [p for p in files() if NAMED.search(p) and not exempt(p)] == []
