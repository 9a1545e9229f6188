//! +kubebuilder:object:generate=true
//! +groupName=strings.corpus.rkb.io

mod widget_types;
pub use widget_types::*;
