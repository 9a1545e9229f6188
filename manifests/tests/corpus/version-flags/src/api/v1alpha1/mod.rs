//! +kubebuilder:object:generate=true
//! +groupName=flags.corpus.rkb.io

mod lamp_types;
pub use lamp_types::*;
