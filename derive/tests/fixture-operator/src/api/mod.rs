//! API groups of the fixture.

pub mod clusterprovisioner;
pub mod plain;
pub mod testing;
