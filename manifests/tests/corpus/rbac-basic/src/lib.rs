pub mod api;
pub mod controller;
