//! One control plane process: spawned so that it cannot outlive the test, logged to a file, and
//! killed (its whole process group) when dropped.
//!
//! Two layers keep processes from being orphaned:
//! - `Drop` kills the process group with SIGKILL and reaps it. That covers normal ends, `?`
//!   errors and panics that unwind.
//! - When the test process dies without unwinding (SIGKILL, `panic = "abort"`, a timeout killing
//!   the test binary), the kernel sends SIGKILL to each child through `PR_SET_PDEATHSIG`. Setting
//!   that needs code between fork and exec (`pre_exec`, which is `unsafe` and forbidden in this
//!   workspace), so the child is started through util-linux's `setpriv --pdeathsig KILL`, which
//!   sets it and then execs the binary (the flag survives exec). The death signal follows the
//!   *thread* that forked, so all spawns go through one thread that lives as long as the process.
//!   Without `setpriv` the first layer still applies; a debug log says so.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result, io_err};

/// How many trailing log lines go into an error.
const TAIL_LINES: usize = 30;

pub(crate) struct Process {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    child: Child,
    log: PathBuf,
    reaped: bool,
}

impl Process {
    /// Starts `program args...` with stdout and stderr appended to `log`.
    pub(crate) fn spawn(
        name: &'static str,
        program: &Path,
        args: &[String],
        log: PathBuf,
    ) -> Result<Self> {
        Self::spawn_with_env(name, program, args, &[], log)
    }

    /// [`Self::spawn`] with these variables added to the inherited environment.
    pub(crate) fn spawn_with_env(
        name: &'static str,
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        log: PathBuf,
    ) -> Result<Self> {
        // Append: a restarted process continues the same log.
        let out = File::options()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(io_err(&log))?;
        let err = out.try_clone().map_err(io_err(&log))?;
        let mut cmd = match setpriv() {
            Some(setpriv) => {
                let mut cmd = Command::new(setpriv);
                cmd.args(["--pdeathsig", "KILL", "--"]).arg(program);
                cmd
            }
            None => Command::new(program),
        };
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            // Own process group: killpg reaches anything the binary forks, and a Ctrl-C meant for
            // the test runner does not race our own shutdown.
            .process_group(0);
        let child = spawn_from_long_lived_thread(cmd).map_err(|source| Error::Spawn {
            binary: name,
            path: program.to_path_buf(),
            source,
        })?;
        tracing::debug!(binary = name, pid = child.id(), log = %log.display(), "started");
        Ok(Self {
            name,
            program: program.to_path_buf(),
            args: args.to_vec(),
            env: env.to_vec(),
            child,
            log,
            reaped: false,
        })
    }

    /// The same binary with the same flags, variables and log, started anew.
    pub(crate) fn respawn(&self) -> Result<Self> {
        Self::spawn_with_env(
            self.name,
            &self.program,
            &self.args,
            &self.env,
            self.log.clone(),
        )
    }

    /// SIGTERM to the process group, SIGKILL if it has not exited within `grace`.
    pub(crate) async fn terminate(&mut self, grace: Duration) {
        if self.reaped {
            return;
        }
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                self.reaped = true;
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.kill();
    }

    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn log_path(&self) -> &Path {
        &self.log
    }

    /// `Err(Exited)` with the log tail when the process is no longer running.
    pub(crate) fn ensure_running(&mut self) -> Result<()> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => {
                self.reaped = true;
                Err(self.exited(status.to_string()))
            }
            Err(e) => Err(self.exited(format!("unknown: {e}"))),
        }
    }

    fn exited(&self, status: String) -> Error {
        Error::Exited {
            binary: self.name,
            status,
            log: self.log.clone(),
            log_tail: self.log_tail(),
        }
    }

    /// The last lines the process printed.
    pub(crate) fn log_tail(&self) -> String {
        tail(&self.log, TAIL_LINES).unwrap_or_else(|e| format!("(log unreadable: {e})"))
    }

    /// SIGKILL to the process group, then reap. Idempotent. The control plane's state lives in a
    /// temp dir that is deleted next, so a graceful shutdown would only cost time.
    pub(crate) fn kill(&mut self) {
        if self.reaped {
            return;
        }
        let pid = rustix::process::Pid::from_child(&self.child);
        // ESRCH means it is gone already; wait() below reaps it either way.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.reaped = true;
        tracing::debug!(binary = self.name, "stopped");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `setpriv` when it is installed and supports `--pdeathsig` (util-linux >= 2.33).
fn setpriv() -> Option<&'static Path> {
    static SETPRIV: OnceLock<Option<PathBuf>> = OnceLock::new();
    SETPRIV
        .get_or_init(|| {
            let path = std::env::var_os("PATH")?;
            let found = std::env::split_paths(&path)
                .map(|d| d.join("setpriv"))
                .find(|p| p.is_file())?;
            let works = Command::new(&found)
                .args(["--pdeathsig", "KILL", "--", "true"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !works {
                tracing::debug!(
                    "setpriv --pdeathsig unavailable: control plane processes are only killed on drop"
                );
            }
            works.then_some(found)
        })
        .as_deref()
}

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Spawns `cmd` from a thread that never exits, so the parent-death signal fires only when the
/// whole test process dies (not when, say, a tokio worker thread or a test thread ends).
fn spawn_from_long_lived_thread(cmd: Command) -> std::io::Result<Child> {
    static SPAWNER: OnceLock<std::io::Result<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("rkb-envtest-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .map(|_| tx)
    });
    let spawner = spawner
        .as_ref()
        .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
    let (reply_tx, reply_rx) = mpsc::channel();
    let gone = || std::io::Error::other("the envtest spawner thread is gone");
    spawner.send((cmd, reply_tx)).map_err(|_| gone())?;
    reply_rx.recv().map_err(|_| gone())?
}

/// The last `lines` lines of a file, reading at most its last 64 KiB.
fn tail(path: &Path, lines: usize) -> std::io::Result<String> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    let start = len.saturating_sub(64 * 1024);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    // The first line may be cut by the 64 KiB window; drop it unless it is the file start.
    let from = if start > 0 && from == 0 { 1 } else { from };
    Ok(all.get(from..).unwrap_or_default().join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&path, text).unwrap();
        assert_eq!(tail(&path, 3).unwrap(), "line 98\nline 99\nline 100");
    }

    #[test]
    fn dropping_kills_the_process() {
        let dir = tempfile::tempdir().unwrap();
        let p = Process::spawn(
            "sleep",
            Path::new("/bin/sleep"),
            &["600".into()],
            dir.path().join("log"),
        )
        .unwrap();
        let pid = rustix::process::Pid::from_child(&p.child);
        drop(p);
        // Reaped and gone: signalling it fails with ESRCH.
        assert!(rustix::process::test_kill_process(pid).is_err());
    }

    #[test]
    fn an_exited_process_reports_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Process::spawn(
            "sh",
            Path::new("/bin/sh"),
            &["-c".into(), "echo boom-from-child >&2; exit 3".into()],
            dir.path().join("log"),
        )
        .unwrap();
        let err = loop {
            match p.ensure_running() {
                Ok(()) => std::thread::sleep(std::time::Duration::from_millis(10)),
                Err(e) => break e.to_string(),
            }
        };
        assert!(err.contains("boom-from-child"), "{err}");
        assert!(err.contains("exit status: 3"), "{err}");
    }
}
