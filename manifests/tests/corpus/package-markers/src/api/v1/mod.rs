//! Package v1 is published under a different version name than its directory.
//! +kubebuilder:object:generate=true
//! +groupName=pkgmarkers.corpus.rkb.io
//! +versionName=v2beta1

mod note_types;
pub use note_types::*;
