//! +kubebuilder:object:generate=true
//! +groupName=defaults.corpus.rkb.io

mod preset_types;
pub use preset_types::*;
