//! Scaffolding: render templates into a [`Plan`] of file changes, validate everything, then commit the plan.
//!
//! Nothing touches the disk before the whole plan is known, so a command that fails leaves the project as it was.

mod format;
mod insert;
mod plan;
mod render;

pub use insert::{insert_before_marker, insert_block_before_marker};
pub use plan::Plan;
pub use render::Renderer;
