//! Package v1beta1 contains API Schema definitions for the sea v1beta1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=sea.multi.corpus.rkb.io

mod harbor_types;
pub use harbor_types::*;
