#!/usr/bin/env bash
# Wheels for the image (deploy/Dockerfile installs from them with --no-index: the image build needs no network).
# The services' packages (libs/common, services/*, gateway; not the root CLI, whose rehearsal servers no service
# needs) and their dependencies, at the versions the test suite runs with (the workspace venv's, when there is one).
# Usage: deploy/build-wheels.sh [python]   (a Python 3.11 with pip; default .venv/bin/python, else python3)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${1:-$ROOT/.venv/bin/python}
[ -x "$PY" ] || PY=python3
OUT=$ROOT/deploy/wheels
LOCAL=(libs/common services/geo-verify services/claims services/cards services/scoring services/clock gateway)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
# the versions tested: the venv's, minus the workspace's editable packages (a venv made by `uv sync` may have no pip:
# ask uv, and build with a pip of our own)
UV=$(dirname "$PY")/uv
if "$PY" -m pip --version >/dev/null 2>&1; then
  "$PY" -m pip freeze --exclude-editable 2>/dev/null >"$TMP/freeze.txt" || true
else
  [ -x "$UV" ] && "$UV" pip freeze --python "$PY" --exclude-editable 2>/dev/null >"$TMP/freeze.txt" || true
  python3 -m venv "$TMP/pip" && PY=$TMP/pip/bin/python
fi
grep -E '^[A-Za-z0-9_.-]+==' "$TMP/freeze.txt" >"$TMP/constraints.txt" 2>/dev/null || : >"$TMP/constraints.txt"
# each package from a clean copy: an in-tree build would pack whatever a stale build/ still holds
for pkg in "${LOCAL[@]}"; do
  mkdir -p "$TMP/src/$pkg" && cp -r "$ROOT/$pkg/pyproject.toml" "$ROOT/$pkg/src" "$TMP/src/$pkg/"
done
find "$TMP/src" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
# resolve the services' dependencies (not the CLI's rehearsal servers: no service imports turfwar)
# (async-timeout: redis needs it on Python < 3.11.3, which is Debian bookworm's 3.11.2, not necessarily this venv's)
(cd "$TMP/src" && "$PY" -m pip wheel -q --disable-pip-version-check -c "$TMP/constraints.txt" -w "$TMP/all" "${LOCAL[@]/#/./}" \
  "async-timeout>=4.0.3")
# the scheduled backup's extras (deploy/Dockerfile's backup image): the CLI package alone (python -m
# turfwar.backup_schedule needs none of its rehearsal servers' or board tools' dependencies) and pgserver, for a
# pg_dump of PostgreSQL 16 that reads the servers it backs up (up to 16; Debian bookworm's client is 15)
mkdir -p "$TMP/src/root" && cp -r "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/src" "$TMP/src/root/"
find "$TMP/src/root" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
(cd "$TMP/src" && "$PY" -m pip wheel -q --disable-pip-version-check --no-deps -c "$TMP/constraints.txt" \
  -w "$TMP/tools" ./root pgserver fasteners platformdirs psutil)
# keep only this build's set, so a stale wheel of another version is never installed
find "$OUT" -name '*.whl' -delete
mkdir -p "$OUT/tools"
mv "$TMP"/all/*.whl "$OUT/"
mv "$TMP"/tools/*.whl "$OUT/tools/"
echo "$(ls "$OUT"/*.whl | wc -l) wheels in $OUT, $(ls "$OUT"/tools/*.whl | wc -l) in $OUT/tools"
