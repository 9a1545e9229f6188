//! The webhooks of v1.

pub mod pod_webhook;
