//! +kubebuilder:object:generate=true
//! +groupName=meta.corpus.rkb.io

mod beacon_types;
pub use beacon_types::*;
