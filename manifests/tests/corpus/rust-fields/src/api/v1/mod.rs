//! +kubebuilder:object:generate=true
//! +groupName=fields.corpus.rkb.io

mod ledger_types;
pub use ledger_types::*;
