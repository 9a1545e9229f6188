//! Package v1 of ui.rkb.example: a project tree that only rkb-manifests reads, for trybuild.
//! Each other file here is one compile-fail case (tests/ui.rs), built alone as a binary: the derive
//! finds this tree from the file's path, since trybuild's crate has no `src/api` of its own.
//! +groupName=ui.rkb.example
mod identity_errors;
mod verb_tags;
