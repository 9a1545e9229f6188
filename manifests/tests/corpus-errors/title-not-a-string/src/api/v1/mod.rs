//! +groupName=e18.errors.rkb.io

mod report_types;
pub use report_types::*;
