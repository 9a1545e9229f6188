#!/usr/bin/env bash
# Every test of the workspace, on a fresh machine too: builds/reuses the envtest control plane, controller-gen, helm and
# cargo-deny (all cached under ~/.local/share), then lints and tests everything against the real binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

KUBEBUILDER_ASSETS="$(hack/setup-envtest.sh | tail -n 1)"
export KUBEBUILDER_ASSETS
CONTROLLER_GEN="$(hack/install-controller-gen.sh | tail -n 1)"
export CONTROLLER_GEN
HELM="$(hack/install-helm.sh | tail -n 1)"
export HELM
CARGO_DENY="$(hack/install-cargo-deny.sh | tail -n 1)"

# No incremental compilation: CI builds each crate once per change, and the target dir is kept between runs, where
# incremental session files of every crate and scaffolded test project pile up (36 GB seen on one machine).
export CARGO_INCREMENTAL=0

cargo fmt --all -- --check
# The dependency graph against deny.toml: licenses, bans (serde_yaml, a second version of a crate) and sources.
# Not advisories: the RustSec database is on GitHub, which the machines running this cannot reach.
"$CARGO_DENY" --locked check licenses bans sources
cargo clippy --workspace --all-targets --locked -- -D warnings
# The published crates' docs (docs.rs builds them): no broken or private intra-doc links.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked \
  -p rkb-markers -p rkb-manifests -p rkb-derive -p rkb-runtime -p rkb-envtest
# The release, short of uploading: versions, crates.io's index, packaging of every crate in dependency order.
# --no-verify: building each packaged crate is what scaffold-tests/tests/published.rs does below, with a scaffold.
hack/release.sh --dry-run --no-verify
cargo test --workspace --locked
