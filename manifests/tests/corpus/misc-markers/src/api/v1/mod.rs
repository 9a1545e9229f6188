//! +kubebuilder:object:generate=true
//! +groupName=misc.corpus.rkb.io

mod vault_types;
pub use vault_types::*;
