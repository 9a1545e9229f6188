//! Package v1 contains the test kinds of the testing v1 API group.
//! +kubebuilder:object:generate=true
//! +groupName=testing.rkb.example

mod gadget_types;
mod sensor_types;
mod widget_types;

pub use gadget_types::*;
pub use sensor_types::*;
pub use widget_types::*;
