//! +kubebuilder:object:generate=true
//! +groupName=integers.corpus.rkb.io

mod counter_types;
pub use counter_types::*;
