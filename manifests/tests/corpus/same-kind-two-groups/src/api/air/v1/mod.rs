//! +kubebuilder:object:generate=true
//! +groupName=air.twogroups.corpus.rkb.io

mod port_types;
pub use port_types::*;
