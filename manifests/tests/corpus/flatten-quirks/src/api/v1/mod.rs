//! +kubebuilder:object:generate=true
//! +groupName=quirks.corpus.rkb.io

mod knot_types;
pub use knot_types::*;
