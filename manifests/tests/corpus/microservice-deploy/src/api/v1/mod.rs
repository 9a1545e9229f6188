//! Package v1 contains API Schema definitions for the custom v1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=custom.ops

mod microservicedeploy_types;
pub use microservicedeploy_types::*;
