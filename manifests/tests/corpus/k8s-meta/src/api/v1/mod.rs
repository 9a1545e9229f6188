//! +kubebuilder:object:generate=true
//! +groupName=meta-types.corpus.rkb.io

mod ticket_types;
pub use ticket_types::*;
