#!/usr/bin/env bash
# Installs controller-gen (the Go reference rkb manifests is tested against) from the Go module proxy
# into a cached directory. Re-runs are free: nothing is built when the binary there reports the pinned
# version. The last line printed is the binary's path.
#
#   RKB_CONTROLLER_GEN_VERSION  version to install (default v0.21.0)
#   RKB_TOOLS_BIN               where to put it (default ${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools/bin)
set -euo pipefail

VERSION="${RKB_CONTROLLER_GEN_VERSION:-v0.21.0}"
BIN_DIR="${RKB_TOOLS_BIN:-${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools/bin}"
BIN="$BIN_DIR/controller-gen"

log() { echo "install-controller-gen: $*" >&2; }

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "Version: $VERSION" ]; then
  log "cached: $BIN ($VERSION)"
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || { log "error: Go is needed to build controller-gen (https://go.dev/doc/install)"; exit 1; }

mkdir -p "$BIN_DIR"
log "building sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION into $BIN_DIR"
# GOFLAGS from the caller (e.g. -mod=vendor) must not leak into `go install pkg@version`.
GOBIN="$BIN_DIR" GOFLAGS= GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0 \
  go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$VERSION"

got="$("$BIN" --version 2>/dev/null || true)"
[ "$got" = "Version: $VERSION" ] || { log "error: $BIN reports '$got', expected 'Version: $VERSION'"; exit 1; }
echo "$BIN"
