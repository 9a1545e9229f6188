//! +kubebuilder:object:generate=true
//! +groupName=batch.example.com

mod appservice_types;
pub use appservice_types::*;
