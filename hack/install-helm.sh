#!/usr/bin/env bash
# Installs helm (for the chart `rkb edit --plugins helm` writes: scaffold-tests/tests/helm.rs lints, renders and
# installs it) from the Go module proxy into a cached directory, as the control plane and controller-gen are
# installed: no download site other than the Go proxy. Re-runs are free: nothing is built when the binary there
# reports the pinned version. The last line printed is the binary's path.
#
#   RKB_HELM_VERSION  version to install (default v3.22.0, a helm.sh/helm/v3 release on the Go module proxy)
#   RKB_TOOLS_BIN     where to put it (default ${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools/bin)
set -euo pipefail

VERSION="${RKB_HELM_VERSION:-v3.22.0}"
BIN_DIR="${RKB_TOOLS_BIN:-${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools/bin}"
BIN="$BIN_DIR/helm"

log() { echo "install-helm: $*" >&2; }

# `go install` builds without helm's release ldflags, so `helm version` does not know the tag; the Go build
# information embedded in the binary does (`go version -m`), and that is what the cache is checked against.
installed_version() {
  go version -m "$1" 2>/dev/null | awk '$1 == "mod" && $2 == "helm.sh/helm/v3" { print $3 }'
}

command -v go >/dev/null || { log "error: Go is needed to build helm (https://go.dev/doc/install)"; exit 1; }

if [ -x "$BIN" ] && [ "$(installed_version "$BIN")" = "$VERSION" ]; then
  log "cached: $BIN ($VERSION)"
  echo "$BIN"
  exit 0
fi

mkdir -p "$BIN_DIR"
log "building helm.sh/helm/v3/cmd/helm@$VERSION into $BIN_DIR"
# GOFLAGS from the caller (e.g. -mod=vendor) must not leak into `go install pkg@version`.
GOBIN="$BIN_DIR" GOFLAGS= GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0 \
  go install "helm.sh/helm/v3/cmd/helm@$VERSION"

got="$(installed_version "$BIN")"
[ "$got" = "$VERSION" ] || { log "error: $BIN was built from helm.sh/helm/v3 '$got', expected '$VERSION'"; exit 1; }
echo "$BIN"
