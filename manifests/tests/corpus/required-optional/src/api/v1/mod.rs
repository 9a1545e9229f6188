//! +kubebuilder:object:generate=true
//! +kubebuilder:validation:Optional
//! +groupName=required.corpus.rkb.io

mod form_types;
pub use form_types::*;
