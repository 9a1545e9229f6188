//! Controllers, one per kind (`rkb create api` adds them).

pub mod appservice_controller;
// rkb:scaffold:controller-modules
