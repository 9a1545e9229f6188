//! +kubebuilder:object:generate=true
//! +groupName=columns.corpus.rkb.io

mod job_types;
pub use job_types::*;
