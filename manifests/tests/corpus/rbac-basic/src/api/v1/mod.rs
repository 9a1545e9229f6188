//! +kubebuilder:object:generate=true
//! +groupName=rbac-basic.corpus.rkb.io

mod guestbook_types;
pub use guestbook_types::*;
