//! +kubebuilder:object:generate=true
//! +groupName=idioms.corpus.rkb.io

mod gate_types;
pub use gate_types::*;
