//! The webhooks of devops.

pub mod v1;
