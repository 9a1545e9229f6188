//! Package v1 contains API Schema definitions for the tunnels v1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=tunnels.ported.rkb.io

mod json_types;
mod text_types;
mod tunnel_types;
pub use json_types::*;
pub use text_types::*;
pub use tunnel_types::*;
