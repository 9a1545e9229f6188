#!/usr/bin/env bash
# Times `rkb init` + `rkb create api` together (issue target: under 50 ms, dependency download excluded).
# Needs hyperfine (apt-get install hyperfine). Prints medians, with and without the rustfmt pass
# (rkb formats what it writes with one rustfmt process per command; RUSTFMT=true skips the formatting).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release --quiet -p rkb --manifest-path "$repo/Cargo.toml"
rkb="${CARGO_TARGET_DIR:-$repo/target}/release/rkb"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
hyperfine --warmup 5 --runs "${RUNS:-50}" --export-json "$work/result.json" \
  --prepare "rm -rf $work/p && mkdir $work/p" \
  "cd $work/p && $rkb init --domain my.domain --project-name demo && $rkb create api --group devops --version v1 --kind DemoMicroService" \
  "cd $work/p && RUSTFMT=true $rkb init --domain my.domain --project-name demo && RUSTFMT=true $rkb create api --group devops --version v1 --kind DemoMicroService" >&2
python3 - "$work/result.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
ms = lambda s: f"{s * 1000:.1f} ms"
for label, r in zip(["init + create api", "the same without rustfmt (RUSTFMT=true)"], results):
    print(f"{label}: median {ms(r['median'])}, min {ms(r['min'])}, max {ms(r['max'])} over {len(r['times'])} runs")
PY
