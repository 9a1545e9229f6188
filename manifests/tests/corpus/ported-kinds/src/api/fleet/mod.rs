pub mod internal;
pub mod v1alpha1;
