//! +kubebuilder:object:generate=true
//! +groupName=workloads.corpus.rkb.io

mod fleet_types;
pub use fleet_types::*;
