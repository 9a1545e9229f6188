//! +kubebuilder:object:generate=true
//! +groupName=hooks.corpus.rkb.io

mod cronjob_types;
pub use cronjob_types::*;
