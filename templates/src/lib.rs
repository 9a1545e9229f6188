//! The scaffold templates, embedded into the `rkb` binary.
