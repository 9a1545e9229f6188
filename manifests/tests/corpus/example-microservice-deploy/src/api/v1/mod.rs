//! API types of examples/microservice-deploy (file copied verbatim), under a group of its own.
//!
//! +kubebuilder:object:generate=true
//! +groupName=example.custom.ops

pub mod microservicedeploy_types;
pub use microservicedeploy_types::*;
