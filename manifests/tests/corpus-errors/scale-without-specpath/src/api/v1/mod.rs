//! +groupName=e6.errors.rkb.io

mod types;
pub use types::*;
