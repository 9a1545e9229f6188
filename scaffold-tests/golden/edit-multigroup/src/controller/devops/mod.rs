//! The devops modules.

pub mod demomicroservice_controller;
// rkb:scaffold:controller-modules
