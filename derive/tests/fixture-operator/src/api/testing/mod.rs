//! The testing.rkb.example group: kinds that exercise every client-gen tag.

pub mod v1;
