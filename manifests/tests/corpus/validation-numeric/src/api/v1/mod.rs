//! +kubebuilder:object:generate=true
//! +groupName=numbers.corpus.rkb.io

mod gauge_types;
pub use gauge_types::*;
