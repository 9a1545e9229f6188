//! +kubebuilder:object:generate=true
//! +groupName=crosspkg.corpus.rkb.io

mod pipeline_types;
pub use pipeline_types::*;
