pub mod air;
pub mod sea;
