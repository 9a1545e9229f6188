//! Package v1 has a package doc that does not reach the CRD.
//! +kubebuilder:object:generate=true
//! +groupName=docs.corpus.rkb.io

mod manual_types;
pub use manual_types::*;
