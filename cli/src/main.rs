//! `rkb`: kubebuilder's workflow for Rust operators.

mod args;
mod civil;
mod commands;
mod names;
mod project_config;
mod scaffold;

use std::process::ExitCode;

use clap::Parser;

// `rkb manifests` allocates many small syntax-tree and schema nodes on every core at once; with glibc's
// allocator a fifth of the run went to malloc/free and its arena locks (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // One line per cause, like rustc's "caused by" notes: the first line names the problem,
            // the rest say where it came from.
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}
