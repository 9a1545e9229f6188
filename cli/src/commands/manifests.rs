//! `rkb manifests`: CRDs and RBAC from markers, through rkb-manifests.

use std::process::ExitCode;

use anyhow::Result;

use crate::args::ManifestsArgs;

pub fn run(args: &ManifestsArgs) -> Result<ExitCode> {
    let _ = args;
    anyhow::bail!("rkb manifests is being wired to rkb-manifests")
}
