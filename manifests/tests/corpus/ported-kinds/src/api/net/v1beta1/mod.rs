//! +k8s:deepcopy-gen=package
//! +groupName=net.ported.rkb.io
//!
//! Package v1beta1 is the v1beta1 version of the net API, written for Kubernetes' code generators
//! (client-gen, deepcopy-gen): its kinds carry no kubebuilder root marker.

mod types;
pub use types::*;
