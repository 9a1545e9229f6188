//! +kubebuilder:object:generate=true
//! +groupName=k8smarkers.corpus.rkb.io

mod jobrunner_types;
pub use jobrunner_types::*;
