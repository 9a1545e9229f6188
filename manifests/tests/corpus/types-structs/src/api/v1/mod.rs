//! +kubebuilder:object:generate=true
//! +groupName=structs.corpus.rkb.io

mod tree_types;
pub use tree_types::*;
