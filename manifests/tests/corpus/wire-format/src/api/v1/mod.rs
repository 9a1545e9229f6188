//! +kubebuilder:object:generate=true
//! +groupName=wire.corpus.rkb.io

mod timer_types;
pub use timer_types::*;
