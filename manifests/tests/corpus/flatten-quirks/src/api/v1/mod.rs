//! +kubebuilder:object:generate=true
//! +groupName=quirks.corpus.rkb.io

mod knot_types;
mod splice_types;
pub use knot_types::*;
pub use splice_types::*;
