//! +kubebuilder:object:generate=true
//! +groupName=arrays.corpus.rkb.io

mod shelf_types;
pub use shelf_types::*;
