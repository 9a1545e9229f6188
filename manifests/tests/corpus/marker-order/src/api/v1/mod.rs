//! +kubebuilder:object:generate=true
//! +groupName=order.corpus.rkb.io

mod queue_types;
pub use queue_types::*;
