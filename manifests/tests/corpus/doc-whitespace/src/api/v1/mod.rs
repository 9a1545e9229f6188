//! +kubebuilder:object:generate=true
//! +groupName=whitespace.corpus.rkb.io

mod memo_types;
pub use memo_types::*;
