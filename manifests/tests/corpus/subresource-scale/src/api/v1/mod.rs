//! +kubebuilder:object:generate=true
//! +groupName=scale.corpus.rkb.io

mod worker_types;
pub use worker_types::*;
