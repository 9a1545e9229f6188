//! +kubebuilder:object:generate=true
//! +groupName=syntax.corpus.rkb.io

mod probe_types;
pub use probe_types::*;
