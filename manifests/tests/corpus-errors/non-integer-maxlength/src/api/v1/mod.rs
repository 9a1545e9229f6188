//! +groupName=e14.errors.rkb.io

mod types;
pub use types::*;
