//! +kubebuilder:object:generate=true
//! +groupName=typelevel.corpus.rkb.io

mod gadget_types;
pub use gadget_types::*;
