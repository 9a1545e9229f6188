//! +kubebuilder:object:generate=true
//! +groupName=embedding.corpus.rkb.io

mod composite_types;
pub use composite_types::*;
