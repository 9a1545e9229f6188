//! +kubebuilder:object:generate=true
//! +groupName=json.corpus.rkb.io

mod blob_types;
pub use blob_types::*;
