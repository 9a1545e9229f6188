pub mod api;
pub mod webhook;
