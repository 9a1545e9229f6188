#!/usr/bin/env bash
# Finds or fetches the envtest control plane and prints its directory as the last line (KUBEBUILDER_ASSETS):
#   1. KUBEBUILDER_ASSETS when it already holds what the tests need;
#   2. a control plane this script built before (its stamp matches the pinned versions);
#   3. setup-envtest's download (etcd, kube-apiserver, kubectl), as kubebuilder projects get it: one already on
#      disk, else a fresh one. Its downloads come from GitHub and Google Cloud Storage;
#   4. when those are unreachable (or kube-controller-manager is needed), a build from Go modules (minutes, once).
# It says on stderr which of these it used.
#
# setup-envtest ships no kube-controller-manager. Only tests that call the envtest builder's
# with_controller_manager() (garbage collection, namespace deletion) need it, and they fail naming it;
# RKB_ENVTEST_CONTROLLER_MANAGER=1 (e.g. `RKB_ENVTEST_CONTROLLER_MANAGER=1 make test`) skips steps 1-3 when
# they lack it and builds the whole control plane.
#
# --dry-run says what it would run, and runs nothing but the look-ups of steps 1 and 2.
# The directory is <root>/k8s/<version>-<GOOS>-<GOARCH>, setup-envtest's layout, for the host's platform.
set -euo pipefail

K8S_VERSION="${RKB_ENVTEST_K8S_VERSION:-1.35.4}"    # k8s-openapi feature v1_35
ETCD_VERSION="${RKB_ENVTEST_ETCD_VERSION:-3.6.16}"
# A released module version, so `go run` needs nothing but the Go module proxy to build the tool.
SETUP_ENVTEST_VERSION="${RKB_SETUP_ENVTEST_VERSION:-v0.25.1}"
ROOT="${RKB_ENVTEST_ROOT:-${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest}"
NEED_CONTROLLER_MANAGER="${RKB_ENVTEST_CONTROLLER_MANAGER:-0}"
STAMP="k8s=v${K8S_VERSION} etcd=v${ETCD_VERSION}"
DRY_RUN=0

log() { echo "setup-envtest: $*" >&2; }

case "${1:-}" in
  "") ;;
  --dry-run) DRY_RUN=1 ;;
  *) log "error: unknown argument ${1} (the only one is --dry-run)"; exit 2 ;;
esac

# The host's platform as Go names it: `go env` when Go is installed, else uname (a cache needs no Go).
host_platform() {
  if command -v go >/dev/null; then
    local goenv
    goenv="$(go env GOOS GOARCH)" || return 1
    echo "${goenv%%$'\n'*}-${goenv##*$'\n'}"
    return
  fi
  local os arch
  os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    ppc64le) arch=ppc64le ;;
    s390x) arch=s390x ;;
    *) log "error: unknown machine $(uname -m); install Go so \`go env GOARCH\` names it"; return 1 ;;
  esac
  echo "${os}-${arch}"
}

PLATFORM="$(host_platform)"
GOOS="${PLATFORM%-*}"
GOARCH="${PLATFORM##*-}"
DEST="$ROOT/k8s/${K8S_VERSION}-${PLATFORM}"
BINARIES=(etcd kube-apiserver)
[ "$NEED_CONTROLLER_MANAGER" != 1 ] || BINARIES+=(kube-controller-manager)

usable() { # dir -> 0 when it holds every binary the tests start
  for b in "${BINARIES[@]}"; do [ -x "$1/$b" ] || return 1; done
}

# Prints the chosen directory (the last line, which callers read), says how it was found and what it lacks.
use_dir() { # dir, how it was found
  log "$2: $1"
  if [ ! -x "$1/kube-controller-manager" ]; then
    log "note: no kube-controller-manager there; tests using with_controller_manager() fail until" \
      "RKB_ENVTEST_CONTROLLER_MANAGER=1 builds it"
  fi
  echo "$1"
  exit 0
}

# 1. A user who already has the binaries keeps them.
if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ "${KUBEBUILDER_ASSETS%/}" != "${DEST%/}" ]; then
  if usable "$KUBEBUILDER_ASSETS"; then use_dir "$KUBEBUILDER_ASSETS" "using KUBEBUILDER_ASSETS"; fi
  log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks one of ${BINARIES[*]}; looking further"
fi

# 2. A control plane built before.
if [ -f "$DEST/.rkb-stamp" ] && [ "$(cat "$DEST/.rkb-stamp")" = "$STAMP" ] && usable "$DEST"; then
  use_dir "$DEST" "cached build ($STAMP)"
fi

# 3. setup-envtest: the installed tool, else the pinned one through `go run`.
setup_envtest() { # arguments of setup-envtest
  if command -v setup-envtest >/dev/null; then
    setup-envtest "$@"
  else
    GOTOOLCHAIN=local go run "sigs.k8s.io/controller-runtime/tools/setup-envtest@${SETUP_ENVTEST_VERSION}" "$@"
  fi
}

if [ "$NEED_CONTROLLER_MANAGER" != 1 ]; then
  # The newest patch of the minor version k8s-openapi is built for: the release index has a few patches only.
  minor_spec="${K8S_VERSION%.*}.x"
  args=(use -p path --os "$GOOS" --arch "$GOARCH" --bin-dir "$ROOT" "$minor_spec")
  if ! command -v setup-envtest >/dev/null && ! command -v go >/dev/null; then
    log "neither setup-envtest nor Go is installed, so setup-envtest cannot run"
  elif [ "$DRY_RUN" = 1 ]; then
    log "dry run: would run setup-envtest ${SETUP_ENVTEST_VERSION} ${args[*]}, first with -i (a download on disk)"
  else
    errors="$(mktemp)"
    trap 'rm -f "$errors"' EXIT
    for source in "already on disk" "downloaded"; do
      only_installed=()
      [ "$source" = downloaded ] || only_installed=(-i)
      if dir="$(setup_envtest "${args[@]}" "${only_installed[@]}" 2>"$errors" | tail -n 1)" \
        && [ -n "$dir" ] && usable "$dir"; then
        use_dir "$dir" "setup-envtest ${SETUP_ENVTEST_VERSION} ${minor_spec}, ${source}"
      fi
    done
    # `go run` ends with "exit status N"; the tool's own last line says why.
    log "setup-envtest could not download the binaries: $(grep -v '^exit status' "$errors" | tail -n 1)"
    rm -f "$errors"
    trap - EXIT
  fi
  [ "$DRY_RUN" = 1 ] || log "building the control plane from Go modules instead"
fi

# 4. The build.
if [ "$DRY_RUN" = 1 ]; then
  log "dry run: would build etcd v${ETCD_VERSION}, kube-apiserver and kube-controller-manager v${K8S_VERSION}" \
    "for ${PLATFORM} from Go modules into $DEST"
  echo "$DEST"
  exit 0
fi
command -v go >/dev/null || { log "error: Go is needed to build the control plane (https://go.dev/doc/install)"; exit 1; }

WORK="${RKB_ENVTEST_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/rkb-envtest-build}"
mkdir -p "$WORK/k8s" "$WORK/etcd"
STAGE="$(mktemp -d "$ROOT.stage.XXXXXX" 2>/dev/null || { mkdir -p "$ROOT"; mktemp -d "$ROOT/.stage.XXXXXX"; })"
trap 'rm -rf "$STAGE"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local GOOS GOARCH
start=$(date +%s)

# --- Kubernetes: a wrapper module pinning k8s.io/kubernetes and every staging module at its v0 twin.
minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
staging_version="v0.${K8S_VERSION#*.}"
(
  cd "$WORK/k8s"
  [ -f go.mod ] || go mod init rkb.local/envtest-k8s >/dev/null 2>&1
  info="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" 2>&1)" || true
  gomod="$(sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' <<<"$info")"
  if [ -z "$gomod" ]; then
    log "error: cannot fetch k8s.io/kubernetes@v${K8S_VERSION} from the Go module proxy:" \
      "$(sed -n 's/.*"Error": "\(.*\)".*/\1/p' <<<"$info" | tail -n 1)"
    exit 1
  fi
  go mod edit -require="k8s.io/kubernetes@v${K8S_VERSION}"
  # Staging modules are replaced by ./staging paths inside kubernetes' own go.mod, which a dependent
  # module cannot see; point each at its published version instead.
  grep -oE '^\s*k8s\.io/[A-Za-z0-9._-]+ => \./staging' "$gomod" | awk '{print $1}' | sort -u | while read -r m; do
    go mod edit -replace="$m=$m@$staging_version"
  done
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean"
  for b in kube-apiserver kube-controller-manager; do
    log "building $b v${K8S_VERSION} for ${PLATFORM}"
    go build -trimpath -ldflags "$ldflags" -o "$STAGE/$b" "k8s.io/kubernetes/cmd/$b"
  done
)

# --- etcd: its server module carries the etcd main package.
(
  cd "$WORK/etcd"
  [ -f go.mod ] || go mod init rkb.local/envtest-etcd >/dev/null 2>&1
  go mod edit -require="go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
  log "building etcd v${ETCD_VERSION} for ${PLATFORM}"
  go build -trimpath -ldflags "-s -w" -o "$STAGE/etcd" go.etcd.io/etcd/server/v3
)

if command -v kubectl >/dev/null; then ln -sf "$(command -v kubectl)" "$STAGE/kubectl"; fi
echo "$STAMP" > "$STAGE/.rkb-stamp"
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
trap - EXIT
log "built from Go modules in $(( $(date +%s) - start ))s: $DEST"
echo "$DEST"
