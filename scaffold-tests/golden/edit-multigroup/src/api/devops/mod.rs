//! The devops modules.

pub mod v1;
pub mod v2;
// rkb:scaffold:api-modules
