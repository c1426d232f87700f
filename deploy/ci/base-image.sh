#!/usr/bin/env bash
# Builds local/debian:bookworm from the Debian mirror apt already uses (no container registry is reachable here).
# Usage: deploy/ci/base-image.sh [work-dir]. Does nothing when the image exists.
set -euo pipefail
IMAGE=local/debian:bookworm
docker image inspect "$IMAGE" >/dev/null 2>&1 && exit 0
WORK=$(mktemp -d "${1:-/tmp}/turf-base.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
MIRROR=${MIRROR:-$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
debootstrap --variant=minbase bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -30 "$WORK/debootstrap.log"; exit 1; }
# the host's certificate authorities stay out (one of them may re-sign this machine's outbound TLS): apt
# checks the mirror's signed Release files, pip never runs in a build (deploy/build-wheels.sh), and the image gets
# Debian's ca-certificates (deploy/Dockerfile)
rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"*
tar -C "$WORK/rootfs" -c . | docker import - "$IMAGE" >/dev/null
