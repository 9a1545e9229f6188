//! The crate root rkb reads (cargo never builds this tree: trybuild compiles each case alone).
pub mod api;
