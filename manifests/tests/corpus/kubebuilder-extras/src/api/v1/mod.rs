//! +kubebuilder:object:generate=true
//! +kubebuilder:ac:generate=true
//! +groupName=extras.corpus.rkb.io

mod widget_types;
pub use widget_types::*;
