//! +kubebuilder:object:generate=true
//! +groupName=mixed.corpus.rkb.io

mod engine_types;
pub use engine_types::*;
