// Copyright 2026 The cluster-provisioner Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The external provisioner: a command run as `<command> up <configPath>` and `<command> remove <configPath>`
//! (the seed runs `rke up --config <path>` and `rke remove --force --config <path>`; a two-line wrapper script maps
//! one form to the other). hack/fake-rke.sh is a harmless stand-in that only logs its arguments.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

/// At most this much of the command's output goes into an error (and from there into a condition and an Event).
const OUTPUT_TAIL: usize = 600;

/// Runs the provisioner command.
#[derive(Clone, Debug)]
pub struct Provisioner {
    command: PathBuf,
    timeout: Duration,
}

/// A provisioner run that did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ProvisionerError {
    /// The command could not be started (not found, not executable).
    #[error("cannot run {command}")]
    Spawn {
        /// The command.
        command: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The command ran and failed.
    #[error("`{command} {verb} {config_path}` failed ({status}): {output}")]
    Failed {
        /// The command.
        command: String,
        /// `up` or `remove`.
        verb: &'static str,
        /// Its argument.
        config_path: String,
        /// How it ended.
        status: std::process::ExitStatus,
        /// The end of what it printed (stderr, or stdout when stderr is empty).
        output: String,
    },
    /// The command ran longer than the timeout and was killed.
    #[error("`{command} {verb} {config_path}` did not finish within {timeout:?}; killed")]
    Timeout {
        /// The command.
        command: String,
        /// `up` or `remove`.
        verb: &'static str,
        /// Its argument.
        config_path: String,
        /// The limit.
        timeout: Duration,
    },
}

impl Provisioner {
    /// Runs `command`; each run is killed after `timeout`.
    pub fn new(command: impl Into<PathBuf>, timeout: Duration) -> Self {
        Self {
            command: command.into(),
            timeout,
        }
    }

    /// The command this provisioner runs.
    pub fn command(&self) -> &std::path::Path {
        &self.command
    }

    /// Provisions (or updates) the cluster that `config_path` describes. Must be idempotent, as `rke up` is: it runs
    /// again after a failure and whenever the spec changes.
    pub async fn up(&self, config_path: &str) -> Result<(), ProvisionerError> {
        self.run("up", config_path).await
    }

    /// Tears down the cluster that `config_path` describes.
    pub async fn remove(&self, config_path: &str) -> Result<(), ProvisionerError> {
        self.run("remove", config_path).await
    }

    async fn run(&self, verb: &'static str, config_path: &str) -> Result<(), ProvisionerError> {
        let command = self.command.display().to_string();
        let child = tokio::process::Command::new(&self.command)
            .arg(verb)
            .arg(config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A timed-out (dropped) run must not outlive us.
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| ProvisionerError::Spawn {
                command: command.clone(),
                source,
            })?;
        let output = match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Err(_) => {
                return Err(ProvisionerError::Timeout {
                    command,
                    verb,
                    config_path: config_path.to_string(),
                    timeout: self.timeout,
                });
            }
            Ok(Err(source)) => return Err(ProvisionerError::Spawn { command, source }),
            Ok(Ok(output)) => output,
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            tracing::info!(%command, verb, config_path, output = %stdout.trim(), "provisioner succeeded");
            return Ok(());
        }
        let printed = if stderr.trim().is_empty() {
            stdout
        } else {
            stderr
        };
        Err(ProvisionerError::Failed {
            command,
            verb,
            config_path: config_path.to_string(),
            status: output.status,
            output: tail(printed.trim(), OUTPUT_TAIL),
        })
    }
}

/// The last `max` bytes of `s` (on a char boundary), marked when cut.
fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &s[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end_on_a_char_boundary() {
        assert_eq!(tail("short", 10), "short");
        assert_eq!(tail("abcdef", 3), "...def");
        assert_eq!(tail("aé", 1), "...");
    }

    fn fake_rke() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/hack/fake-rke.sh"))
    }

    #[tokio::test]
    async fn runs_the_command_and_reports_its_failure() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("cluster.yml");
        std::fs::write(&config, "nodes: []\n").unwrap();
        let config = config.to_str().unwrap();
        let p = Provisioner::new(fake_rke(), Duration::from_secs(30));

        p.up(config).await.unwrap();
        std::fs::write(format!("{config}.fail-remove"), "").unwrap();
        let err = p.remove(config).await.unwrap_err();
        assert!(
            matches!(err, ProvisionerError::Failed { verb: "remove", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("told to fail"), "{err}");

        let log = std::fs::read_to_string(dir.path().join("fake-rke.log")).unwrap();
        let verbs: Vec<_> = log
            .lines()
            .map(|l| l.split(' ').skip(1).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(
            verbs,
            [format!("up {config} ok"), format!("remove {config} failed")]
        );
    }

    #[tokio::test]
    async fn a_missing_command_is_a_spawn_error() {
        let p = Provisioner::new("/nonexistent/rke", Duration::from_secs(5));
        assert!(matches!(
            p.up("/x").await,
            Err(ProvisionerError::Spawn { .. })
        ));
    }

    #[tokio::test]
    async fn a_hanging_command_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("cluster.yml");
        std::fs::write(&config, "nodes: []\n").unwrap();
        std::fs::write(dir.path().join("cluster.yml.hang-up"), "").unwrap();
        let p = Provisioner::new(fake_rke(), Duration::from_millis(500));
        let err = p.up(config.to_str().unwrap()).await.unwrap_err();
        assert!(matches!(err, ProvisionerError::Timeout { .. }), "{err}");
    }
}
