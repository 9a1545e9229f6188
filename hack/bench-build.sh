#!/usr/bin/env bash
# Build time of an rkb project against a minimal hand-written kube-rs operator (hack/bench-build/minimal-operator),
# side by side: rounds alternate the two, each cold build starts from an empty target dir with a warm cargo
# registry, then one incremental rebuild after the same one-line edit of the reconcile function.
# Usage: hack/bench-build.sh [ROUNDS]   (default 3; prints every round, then medians and ratios)
# The quickstart scaffold builds in dev mode (rkb-runtime from this checkout): the same sources the published
# crates hold. Both projects start from this workspace's Cargo.lock, so they resolve the same versions.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset CARGO_TARGET_DIR

cargo build --quiet --release -p rkb --manifest-path "$repo/Cargo.toml" --target-dir "$work/rkb-target"
rkb="$work/rkb-target/release/rkb"
mkdir "$work/demo"
(cd "$work/demo" && "$rkb" init --domain my.domain --project-name demo --rkb-source "$repo" \
  && "$rkb" create api --group devops --version v1 --kind DemoMicroService && "$rkb" manifests) > /dev/null 2>&1
cp -r "$repo/hack/bench-build/minimal-operator" "$work/minimal"
for p in demo minimal; do
  cp "$repo/Cargo.lock" "$work/$p/Cargo.lock"
  (cd "$work/$p" && cargo fetch --quiet)
done
declare -A reconcile_file=([demo]=src/controller/demomicroservice_controller.rs [minimal]=src/main.rs)

# Seconds (3 decimals) that a cargo build of $1 takes; prints "<seconds> <units compiled>".
timed_build() {
  local dir="$1" start end units
  start=$(date +%s.%N)
  if ! (cd "$dir" && cargo build --target-dir "$dir/target" > "$dir/build.log" 2>&1); then
    echo "cargo build failed in $dir:" >&2
    cat "$dir/build.log" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  units=$(grep -c '^ *Compiling' "$dir/build.log" || true)
  printf '%.3f %s\n' "$(echo "$end - $start" | bc)" "$units"
}

results="$work/results.tsv"
for round in $(seq 1 "$rounds"); do
  for p in demo minimal; do
    rm -rf "$work/$p/target"
    read -r cold units < <(timed_build "$work/$p")
    # The one-line edit: a log line at the top of reconcile (a different one each round).
    sed -i "0,/^\(pub \)\?async fn reconcile(.*{\$/s//&\n    tracing::debug!(\"edit $round\");/" "$work/$p/${reconcile_file[$p]}"
    grep -q "edit $round" "$work/$p/${reconcile_file[$p]}" || { echo "the edit did not apply to $p" >&2; exit 1; }
    read -r incremental _ < <(timed_build "$work/$p")
    printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$p" "$cold" "$units" "$incremental" | tee -a "$results" >&2
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
med = lambda p, i: statistics.median(float(r[i]) for r in rows if r[1] == p)
units = {p: next(r[3] for r in rows if r[1] == p) for p in ("demo", "minimal")}
print("| project | cold debug build (median) | units | incremental after a one-line edit (median) |")
print("|---|---:|---:|---:|")
for p, label in (("demo", "rkb quickstart scaffold"), ("minimal", "minimal kube-rs operator")):
    print(f"| {label} | {med(p, 2):.1f} s | {units[p]} | {med(p, 4):.2f} s |")
print(f"| ratio | {med('demo', 2) / med('minimal', 2):.2f}x | | {med('demo', 4) / med('minimal', 4):.2f}x |")
print(f"({len(rows) // 2} rounds, alternating)")
PY
