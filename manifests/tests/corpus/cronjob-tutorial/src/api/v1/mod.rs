//! +kubebuilder:object:generate=true
//! +groupName=batch.tutorial.kubebuilder.io

mod cronjob_types;
pub use cronjob_types::*;
