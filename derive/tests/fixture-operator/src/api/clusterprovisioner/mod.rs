//! The clusterprovisioner.rke.io group (seed 001).

pub mod v1alpha1;
