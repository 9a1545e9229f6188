//! +kubebuilder:object:generate=true
//! +groupName=primitives.corpus.rkb.io

mod sample_types;
pub use sample_types::*;
