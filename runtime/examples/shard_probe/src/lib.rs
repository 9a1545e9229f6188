//! The probe's API laid out as in an rkb project, for `#[derive(Kind)]`: the derive reads the kinds of the project
//! whose `src/api` holds the deriving file (here runtime/examples/shard_probe), starting from this crate root, as
//! `rkb manifests` would. Cargo never builds this file: the example (`../../shard_probe.rs`) and the test
//! (`runtime/tests/sharding.rs`) compile `src/api` through a `#[path]` module.

pub mod api;
