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

//! The manager without a cluster: a local control plane (envtest's etcd and kube-apiserver), config/default applied
//! to it as `make deploy` applies it to a cluster, and this crate's manager binary running as a process with the
//! flags and environment of the Deployment's manager container and a token of its ServiceAccount, so the project's
//! RBAC is what it runs under and its metrics server checks tokens against this API server. Nothing here needs a
//! container runtime, nodes or a Service network.

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::core::v1::Container;
use rkb_runtime::envtest::{Environment, OperatorProcess, WebhookServer, eventually};

use crate::utils::{self, Response, kubectl, kubectl_with_input, parse_curl_output};
use crate::{NAMESPACE, SERVICE_ACCOUNT, TIMEOUT};

/// The manager binary cargo built for this test.
const MANAGER_BINARY: &str = env!("CARGO_BIN_EXE_demo");
/// The Deployment config/default creates, and the jsonpath of its manager container.
const MANAGER_DEPLOYMENT: &str = "deployment/demo-controller-manager";
const MANAGER_CONTAINER: &str =
    r#"jsonpath={.spec.template.spec.containers[?(@.name=="manager")]}"#;

pub struct Local {
    /// Checked on every poll, so a crash fails the test at once with the manager's last words.
    manager: Mutex<OperatorProcess>,
    metrics_port: u16,
    probe_port: u16,
    /// Last: the control plane stops after the manager.
    env: Environment,
}

impl Local {
    pub async fn deploy() -> Result<Self> {
        utils::step(
            "starting a local control plane (etcd and kube-apiserver from KUBEBUILDER_ASSETS)",
        );
        let env = Environment::builder().start().await?;
        let admin = Some(env.kubeconfig_path());
        utils::step("applying config/default, but for what needs a cluster to work");
        let rendered = kubectl(None, &["kustomize", "config/default"])?;
        let objects: Vec<&str> = rendered
            .split("\n---\n")
            .filter(|document| !needs_a_cluster(document))
            .collect();
        kubectl_with_input(
            admin,
            &["apply", "--server-side", "-f", "-"],
            Some(&objects.join("\n---\n")),
        )?;
        if rendered.contains("\nkind: CustomResourceDefinition\n") {
            kubectl(
                admin,
                &[
                    "wait",
                    "--for=condition=Established",
                    "crd",
                    "--all",
                    "--timeout=60s",
                ],
            )?;
        }

        // The Deployment is applied (nothing runs its pods here): its manager container says how to run the binary.
        let container = kubectl(
            admin,
            &[
                "get",
                MANAGER_DEPLOYMENT,
                "-n",
                NAMESPACE,
                "-o",
                MANAGER_CONTAINER,
            ],
        )?;
        let container: Container =
            serde_json::from_str(&container).context("the Deployment's manager container")?;
        let (metrics_port, probe_port) = (free_port()?, free_port()?);
        let mut listeners = vec![
            format!("--metrics-bind-address=127.0.0.1:{metrics_port}"),
            format!("--health-probe-bind-address=127.0.0.1:{probe_port}"),
        ];
        if let Some(webhooks) = install_webhooks(&env).await? {
            listeners.push(format!("--webhook-port={}", webhooks.port));
            listeners.push(format!(
                "--webhook-cert-path={}",
                webhooks.cert_dir.display()
            ));
        }
        let args = pod_args(&container, listeners);
        let variables = pod_env(&container)?;
        let variables: Vec<(&str, &str)> = variables
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        utils::step(&format!(
            "starting the manager binary with {args:?} as the ServiceAccount {NAMESPACE}/{SERVICE_ACCOUNT}"
        ));
        let manager = env
            .spawn_as_service_account(
                (NAMESPACE, SERVICE_ACCOUNT),
                "manager",
                Path::new(MANAGER_BINARY),
                &args,
                &variables,
            )
            .await?;
        Ok(Self {
            manager: Mutex::new(manager),
            metrics_port,
            probe_port,
            env,
        })
    }

    /// The control plane's admin kubeconfig.
    pub fn kubeconfig(&self) -> &Path {
        self.env.kubeconfig_path()
    }

    /// Waits until the manager's readiness probe answers, as the kubelet would.
    pub async fn wait_ready(&self) -> Result<()> {
        let readyz = format!("http://127.0.0.1:{}/readyz", self.probe_port);
        eventually("the manager's /readyz answers", TIMEOUT, || async {
            self.manager
                .lock()
                .expect("not poisoned")
                .ensure_running()?;
            Ok::<_, anyhow::Error>(
                utils::run(std::process::Command::new("curl").args(["-fsS", &readyz])).ok(),
            )
        })
        .await?;
        Ok(())
    }

    pub fn scrape_metrics(&self, token: &str) -> Result<Response> {
        self.manager
            .lock()
            .expect("not poisoned")
            .ensure_running()?;
        let url = format!("https://127.0.0.1:{}/metrics", self.metrics_port);
        parse_curl_output(&utils::run(
            std::process::Command::new("curl").args(utils::curl_args(&url, token)),
        )?)
    }

    pub fn report(&self) {
        let manager = self.manager.lock().expect("not poisoned");
        println!(
            "last lines of the manager's log ({}):\n{}",
            manager.log_path().display(),
            manager.log_tail()
        );
    }

    pub fn stop(self) {
        self.manager.into_inner().expect("not poisoned").kill();
    }
}

/// What config/default holds that would not work here: the webhook configurations (they call a Service;
/// [`install_webhooks`] installs copies that call the process) and cert-manager's objects (no cert-manager here).
fn needs_a_cluster(document: &str) -> bool {
    document.lines().any(|line| {
        matches!(
            line,
            "kind: MutatingWebhookConfiguration" | "kind: ValidatingWebhookConfiguration"
        ) || line.starts_with("apiVersion: cert-manager.io/")
    })
}

/// The container's `command` arguments after the binary and its `args`, with the listeners given here instead of
/// the pod's (written as `--flag=value`, as config/ writes them).
fn pod_args(container: &Container, listeners: Vec<String>) -> Vec<String> {
    let replaced = |arg: &String| {
        listeners
            .iter()
            .any(|own| own.split('=').next() == arg.split('=').next())
    };
    let command = container.command.iter().flatten().skip(1);
    let args = container.args.iter().flatten();
    command
        .chain(args)
        .filter(|arg| !replaced(arg))
        .cloned()
        .chain(listeners.iter().cloned())
        .collect()
}

/// The container's environment variables: their values, and the pod's namespace or name where they come from those.
fn pod_env(container: &Container) -> Result<Vec<(String, String)>> {
    let mut variables = Vec::new();
    for variable in container.env.iter().flatten() {
        let field = variable
            .value_from
            .as_ref()
            .and_then(|from| from.field_ref.as_ref())
            .map(|field| field.field_path.as_str());
        let value = match (&variable.value, field) {
            (Some(value), _) => value.clone(),
            (None, Some("metadata.namespace")) => NAMESPACE.to_string(),
            (None, Some("metadata.name")) => format!("{SERVICE_ACCOUNT}-local"),
            (None, None) => String::new(),
            (None, Some(other)) => bail!(
                "env {}: cannot run the manager locally with a value from {other}",
                variable.name
            ),
        };
        variables.push((variable.name.clone(), value));
    }
    Ok(variables)
}

/// When the project serves webhooks (config/webhook, from `rkb create webhook`): its webhook configurations, and the
/// conversion of every CRD that converts by webhook, pointed at a certificate and port for the manager to serve.
async fn install_webhooks(env: &Environment) -> Result<Option<WebhookServer>> {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/webhook");
    if !config.exists() {
        return Ok(None);
    }
    // A conversion webhook alone writes no manifests.yaml.
    let manifests = config.join("manifests.yaml");
    let manifests = match manifests.exists() {
        true => std::fs::read_to_string(&manifests)
            .with_context(|| format!("reading {}", manifests.display()))?,
        false => String::new(),
    };
    let server = env.install_webhooks(&manifests).await?;
    let converting = kubectl(
        Some(env.kubeconfig_path()),
        &[
            "get",
            "crd",
            "-o",
            r#"jsonpath={range .items[?(@.spec.conversion.strategy=="Webhook")]}{.metadata.name}{"\n"}{end}"#,
        ],
    )?;
    for crd in converting.lines() {
        env.enable_conversion(crd, &server, "/convert")
            .await
            .with_context(|| format!("pointing {crd}'s conversion at the manager"))?;
    }
    Ok(Some(server))
}

/// A loopback port nothing listens on now.
fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}
