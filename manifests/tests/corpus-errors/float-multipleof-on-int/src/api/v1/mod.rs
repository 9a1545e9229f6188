//! +groupName=e15.errors.rkb.io

mod types;
pub use types::*;
