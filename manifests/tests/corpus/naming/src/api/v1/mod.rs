//! +kubebuilder:object:generate=true
//! +groupName=naming.corpus.rkb.io

mod kinds;
pub use kinds::*;
