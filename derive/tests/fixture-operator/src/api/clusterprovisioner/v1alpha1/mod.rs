//! Package v1alpha1 contains API Schema definitions for the clusterprovisioner v1alpha1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=clusterprovisioner.rke.io

mod cluster_types;

pub use cluster_types::*;
