//! +groupName=e16.errors.rkb.io

mod mirror_types;
pub use mirror_types::*;
