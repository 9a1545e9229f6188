//! +kubebuilder:object:generate=true
//! +groupName=serde.corpus.rkb.io

mod record_types;
pub use record_types::*;
