pub mod fleet;
pub mod net;
