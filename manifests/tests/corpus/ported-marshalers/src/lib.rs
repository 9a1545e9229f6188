pub mod api;
mod wire;
