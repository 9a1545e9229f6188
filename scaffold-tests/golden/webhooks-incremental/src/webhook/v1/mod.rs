//! The webhooks of v1.

pub mod demomicroservice_webhook;
