#!/usr/bin/env bash
# Load and abuse benchmark of examples/cronjob's webhook server against its controller-runtime twin
# (bench/webhook-go), on one envtest control plane; results go to docs/benchmarks.md by hand.
#
#   hack/bench-webhook.sh                         # 3 rounds of 1500 create+update pairs each, 16 in flight, then abuse
#   hack/bench-webhook.sh --rounds 5 --pairs 3000 # any flag of the driver (bench/webhook-go/driver/main.go)
#   hack/bench-webhook.sh --skip-load --cases flood,slow,heads  # some abuse cases only (bodies, flood, slow, heads)
#   hack/bench-webhook.sh --build-only            # build both binaries and the driver, run nothing (a cheap CI guard)
#
# Not part of hack/test.sh: a benchmark, not a timed test. Needs Go (modules from the Go module proxy; the first
# build takes a few minutes) and the envtest binaries (hack/setup-envtest.sh) in $KUBEBUILDER_ASSETS.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
export KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS:-$HOME/.local/share/kubebuilder-envtest/k8s/1.35.4-linux-amd64}
bin=${RKB_BENCH_BIN:-$HOME/.cache/rkb/webhook-bench}
mkdir -p "$bin"

cargo build --release --locked -p cronjob
(cd bench/webhook-go && go vet ./... && go build -o "$bin/twin" ./twin && go build -o "$bin/driver" ./driver)
if [[ "${1:-}" == "--build-only" ]]; then
    exit 0
fi

# The flood case holds thousands of sockets in the driver and in each server (children inherit the limit).
ulimit -n "$(ulimit -Hn)"
if (($(ulimit -n) < 16384)); then
    echo "bench-webhook: the open-file limit is $(ulimit -n); the flood case needs ~10000 (raise ulimit -Hn)" >&2
    exit 1
fi
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg); rkb at $(git rev-parse --short HEAD)$(git diff --quiet -- runtime examples/cronjob || echo '+changes')" >&2
exec "$bin/driver" --rkb "$CARGO_TARGET_DIR/release/cronjob" --twin "$bin/twin" "$@"
