//! Package v1alpha1 contains API Schema definitions for the fleet v1alpha1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=fleet.ported.rkb.io

mod machine_types;
mod pool_types;
mod site_types;
pub use machine_types::*;
pub use pool_types::*;
pub use site_types::*;
