//! +groupName=e7.errors.rkb.io

mod types;
pub use types::*;
