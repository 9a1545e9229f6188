//! +groupName=e8.errors.rkb.io

mod types;
pub use types::*;
