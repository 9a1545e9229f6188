#!/usr/bin/env bash
# Builds the envtest control plane (etcd, kube-apiserver, kube-controller-manager) from Go modules,
# because prebuilt binaries cannot be downloaded here. Output uses setup-envtest's layout so
# KUBEBUILDER_ASSETS works the same as for kubebuilder users. The last line printed is the directory.
#
# Re-runs are free: the build is skipped when the stamp file matches the pinned versions.
set -euo pipefail

K8S_VERSION="${RKB_ENVTEST_K8S_VERSION:-1.35.4}"    # k8s-openapi feature v1_35
ETCD_VERSION="${RKB_ENVTEST_ETCD_VERSION:-3.6.16}"
ROOT="${RKB_ENVTEST_ROOT:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest}"
DEST="$ROOT/k8s/${K8S_VERSION}-linux-amd64"
STAMP="k8s=v${K8S_VERSION} etcd=v${ETCD_VERSION}"
BINARIES=(etcd kube-apiserver kube-controller-manager)

log() { echo "setup-envtest: $*" >&2; }

usable() { # dir -> 0 when it holds all of the control plane the tests start
  for b in "${BINARIES[@]}"; do [ -x "$1/$b" ] || return 1; done
}

# A user who already has the binaries keeps them. setup-envtest's downloads have no
# kube-controller-manager, which owner-reference cascade tests need: those are built instead.
if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ "${KUBEBUILDER_ASSETS%/}" != "${DEST%/}" ]; then
  if usable "$KUBEBUILDER_ASSETS"; then
    log "using KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks one of ${BINARIES[*]}; using $DEST"
fi

if [ -f "$DEST/.rkb-stamp" ] && [ "$(cat "$DEST/.rkb-stamp")" = "$STAMP" ] && usable "$DEST"; then
  log "cached: $DEST ($STAMP)"
  echo "$DEST"
  exit 0
fi

command -v go >/dev/null || { log "error: Go is needed to build the control plane (https://go.dev/doc/install)"; exit 1; }

WORK="${RKB_ENVTEST_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/rkb-envtest-build}"
mkdir -p "$WORK/k8s" "$WORK/etcd"
STAGE="$(mktemp -d "$ROOT.stage.XXXXXX" 2>/dev/null || { mkdir -p "$ROOT"; mktemp -d "$ROOT/.stage.XXXXXX"; })"
trap 'rm -rf "$STAGE"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
start=$(date +%s)

# --- Kubernetes: a wrapper module pinning k8s.io/kubernetes and every staging module at its v0 twin.
minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
staging_version="v0.${K8S_VERSION#*.}"
(
  cd "$WORK/k8s"
  [ -f go.mod ] || go mod init rkb.local/envtest-k8s >/dev/null 2>&1
  gomod="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [ -n "$gomod" ] || { log "error: cannot fetch k8s.io/kubernetes@v${K8S_VERSION} from the Go module proxy"; exit 1; }
  go mod edit -require="k8s.io/kubernetes@v${K8S_VERSION}"
  # Staging modules are replaced by ./staging paths inside kubernetes' own go.mod, which a dependent
  # module cannot see; point each at its published version instead.
  grep -oE '^\s*k8s\.io/[A-Za-z0-9._-]+ => \./staging' "$gomod" | awk '{print $1}' | sort -u | while read -r m; do
    go mod edit -replace="$m=$m@$staging_version"
  done
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
  for b in kube-apiserver kube-controller-manager; do
    log "building $b v${K8S_VERSION}"
    go build -trimpath -ldflags "$ldflags" -o "$STAGE/$b" "k8s.io/kubernetes/cmd/$b"
  done
)

# --- etcd: its server module carries the etcd main package.
(
  cd "$WORK/etcd"
  [ -f go.mod ] || go mod init rkb.local/envtest-etcd >/dev/null 2>&1
  go mod edit -require="go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
  log "building etcd v${ETCD_VERSION}"
  go build -trimpath -ldflags "-s -w" -o "$STAGE/etcd" go.etcd.io/etcd/server/v3
)

if command -v kubectl >/dev/null; then ln -sf "$(command -v kubectl)" "$STAGE/kubectl"; fi
echo "$STAMP" > "$STAGE/.rkb-stamp"
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
trap - EXIT
log "built in $(( $(date +%s) - start ))s: $DEST"
echo "$DEST"
