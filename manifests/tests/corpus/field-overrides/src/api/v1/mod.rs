//! +kubebuilder:object:generate=true
//! +groupName=overrides.corpus.rkb.io

mod dial_types;
pub use dial_types::*;
