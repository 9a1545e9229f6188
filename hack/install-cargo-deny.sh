#!/usr/bin/env bash
# Installs cargo-deny (licenses, bans and sources of the dependency graph, deny.toml) from crates.io into a cached
# directory, built with the versions its own Cargo.lock pins. Re-runs are free: nothing is built when the binary
# there reports the pinned version. The last line printed is the binary's path.
#
#   RKB_CARGO_DENY_VERSION  version to install (default 0.20.2)
#   RKB_TOOLS_ROOT          install root, the binary goes to its bin/ (default ${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools)
set -euo pipefail

VERSION="${RKB_CARGO_DENY_VERSION:-0.20.2}"
ROOT="${RKB_TOOLS_ROOT:-${XDG_DATA_HOME:-$HOME/.local/share}/rkb-tools}"
BIN="$ROOT/bin/cargo-deny"

log() { echo "install-cargo-deny: $*" >&2; }

if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "cargo-deny $VERSION" ]; then
  log "cached: $BIN ($VERSION)"
  echo "$BIN"
  exit 0
fi

command -v cargo >/dev/null || { log "error: cargo is needed to build cargo-deny (https://rustup.rs)"; exit 1; }

log "building cargo-deny $VERSION into $ROOT/bin (a few minutes, once)"
# The caller's target directory (the workspace's) must not receive cargo-deny's build: cargo install then uses a
# temporary one and removes it.
env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET_DIR \
  cargo install --locked --root "$ROOT" "cargo-deny@$VERSION"

got="$("$BIN" --version 2>/dev/null || true)"
[ "$got" = "cargo-deny $VERSION" ] || { log "error: $BIN reports '$got', expected 'cargo-deny $VERSION'"; exit 1; }
echo "$BIN"
