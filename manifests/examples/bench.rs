//! Benchmark: `rkb manifests` on a synthetic project with N kinds (default 100), median of M runs.
//! `cargo run --release -p rkb-manifests --example bench -- [kinds] [runs]`
use std::fmt::Write as _;
use std::time::{Duration, Instant};

fn kind_file(kind: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"use std::collections::BTreeMap;
use k8s_openapi::api::core::v1::{{Container, ResourceRequirements}};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{{Condition, ObjectMeta}};
use kube::core::TypeMeta;
use serde::{{Deserialize, Serialize}};

/// {kind}Spec defines the desired state of {kind}.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Spec {{
    /// Image to run.
    /// +kubebuilder:validation:MinLength=1
    pub image: String,
    /// Replicas.
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:default=1
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Labels.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Sidecars.
    #[serde(default)]
    pub sidecars: Vec<Container>,
    /// Resources.
    #[serde(default)]
    pub resources: Option<ResourceRequirements>,
    /// Mode.
    /// +kubebuilder:validation:Enum=Fast;Slow
    #[serde(default)]
    pub mode: String,
    /// +kubebuilder:validation:XValidation:rule="self.size() <= 10",message="too many"
    #[serde(default)]
    pub args: Vec<String>,
}}

/// {kind}Status defines the observed state of {kind}.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct {kind}Status {{
    /// +listType=map
    /// +listMapKey=type
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub ready_replicas: i32,
}}

/// {kind} is the Schema for the API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=".spec.image"
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct {kind} {{
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: {kind}Spec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<{kind}Status>,
}}

/// +kubebuilder:rbac:groups=bench.example.com,resources={lower}s,verbs=get;list;watch;create;update;patch;delete
pub fn reconcile_{lower}() {{}}
"#,
        lower = kind.to_lowercase()
    );
    s
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kinds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(15);
    let dir = tempfile::tempdir().expect("tempdir");
    let v1 = dir.path().join("src/api/v1");
    std::fs::create_dir_all(&v1).expect("mkdir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"bench\"\nversion = \"0.1.0\"\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("src/lib.rs"), "pub mod api;\n").expect("write");
    std::fs::write(dir.path().join("src/api/mod.rs"), "pub mod v1;\n").expect("write");
    let mut m = String::from("//! +groupName=bench.example.com\n");
    for i in 0..kinds {
        let kind = format!("Kind{i:03}");
        let file = format!("{}_types", kind.to_lowercase());
        std::fs::write(v1.join(format!("{file}.rs")), kind_file(&kind)).expect("write");
        let _ = writeln!(m, "mod {file};\npub use {file}::*;");
    }
    std::fs::write(v1.join("mod.rs"), m).expect("write");
    let opts = rkb_manifests::Options::default();
    let cpu0 = cpu_ms();
    let mut times: Vec<Duration> = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let out = rkb_manifests::generate(dir.path(), &opts).expect("generate");
        times.push(t.elapsed());
        bytes = out.crds.iter().map(|c| c.yaml.len()).sum::<usize>();
        assert_eq!(out.crds.len(), kinds);
    }
    let cpu = (cpu_ms() - cpu0) / runs as f64;
    times.sort();
    println!(
        "{kinds} kinds, {runs} runs: CPU {cpu:.1} ms/run; wall median {:.1} ms, min {:.1} ms, max {:.1} ms ({} KiB of CRD YAML)",
        times[runs / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[runs - 1].as_secs_f64() * 1e3,
        bytes / 1024
    );
}

/// User+system CPU time of this process in ms (Linux /proc; 0 elsewhere). Wall time on a shared machine
/// mostly measures the neighbours.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    ticks * 10.0
}
