//! API types of batch.example.com v1alpha1.
//!
//! +kubebuilder:object:generate=true
//! +groupName=batch.example.com

pub mod appservice_types;
pub use appservice_types::*;
// rkb:scaffold:types
