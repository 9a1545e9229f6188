//! API groups and versions served by this operator (`rkb create api` adds them).

pub mod v1alpha1;
// rkb:scaffold:api-modules
