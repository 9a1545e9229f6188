//! +groupName=e5.errors.rkb.io

mod types;
pub use types::*;
