//! +groupName=e12.errors.rkb.io

mod types;
pub use types::*;
