//! +kubebuilder:object:generate=true
//! +groupName=collections.corpus.rkb.io

mod bag_types;
pub use bag_types::*;
