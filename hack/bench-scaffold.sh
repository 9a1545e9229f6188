#!/usr/bin/env bash
# Times `rkb init` + `rkb create api` together (issue target: under 50 ms, dependency download excluded).
# Needs hyperfine (apt-get install hyperfine). Prints hyperfine's markdown table.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release --quiet -p rkb --manifest-path "$repo/Cargo.toml"
rkb="${CARGO_TARGET_DIR:-$repo/target}/release/rkb"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
hyperfine --warmup 5 --runs "${RUNS:-50}" --export-markdown "$work/result.md" \
  --prepare "rm -rf $work/p && mkdir $work/p" \
  "cd $work/p && $rkb init --domain my.domain --project-name demo && $rkb create api --group devops --version v1 --kind DemoMicroService" >&2
cat "$work/result.md"
