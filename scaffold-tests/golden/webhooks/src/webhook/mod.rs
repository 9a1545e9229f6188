//! Admission webhooks, one module per API version (`rkb create webhook`).

pub mod v1;
