//! Package v1 contains API Schema definitions for the upgrades v1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=upgrades.ported.rkb.io

mod upgrade_types;
pub use upgrade_types::*;
