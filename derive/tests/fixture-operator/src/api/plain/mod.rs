//! The plain.rkb.example group: a package that turns deep copy generation off.

pub mod v1;
