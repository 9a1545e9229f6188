//! +kubebuilder:object:generate=true
//! +groupName=versions.corpus.rkb.io

mod store_types;
pub use store_types::*;
