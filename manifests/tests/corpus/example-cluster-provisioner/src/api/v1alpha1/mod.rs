//! API types of examples/cluster-provisioner (file copied verbatim), under a group of its own.
//!
//! +kubebuilder:object:generate=true
//! +groupName=example.clusterprovisioner.rke.io

pub mod cluster_types;
pub use cluster_types::*;
