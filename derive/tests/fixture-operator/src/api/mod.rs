//! API groups of the fixture.

pub mod clusterprovisioner;
pub mod testing;
