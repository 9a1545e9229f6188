//! +groupName=e1.errors.rkb.io

mod types;
pub use types::*;
