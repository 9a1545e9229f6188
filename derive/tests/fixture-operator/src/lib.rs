//! A fixture operator project for rkb-derive's tests: API types under `src/api/<group>/<version>`
//! (multigroup layout), read by `#[derive(Kind)]` through rkb-manifests with this crate as root.

pub mod api;
