pub mod sea;
pub mod ship;
