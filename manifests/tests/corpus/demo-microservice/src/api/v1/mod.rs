//! Package v1 contains API Schema definitions for the devops v1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=devops.my.domain

mod demomicroservice_types;
pub use demomicroservice_types::*;
