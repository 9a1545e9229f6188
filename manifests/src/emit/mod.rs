//! Stages 6 and 7, generate and write: the documents of a checked run and the files they go to. `crd_document`
//! assembles each CRD and `yaml` prints it in controller-gen's key order and quoting; `rbac` merges the RBAC
//! markers into roles and `webhook` the webhook markers into configurations. None of them can fail. `output`
//! writes what changed all or nothing (`write`, shared with the scaffolding commands), or diffs it (`--check`).

pub mod crd_document;
pub mod output;
pub mod rbac;
pub mod webhook;
pub mod write;
pub mod yaml;
