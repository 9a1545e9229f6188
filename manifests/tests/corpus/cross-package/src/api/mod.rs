pub mod shared;
pub mod v1;
