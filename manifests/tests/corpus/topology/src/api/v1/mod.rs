//! +kubebuilder:object:generate=true
//! +groupName=topology.corpus.rkb.io

mod mesh_types;
pub use mesh_types::*;
