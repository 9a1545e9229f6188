//! A local control plane to run an operator against by hand: etcd, kube-apiserver and
//! kube-controller-manager (namespace deletion, owner-reference garbage collection, service
//! accounts) from rkb-envtest, with CRDs installed and an admin kubeconfig written.
//!
//! ```sh
//! cargo run -p rkb-envtest --example local_control_plane -- [--crd-dir DIR]... [--kubeconfig PATH]
//! ```
//!
//! It prints `export KUBECONFIG=<path>` and runs until Ctrl-C (or SIGTERM), then stops every
//! process, deletes its data and removes the kubeconfig it wrote. There are no nodes: pods stay
//! Pending, and Deployments get no ReplicaSets (no deployment controller runs), but every API
//! object, watch, finalizer and garbage-collector cascade behaves as in a cluster.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rkb_envtest::Environment;

const USAGE: &str = "usage: local_control_plane [--crd-dir DIR]... [--kubeconfig PATH]

  --crd-dir DIR      install the CRDs in DIR/*.yaml (repeatable), e.g. config/crd/bases
  --kubeconfig PATH  where to write the admin kubeconfig
                     (default: $TMPDIR/rkb-local-control-plane.kubeconfig)";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

struct Args {
    crd_dirs: Vec<PathBuf>,
    kubeconfig: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut crd_dirs = Vec::new();
    let mut kubeconfig = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
            None => (arg, None),
        };
        let mut value = |flag: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--crd-dir" => crd_dirs.push(PathBuf::from(value("--crd-dir")?)),
            "--kubeconfig" => kubeconfig = Some(PathBuf::from(value("--kubeconfig")?)),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let kubeconfig = kubeconfig
        .unwrap_or_else(|| std::env::temp_dir().join("rkb-local-control-plane.kubeconfig"));
    Ok(Args {
        crd_dirs,
        kubeconfig,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}\n");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), BoxError> {
    // Relative paths are taken from where the command runs, and the printed one must work from
    // any other terminal.
    let cwd = std::env::current_dir()?;
    let kubeconfig = cwd.join(&args.kubeconfig);

    eprintln!("starting etcd, kube-apiserver and kube-controller-manager...");
    let mut builder = Environment::builder().with_controller_manager();
    for dir in &args.crd_dirs {
        builder = builder.crd_dir(cwd.join(dir));
    }
    let env = builder.start().await?;

    // The environment's own kubeconfig lives in its temp dir; a copy at a known path survives
    // nothing longer but is easy to point at.
    write_kubeconfig(env.kubeconfig_path(), &kubeconfig)?;
    eprintln!("API server:  {}", env.server_url());
    eprintln!("logs:        {}/*.log", env.dir().display());
    for dir in &args.crd_dirs {
        eprintln!("CRDs from:   {}", dir.display());
    }
    eprintln!("\nIn another terminal:");
    println!("export KUBECONFIG={}", kubeconfig.display());
    eprintln!("\nPress Ctrl-C to stop.");

    let stopped_by = wait_for_stop_signal().await?;
    eprintln!("\n{stopped_by}: stopping the control plane...");
    // Remove the kubeconfig first: it points at a server about to disappear.
    if let Err(e) = std::fs::remove_file(&kubeconfig) {
        eprintln!("warning: cannot remove {}: {e}", kubeconfig.display());
    }
    env.stop().await?;
    eprintln!("stopped");
    Ok(())
}

/// Copies the kubeconfig, owner-readable only: it holds the admin's private key.
fn write_kubeconfig(from: &Path, to: &Path) -> Result<(), BoxError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let text = std::fs::read_to_string(from)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(to)?, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    Ok(())
}

/// Waits for Ctrl-C (SIGINT) or, on Unix, SIGTERM; returns which one came.
async fn wait_for_stop_signal() -> Result<&'static str, BoxError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.map(|()| "interrupted").map_err(Into::into),
            _ = term.recv() => Ok("terminated"),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await?;
        Ok("interrupted")
    }
}
