// Copyright 2026 The demo Authors.
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

//! Commands the e2e test runs (kubectl, make, curl), each from the project's directory, each failure with the
//! command and what it printed.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result, bail};

/// Prints a step of the test, as it goes (run with `--nocapture` to see them).
pub fn step(what: &str) {
    println!("STEP: {what}");
}

/// Runs `command` in the project's directory and returns its stdout; fails with its stderr.
pub fn run(command: &mut Command) -> Result<String> {
    run_with_input(command, None)
}

/// [`run`] with `input` written to the command's stdin.
pub fn run_with_input(command: &mut Command, input: Option<&str>) -> Result<String> {
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {shown}"))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(input.as_bytes())
            .with_context(|| format!("writing the input of {shown}"))?;
    }
    let output = child
        .wait_with_output()
        .with_context(|| format!("running {shown}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        bail!(
            "{shown} failed ({}):\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(stdout)
}

/// kubectl (`KUBECTL` if set) with `args`, against `kubeconfig` or else the current context.
pub fn kubectl(kubeconfig: Option<&Path>, args: &[&str]) -> Result<String> {
    kubectl_with_input(kubeconfig, args, None)
}

/// [`kubectl`] with `input` on its stdin (`-f -`).
pub fn kubectl_with_input(
    kubeconfig: Option<&Path>,
    args: &[&str],
    input: Option<&str>,
) -> Result<String> {
    let mut command =
        Command::new(std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".to_string()));
    // Your ~/.kube/kuberc (aliases, default flags) would change what these commands do, unless you ask for it.
    if std::env::var_os("KUBECTL_KUBERC").is_none() {
        command.env("KUBECTL_KUBERC", "false");
    }
    if let Some(kubeconfig) = kubeconfig {
        command.arg("--kubeconfig").arg(kubeconfig);
    }
    run_with_input(command.args(args), input)
}

/// make (`MAKE` if set, as inside `make test-e2e`) with `args`.
pub fn make(args: &[&str]) -> Result<String> {
    run(Command::new(std::env::var("MAKE").unwrap_or_else(|_| "make".to_string())).args(args))
}

/// An HTTP answer as curl reports it.
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// The curl arguments of one HTTPS `GET url` with a bearer token; the output is the body, then a line with the
/// status. `-k`: the manager's metrics certificate is self-signed unless cert-manager provides one. curl retries
/// while the server is not listening yet, so a pod that runs it once is enough.
pub fn curl_args(url: &str, token: &str) -> Vec<String> {
    let bearer = format!("Authorization: Bearer {token}");
    [
        "-sS",
        "-k",
        "--retry",
        "20",
        "--retry-connrefused",
        "--retry-delay",
        "1",
        "-w",
        "\n%{http_code}",
        "-H",
        &bearer,
        url,
    ]
    .map(str::to_string)
    .to_vec()
}

/// Reads what [`curl_args`] make curl print.
pub fn parse_curl_output(output: &str) -> Result<Response> {
    let (body, status) = output.rsplit_once('\n').unwrap_or(("", output));
    let status = status
        .trim()
        .parse()
        .with_context(|| format!("no HTTP status at the end of curl's output:\n{output}"))?;
    Ok(Response {
        status,
        body: body.to_string(),
    })
}
