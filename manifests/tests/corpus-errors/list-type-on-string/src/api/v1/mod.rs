//! +groupName=e3.errors.rkb.io

mod types;
pub use types::*;
