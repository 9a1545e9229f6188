//! `rkb manifests`: CRDs and RBAC from markers, through rkb-manifests (controller-gen's `crd rbac` for Rust).

use std::process::ExitCode;

use anyhow::Result;
use rkb_manifests::Options;

use crate::args::ManifestsArgs;

pub fn run(args: &ManifestsArgs) -> Result<ExitCode> {
    let root = &args.dir;
    if !root.join("Cargo.toml").is_file() {
        anyhow::bail!(
            "{} holds no Cargo.toml: run rkb manifests in a project (or pass --dir <project>)",
            root.display()
        );
    }
    let opts = Options {
        crd_dir: args.crd_dir.clone(),
        rbac_dir: args.rbac_dir.clone(),
        max_desc_len: args.max_desc_len,
        ..Options::default()
    };
    let output = match rkb_manifests::generate(root, &opts) {
        Ok(output) => output,
        Err(err) => {
            // Diagnostics come rendered rustc-style (file:line:col, source line, caret, hint), all of them.
            eprintln!("{err}");
            return Ok(ExitCode::FAILURE);
        }
    };
    for warning in &output.warnings {
        eprintln!("{}", warning.render());
    }
    if args.check {
        return Ok(match rkb_manifests::check(root, &opts, &output)? {
            None => ExitCode::SUCCESS,
            Some(diff) => {
                print!("{diff}");
                eprintln!(
                    "error: manifests are stale; run `rkb manifests` (or `make manifests`) and commit the result"
                );
                ExitCode::FAILURE
            }
        });
    }
    for path in rkb_manifests::write(root, &opts, &output)? {
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
