#!/usr/bin/env bash
# Wheels for the image (deploy/Dockerfile installs from them with --no-index: the image build needs no network).
# Supply chain: every third-party file is the one uv.lock names, checked against the lock's hashes
# (`uv export --frozen` → `pip download --require-hashes`); a package published as an sdist only is built here from
# its hash-checked sdist. deploy/wheels/requirements.txt then pins every wheel, ours included, to its SHA-256, and the
# image installs with `pip install --require-hashes --no-deps` from that list alone: nothing unpinned, nothing
# resolved anew, nothing the lock did not name.
# The services' packages (libs/common, services/*, gateway; not the root CLI, whose rehearsal servers no service
# needs) and their locked dependencies; the backup image's extras (tools/) likewise.
# Usage: deploy/build-wheels.sh [python]   (a Python 3.11 with pip, beside uv; default .venv/bin/python)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${1:-$ROOT/.venv/bin/python}
[ -x "$PY" ] || PY=python3
UV=$(dirname "$PY")/uv
[ -x "$UV" ] || UV=$(command -v uv) || { echo "build-wheels: no uv (it reads uv.lock)" >&2; exit 1; }
"$PY" -m pip --version >/dev/null 2>&1 || { python3 -m venv "$ROOT/.venv-pip" && PY=$ROOT/.venv-pip/bin/python; }
OUT=$ROOT/deploy/wheels
MEMBERS=(turf-common turf-geo-verify turf-claims turf-cards turf-scoring turf-clock turf-notify turf-modes turf-gateway)
LOCAL=(libs/common services/geo-verify services/claims services/cards services/scoring services/clock services/notify services/modes gateway)
# the backup's PostgreSQL 16 pg_dump and what it imports; the organizer's `turfwar` command (compose's `tools`
# service: status, verify scores, audit draws) and what its CLI imports
TOOLS=(pgserver fasteners platformdirs psutil typer rich shellingham markdown-it-py mdurl pygments)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
PIP=("$PY" -m pip -q --disable-pip-version-check)

# 1. the lock's pins with hashes: the services' closure, and the backup's extras out of the root package's
# (the image's Python is Debian bookworm's 3.11.2: async-timeout's `python_full_version < '3.11.3'` holds there)
"$UV" export --project "$ROOT" --frozen --no-dev --no-emit-workspace "${MEMBERS[@]/#/--package=}" -o "$TMP/all.txt" -q
"$UV" export --project "$ROOT" --frozen --no-dev --no-emit-workspace --all-packages -o "$TMP/root.txt" -q
"$PY" - "$TMP" "${TOOLS[@]}" <<'PY'
import re, sys
from pathlib import Path
tmp, tools = Path(sys.argv[1]), set(sys.argv[2:])
def blocks(text):   # one requirement with its --hash lines
    return re.findall(r"^[A-Za-z0-9].*?(?=^[A-Za-z0-9#]|\Z)", text, re.S | re.M)
fix = lambda b: b.replace(" ; python_full_version < '3.11.3'", "")
(tmp / "all.txt").write_text("".join(fix(b) for b in blocks((tmp / "all.txt").read_text())))
picked = [b for b in blocks((tmp / "root.txt").read_text()) if b.split("==")[0] in tools]
assert len(picked) == len(tools), f"not all of {tools} are in uv.lock"
(tmp / "tools.txt").write_text("".join(picked))
PY
# 2. download each file, checked against the lock's hash (an sdist-only package: its sdist, then built here)
for set_ in all tools; do
  "${PIP[@]}" download --no-deps --require-hashes -r "$TMP/$set_.txt" -d "$TMP/dl-$set_" 2>&1 | grep -v '^WARNING: Location' || true
  [ "$(ls "$TMP/dl-$set_" | wc -l)" -eq "$(grep -c '^[A-Za-z0-9]' "$TMP/$set_.txt")" ] \
    || { echo "build-wheels: not every locked file of $set_ was downloaded" >&2; exit 1; }
  mkdir -p "$TMP/whl-$set_"
  mv "$TMP/dl-$set_"/*.whl "$TMP/whl-$set_/" 2>/dev/null || true
  for sdist in "$TMP/dl-$set_"/*; do
    [ -e "$sdist" ] && "${PIP[@]}" wheel --no-deps -w "$TMP/whl-$set_" "$sdist"
  done
done
# 3. our packages, each from a clean copy (an in-tree build would pack whatever a stale build/ still holds); the CLI
# package goes into tools/ (python -m turfwar.backup_schedule needs none of its rehearsal servers)
for pkg in "${LOCAL[@]}"; do
  mkdir -p "$TMP/src/$pkg" && cp -r "$ROOT/$pkg/pyproject.toml" "$ROOT/$pkg/src" "$TMP/src/$pkg/"
done
mkdir -p "$TMP/src/root" && cp -r "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/src" "$TMP/src/root/"
find "$TMP/src" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
# (uv builds them: its cached build environment is made once, where pip's build isolation made one per package)
for pkg in "${LOCAL[@]}"; do "$UV" build -q --wheel --no-sources -o "$TMP/whl-all" "$TMP/src/$pkg"; done
"$UV" build -q --wheel --no-sources -o "$TMP/whl-tools" "$TMP/src/root"
# 4. keep only this build's set, each wheel pinned to its SHA-256 (the image installs these files and no other)
find "$OUT" -name '*.whl' -delete 2>/dev/null || true
mkdir -p "$OUT/tools"
mv "$TMP"/whl-all/*.whl "$OUT/"
mv "$TMP"/whl-tools/*.whl "$OUT/tools/"
pin() { (cd "$1" && for w in *.whl; do echo "./$w --hash=sha256:$(sha256sum "$w" | cut -d' ' -f1)"; done) >"$1/requirements.txt"; }
pin "$OUT"; pin "$OUT/tools"
echo "$(ls "$OUT"/*.whl | wc -l) wheels in $OUT, $(ls "$OUT"/tools/*.whl | wc -l) in $OUT/tools (uv.lock's, hash-checked)"
