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
            eprint!("{}", report(&err));
            ExitCode::FAILURE
        }
    }
}

/// What a failed command prints: one line per error of the chain, like rustc's "caused by" notes: the first line
/// names the problem, the rest say where it came from. Each error's message holds its own context only (the
/// libraries' contract: the cause is `source()`, never part of the message too), so each cause shows once.
fn report(err: &anyhow::Error) -> String {
    let mut text = format!("error: {err}\n");
    for cause in err.chain().skip(1) {
        text.push_str(&format!("  caused by: {cause}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::report;

    /// `rkb manifests` where the CRD directory is a file: rkb-manifests' I/O error, through the command as a user
    /// runs it, names the directory on the error line and gives the OS's reason once, on the line below.
    #[test]
    fn an_io_failure_shows_its_cause_once() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        std::fs::create_dir_all(root.join("config/crd")).unwrap();
        std::fs::write(root.join("config/crd/bases"), "not a directory").unwrap();
        let cli = crate::args::Cli::parse_from([
            "rkb",
            "manifests",
            "--dir",
            &root.display().to_string(),
        ]);

        let err = crate::commands::run(cli).unwrap_err();
        // "Not a directory (os error 20)", as the OS words it.
        let cause = std::io::Error::from_raw_os_error(20).to_string();
        let bases = root.join("config/crd/bases");
        assert_eq!(
            report(&err),
            format!(
                "error: cannot access {}\n  caused by: {cause}\n",
                bases.display()
            )
        );
        let one_line = format!("{err:#}");
        assert_eq!(one_line.matches(&cause).count(), 1, "{one_line}");
    }
}
