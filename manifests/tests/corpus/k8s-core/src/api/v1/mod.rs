//! +kubebuilder:object:generate=true
//! +groupName=core.corpus.rkb.io

mod workload_types;
pub use workload_types::*;
