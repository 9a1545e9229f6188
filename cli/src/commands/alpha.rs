//! `rkb alpha generate` and `rkb alpha update`: bringing a project forward when rkb's scaffolds improve, as
//! kubebuilder's commands of the same names do.
//!
//! Both rebuild the project's scaffold from its PROJECT by running rkb's ordinary commands again (`replay`): init,
//! every `create api`, every `create webhook`, `manifests`. Replaying through the command line rather than an rkb
//! library call is what lets `alpha update` build the merge's ancestor with an older rkb release, whose binary knows
//! these commands but not `alpha generate`.

mod dependencies;
pub mod generate;
mod git;
mod replay;
pub mod update;
