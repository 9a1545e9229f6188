//! +groupName=e10.errors.rkb.io

mod types;
pub use types::*;
