//! +kubebuilder:object:generate=true
//! +groupName=clusterprovisioner.rke.io

mod cluster_types;
pub use cluster_types::*;
