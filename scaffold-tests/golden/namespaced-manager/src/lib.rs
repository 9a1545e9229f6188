//! The app-operator operator: API types in `api`, reconcilers in `controller`.

pub mod api;
pub mod controller;
