//! Package v1 of plain.rkb.example: no deep copy (`object:generate=false`), no client.
//! +kubebuilder:object:generate=false
//! +groupName=plain.rkb.example

mod plain_types;

pub use plain_types::*;
