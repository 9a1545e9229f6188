//! +kubebuilder:object:generate=true
//! +kubebuilder:validation:Required
//! +groupName=pkgrequired.corpus.rkb.io

mod settings_types;
pub use settings_types::*;
