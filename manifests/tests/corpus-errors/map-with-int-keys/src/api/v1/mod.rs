//! +groupName=e11.errors.rkb.io

mod types;
pub use types::*;
