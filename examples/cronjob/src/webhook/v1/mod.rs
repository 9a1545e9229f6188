//! The webhooks of v1.

pub mod cronjob_webhook;
