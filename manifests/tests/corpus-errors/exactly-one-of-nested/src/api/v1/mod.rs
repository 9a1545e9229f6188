//! +k8s:deepcopy-gen=package
//! +groupName=e17.errors.rkb.io
//!
//! Package v1 is written for Kubernetes' code generators: its kinds carry no kubebuilder root marker.

mod types;
pub use types::*;
