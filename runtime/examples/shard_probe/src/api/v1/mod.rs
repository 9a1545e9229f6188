//! API types of probe.rkb.dev v1.
//!
//! +kubebuilder:object:generate=true
//! +groupName=probe.rkb.dev

pub mod probe_types;
pub use probe_types::*;
