//! +kubebuilder:object:generate=true
//! +groupName=enums.corpus.rkb.io

mod light_types;
pub use light_types::*;
