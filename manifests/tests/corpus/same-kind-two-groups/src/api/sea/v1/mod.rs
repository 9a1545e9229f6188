//! +kubebuilder:object:generate=true
//! +groupName=sea.twogroups.corpus.rkb.io

mod port_types;
pub use port_types::*;
