//! The webhooks of v2.

pub mod cronjob_webhook;
