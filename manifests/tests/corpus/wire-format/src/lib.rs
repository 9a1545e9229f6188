pub mod api;
pub mod window_json;
