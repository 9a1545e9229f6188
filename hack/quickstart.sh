#!/usr/bin/env bash
# The main job on a fresh machine: install rkb, scaffold the DemoMicroService quickstart (seed 000, section 2),
# generate its manifests and build it, as a user's first `cargo build` does (debug).
# Usage: hack/quickstart.sh [DIR]   (default: a new temporary directory)
# The project is in rkb's dev mode (--rkb-source this checkout): rkb-runtime builds from here, not crates.io.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$(mktemp -d)/demo}"

cargo install --locked --quiet --path "$repo/cli" --root "${RKB_INSTALL_ROOT:-$HOME/.cargo}"
rkb="${RKB_INSTALL_ROOT:-$HOME/.cargo}/bin/rkb"

mkdir -p "$dir"
cd "$dir"
"$rkb" init --domain my.domain --project-name demo --rkb-source "$repo"
"$rkb" create api --group devops --version v1 --kind DemoMicroService
"$rkb" manifests
# Reuse the workspace's resolved versions so the build matches what rkb's own tests built.
cp "$repo/Cargo.lock" Cargo.lock
cargo build
kubectl kustomize config/default > /dev/null
echo "quickstart: built ${CARGO_TARGET_DIR:-$dir/target}/debug/demo (the manager); manifests in $dir/config"
