#!/usr/bin/env bash
# Benchmarks `rkb manifests` against controller-gen v0.21.0, side by side in one hyperfine run, on
#   1. the differential corpus (manifests/tests/corpus), and
#   2. a synthetic project with 100 kinds (generated here in Go and in Rust, same types).
# Results go to docs/benchmarks.md, section "## rkb manifests vs controller-gen" (by hand; this prints
# the markdown tables).
#
#   hack/bench-manifests.sh            # needs Go, hyperfine (apt-get install -y hyperfine)
#   RKB_BENCH_RUNS=20 hack/bench-manifests.sh     # more runs (default 10)
#   RKB_BENCH_WORK=/tmp/bench hack/bench-manifests.sh   # keep the corpus copy and the synthetic project
#   RKB_BENCH_WORK=/tmp/bench RKB_BENCH_PROJECT_ONLY=1 hack/bench-manifests.sh   # only write the synthetic
#                                      # project to $RKB_BENCH_WORK/synthetic (hack/bench-rkb-ab.py uses this)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RKB_BENCH_RUNS:-10}"
KINDS="${RKB_BENCH_KINDS:-100}"
log() { echo "bench-manifests: $*" >&2; }

PROJECT_ONLY="${RKB_BENCH_PROJECT_ONLY:-}"
if [ -z "$PROJECT_ONLY" ]; then
  command -v hyperfine >/dev/null || { log "error: hyperfine is needed (apt-get install -y hyperfine)"; exit 1; }
  CONTROLLER_GEN="$("$ROOT/hack/install-controller-gen.sh" | tail -n1)"
  log "building rkb (release)"
  (cd "$ROOT" && cargo build --release -q -p rkb)
  RKB="${CARGO_TARGET_DIR:-$ROOT/target}/release/rkb"
elif [ -z "${RKB_BENCH_WORK:-}" ]; then
  log "error: RKB_BENCH_PROJECT_ONLY needs RKB_BENCH_WORK, the directory to write the project to"; exit 1
fi

if [ -n "${RKB_BENCH_WORK:-}" ]; then # keep the generated projects, e.g. to profile them
  WORK="$RKB_BENCH_WORK"; rm -rf "$WORK"; mkdir -p "$WORK"
else
  WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fi
export GOFLAGS=-mod=mod GOTOOLCHAIN=local

# --- 1. the corpus: a copy, since both tools write into it.
cp -r "$ROOT/manifests/tests/corpus" "$WORK/corpus"
CASES=$(cd "$WORK/corpus" && for d in */; do [ -d "$d/src" ] && printf '%s ' "${d%/}"; done)

# --- 2. a synthetic project with $KINDS kinds, each with a spec of 12 fields (k8s types included) and a
# status with conditions, written in Go and in Rust.
SYN="$WORK/synthetic"
mkdir -p "$SYN/api/v1" "$SYN/src/api/v1" "$SYN/internal/controller" "$SYN/src/controller"
cp "$ROOT/manifests/tests/corpus/go.mod" "$ROOT/manifests/tests/corpus/go.sum" "$SYN/"
printf '[package]\nname = "synthetic"\nversion = "0.1.0"\nedition = "2024"\n' >"$SYN/Cargo.toml"
printf '// +kubebuilder:object:generate=true\n// +groupName=bench.rkb.io\npackage v1\n' >"$SYN/api/v1/groupversion_info.go"
{
  printf '//! +kubebuilder:object:generate=true\n//! +groupName=bench.rkb.io\n\n'
  for i in $(seq -w 1 "$KINDS"); do printf 'mod kind%s_types;\npub use kind%s_types::*;\n' "$i" "$i"; done
} >"$SYN/src/api/v1/mod.rs"
printf 'package controller\n\n' >"$SYN/internal/controller/rbac.go"
printf '//! Controllers.\n' >"$SYN/src/controller/mod.rs"
printf 'pub mod api;\npub mod controller;\n' >"$SYN/src/lib.rs"
printf 'pub mod v1;\n' >"$SYN/src/api/mod.rs"
for i in $(seq -w 1 "$KINDS"); do
  K="Kind$i"; k="kind$i"
  cat >"$SYN/api/v1/${k}_types.go" <<GO
package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ${K}Spec defines the desired state of ${K}.
type ${K}Spec struct {
	// Image to run.
	// +kubebuilder:validation:MinLength=1
	Image string \`json:"image"\`
	// Replicas wanted.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 \`json:"replicas,omitempty"\`
	// Mode of operation.
	// +kubebuilder:validation:Enum=fast;safe
	// +optional
	Mode string \`json:"mode,omitempty"\`
	// Args for the process.
	// +listType=atomic
	// +optional
	Args []string \`json:"args,omitempty"\`
	// Labels stamped on children.
	// +optional
	Labels map[string]string \`json:"labels,omitempty"\`
	// Memory budget.
	// +optional
	Memory *resource.Quantity \`json:"memory,omitempty"\`
	// Resources of the main container.
	// +optional
	Resources corev1.ResourceRequirements \`json:"resources,omitempty"\`
	// Env of the main container.
	// +optional
	Env []corev1.EnvVar \`json:"env,omitempty"\`
	// Suspend stops reconciliation.
	// +optional
	Suspend bool \`json:"suspend,omitempty"\`
	// Priority of the object.
	// +optional
	Priority int64 \`json:"priority,omitempty"\`
	// Owner team.
	// +kubebuilder:validation:XValidation:rule="self.size() < 64",message="too long"
	// +optional
	Owner string \`json:"owner,omitempty"\`
	// Window of maintenance.
	// +optional
	Window *${K}Window \`json:"window,omitempty"\`
}

// ${K}Window is a maintenance window.
type ${K}Window struct {
	// Start hour.
	Start int32 \`json:"start"\`
	// End hour.
	End int32 \`json:"end"\`
}

// ${K}Status defines the observed state of ${K}.
type ${K}Status struct {
	// Conditions of the object.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition \`json:"conditions,omitempty"\`
	// ReadyReplicas counts ready pods.
	// +optional
	ReadyReplicas int32 \`json:"readyReplicas,omitempty"\`
}

// ${K} is the Schema for the ${k}s API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=\`.spec.image\`
type ${K} struct {
	metav1.TypeMeta   \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty"\`

	Spec   ${K}Spec   \`json:"spec,omitempty"\`
	Status ${K}Status \`json:"status,omitempty"\`
}
GO
  cat >"$SYN/src/api/v1/${k}_types.rs" <<RS
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ${K}Spec defines the desired state of ${K}.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ${K}Spec {
    /// Image to run.
    /// +kubebuilder:validation:MinLength=1
    pub image: String,
    /// Replicas wanted.
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:default=1
    /// +optional
    pub replicas: Option<i32>,
    /// Mode of operation.
    /// +kubebuilder:validation:Enum=fast;safe
    /// +optional
    pub mode: Option<String>,
    /// Args for the process.
    /// +listType=atomic
    /// +optional
    #[serde(default)]
    pub args: Vec<String>,
    /// Labels stamped on children.
    /// +optional
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Memory budget.
    /// +optional
    pub memory: Option<Quantity>,
    /// Resources of the main container.
    /// +optional
    #[serde(default)]
    pub resources: ResourceRequirements,
    /// Env of the main container.
    /// +optional
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// Suspend stops reconciliation.
    /// +optional
    #[serde(default)]
    pub suspend: bool,
    /// Priority of the object.
    /// +optional
    pub priority: Option<i64>,
    /// Owner team.
    /// +kubebuilder:validation:XValidation:rule="self.size() < 64",message="too long"
    /// +optional
    pub owner: Option<String>,
    /// Window of maintenance.
    /// +optional
    pub window: Option<${K}Window>,
}

/// ${K}Window is a maintenance window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ${K}Window {
    /// Start hour.
    pub start: i32,
    /// End hour.
    pub end: i32,
}

/// ${K}Status defines the observed state of ${K}.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ${K}Status {
    /// Conditions of the object.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// ReadyReplicas counts ready pods.
    /// +optional
    pub ready_replicas: Option<i32>,
}

/// ${K} is the Schema for the ${k}s API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=\`.spec.image\`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct ${K} {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ${K}Spec,
    #[serde(default)]
    pub status: Option<${K}Status>,
}
RS
  rbac="+kubebuilder:rbac:groups=bench.rkb.io,resources=${k}s;${k}s/status,verbs=get;list;watch;update;patch"
  printf '// %s\n' "$rbac" >>"$SYN/internal/controller/rbac.go"
  printf '//! %s\n' "$rbac" >>"$SYN/src/controller/mod.rs"
done
printf '\n// Reconciler is a placeholder for the markers above.\ntype Reconciler struct{}\n' >>"$SYN/internal/controller/rbac.go"
if [ -n "$PROJECT_ONLY" ]; then log "synthetic project written to $SYN"; exit 0; fi

# Both tools must succeed before timing them, and write the same files for the synthetic project.
(cd "$WORK/corpus" && "$CONTROLLER_GEN" crd:allowDangerousTypes=true paths=./... output:crd:dir="$WORK/out-cg" >/dev/null)
(cd "$SYN" && "$CONTROLLER_GEN" crd rbac:roleName=manager-role paths=./... output:crd:dir="$WORK/syn-cg/crd/bases" output:rbac:dir="$WORK/syn-cg/rbac")
"$RKB" manifests --dir "$SYN" >/dev/null
if diff -r "$WORK/syn-cg" "$SYN/config" >"$WORK/syn.diff"; then
  log "synthetic project: rkb and controller-gen wrote the same $(ls "$SYN/config/crd/bases" | wc -l) CRDs and role.yaml"
else
  log "warning: rkb and controller-gen differ on the synthetic project: $(head -c 2000 "$WORK/syn.diff")"
fi
for c in $CASES; do "$RKB" manifests --dir "$WORK/corpus/$c" >/dev/null || log "warning: rkb manifests failed on corpus case $c"; done

cd "$WORK"
hyperfine --warmup 2 --runs "$RUNS" -N --ignore-failure --export-json "$WORK/corpus.json" \
  -n "controller-gen (corpus, 1 run over the module)" \
  "bash -c 'cd corpus && $CONTROLLER_GEN crd:allowDangerousTypes=true rbac:roleName=manager-role paths=./... output:crd:dir=$WORK/out-cg output:rbac:dir=$WORK/out-cg'" \
  -n "rkb manifests (corpus, 1 run per case)" \
  "bash -c 'for c in $CASES; do $RKB manifests --dir corpus/\$c >/dev/null; done'"
hyperfine --warmup 2 --runs "$RUNS" -N --export-json "$WORK/synthetic.json" \
  -n "controller-gen ($KINDS kinds)" \
  "bash -c 'cd synthetic && $CONTROLLER_GEN crd rbac:roleName=manager-role paths=./... output:crd:dir=config/crd/bases output:rbac:dir=config/rbac'" \
  -n "rkb manifests ($KINDS kinds)" \
  "$RKB manifests --dir synthetic"
# Medians (hyperfine's markdown export has means only), and CPU time (user+sys, mean), which the load of a
# shared machine distorts less than wall time.
python3 - "$WORK/corpus.json" "$WORK/synthetic.json" <<'PY'
import json, statistics, sys
print("| command | median | min | max | user+sys (mean) | runs |")
print("|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    results = json.load(open(path))["results"]
    for r in results:
        t = r["times"]
        cpu = (r["user"] + r["system"]) * 1000
        print(f"| {r['command']} | **{statistics.median(t)*1000:.0f} ms** | {min(t)*1000:.0f} ms | {max(t)*1000:.0f} ms | {cpu:.0f} ms | {len(t)} |")
    if len(results) == 2:
        a, b = (statistics.median(r["times"]) for r in results)
        print(f"| ratio (median) | **{a / b:.1f}x** | | | | |")
PY
