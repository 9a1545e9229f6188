//! +kubebuilder:object:generate=true
//! +groupName=resources.corpus.rkb.io

mod ingress_types;
mod policy_types;
mod proxy_types;
pub use ingress_types::*;
pub use policy_types::*;
pub use proxy_types::*;
