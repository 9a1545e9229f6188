//! +kubebuilder:object:generate=true
//! +groupName=monitoring.corpus.rkb.io

mod servicemonitor_types;
pub use servicemonitor_types::*;
