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

//! The manager in a real cluster (the current kubeconfig context): its image built and made available (loaded into
//! Kind, or pushed), cert-manager installed when config/default needs it, deployed with `make deploy`, scraped from
//! a curl pod, removed with `make undeploy`.

use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Result, bail};
use serde_json::json;

use crate::utils::{self, Response, kubectl, make, parse_curl_output};
use crate::{METRICS_BINDING, NAMESPACE, SERVICE_ACCOUNT};

/// The Deployment config/default creates.
const MANAGER: &str = "deployment/demo-controller-manager";
/// The Service in front of the manager's metrics port (config/default/metrics_service.yaml).
const METRICS_URL: &str =
    "https://demo-controller-manager-metrics-service.demo-system.svc:8443/metrics";
/// The image built when `IMG` is not set.
const DEFAULT_IMAGE: &str = "example.com/demo:v0.0.1";
/// The pod that runs curl inside the cluster, where the metrics Service is reachable (one per scrape, numbered).
const CURL_POD: &str = "curl-metrics";
/// The cert-manager release installed when config/default asks cert-manager for certificates (webhooks, or the
/// `[METRICS-WITH-CERTS]` sections) and the cluster has none.
const CERT_MANAGER: &str =
    "https://github.com/cert-manager/cert-manager/releases/download/v1.21.0/cert-manager.yaml";

/// How the cluster gets the manager's image.
#[derive(Debug)]
pub enum Image {
    /// `kind load docker-image` into the cluster `KIND_CLUSTER` (default `kind`), with the `KIND` binary.
    LoadIntoKind,
    /// `make docker-push`: any cluster that can pull `IMG`.
    Push,
}

pub struct Cluster {
    scrapes: AtomicU32,
    /// Whether this test installed cert-manager, and so removes it.
    installed_cert_manager: bool,
}

impl Cluster {
    pub fn deploy(image: Image) -> Result<Self> {
        let img = std::env::var("IMG").unwrap_or_else(|_| DEFAULT_IMAGE.to_string());
        let img_arg = format!("IMG={img}");
        utils::step(&format!("building the manager image {img}"));
        make(&["docker-build", &img_arg])?;
        match image {
            Image::LoadIntoKind => {
                let kind = std::env::var("KIND").unwrap_or_else(|_| "kind".to_string());
                let cluster = std::env::var("KIND_CLUSTER").unwrap_or_else(|_| "kind".to_string());
                utils::step(&format!(
                    "loading the image into the Kind cluster {cluster}"
                ));
                utils::run(std::process::Command::new(kind).args([
                    "load",
                    "docker-image",
                    &img,
                    "--name",
                    &cluster,
                ]))?;
            }
            Image::Push => {
                utils::step("pushing the image");
                make(&["docker-push", &img_arg])?;
            }
        }
        let installed_cert_manager = install_cert_manager_if_needed()?;
        // The namespace comes first so that the restricted Pod Security Standard applies to the manager's pod.
        utils::step("creating the namespace with the restricted Pod Security Standard enforced");
        kubectl(None, &["create", "namespace", NAMESPACE])?;
        kubectl(
            None,
            &[
                "label",
                "--overwrite",
                "namespace",
                NAMESPACE,
                "pod-security.kubernetes.io/enforce=restricted",
            ],
        )?;
        utils::step("deploying the manager (make deploy)");
        make(&["deploy", &img_arg])?;
        Ok(Self {
            scrapes: AtomicU32::new(0),
            installed_cert_manager,
        })
    }

    /// Waits until the Deployment's pods are updated and ready (their readiness probe passed).
    pub fn wait_ready(&self) -> Result<()> {
        let timeout = format!("--timeout={}s", crate::TIMEOUT.as_secs());
        kubectl(
            None,
            &["rollout", "status", MANAGER, "-n", NAMESPACE, &timeout],
        )?;
        Ok(())
    }

    /// Runs curl in a pod of the manager's namespace, under the manager's ServiceAccount and the restricted Pod
    /// Security Standard, and reads its output from the pod's log.
    pub fn scrape_metrics(&self, token: &str) -> Result<Response> {
        let pod = format!(
            "{CURL_POD}-{}",
            self.scrapes.fetch_add(1, Ordering::Relaxed)
        );
        let overrides = json!({"spec": {
            "serviceAccountName": SERVICE_ACCOUNT,
            "containers": [{
                "name": "curl",
                "image": "curlimages/curl:latest",
                "args": utils::curl_args(METRICS_URL, token),
                "securityContext": {
                    "readOnlyRootFilesystem": true,
                    "allowPrivilegeEscalation": false,
                    "capabilities": {"drop": ["ALL"]},
                    "runAsNonRoot": true,
                    "runAsUser": 1000,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
            }],
        }});
        let overrides = format!("--overrides={overrides}");
        kubectl(
            None,
            &[
                "run",
                &pod,
                "-n",
                NAMESPACE,
                "--restart=Never",
                "--image=curlimages/curl:latest",
                &overrides,
            ],
        )?;
        let finished = ["--for=jsonpath={.status.phase}=Succeeded", "--timeout=120s"];
        let waited = kubectl(
            None,
            &[&["wait", "pod", &pod, "-n", NAMESPACE][..], &finished].concat(),
        );
        let output = kubectl(None, &["logs", &pod, "-n", NAMESPACE]);
        kubectl(
            None,
            &["delete", "pod", &pod, "-n", NAMESPACE, "--wait=false"],
        )?;
        match (waited, output) {
            (Ok(_), Ok(output)) => parse_curl_output(&output),
            (_, output) => bail!(
                "curl in pod {pod} failed: {}",
                output.unwrap_or_else(|e| e.to_string())
            ),
        }
    }

    pub fn report(&self) {
        for args in [
            &["logs", MANAGER, "-n", NAMESPACE, "--all-containers"][..],
            &["get", "events", "-n", NAMESPACE, "--sort-by=.lastTimestamp"],
            &[
                "describe",
                "pods",
                "-n",
                NAMESPACE,
                "-l",
                "control-plane=controller-manager",
            ],
        ] {
            match kubectl(None, args) {
                Ok(output) => println!("kubectl {}:\n{output}", args.join(" ")),
                Err(e) => println!("{e:#}"),
            }
        }
    }

    /// Removes what the test created: the metrics binding, everything `make deploy` applied, and cert-manager if
    /// it installed it.
    pub fn undeploy(self) {
        let mut removed = vec![
            kubectl(
                None,
                &[
                    "delete",
                    "clusterrolebinding",
                    METRICS_BINDING,
                    "--ignore-not-found",
                ],
            ),
            make(&["undeploy", "ignore-not-found=true"]),
        ];
        if self.installed_cert_manager {
            removed.push(kubectl(
                None,
                &["delete", "-f", CERT_MANAGER, "--ignore-not-found"],
            ));
        }
        for failure in removed.into_iter().filter_map(Result::err) {
            println!("cleanup: {failure:#}");
        }
    }
}

/// Installs cert-manager and waits for its webhook when config/default has cert-manager objects and the cluster has
/// no cert-manager; `CERT_MANAGER_INSTALL_SKIP=true` leaves it to you. Returns whether it installed it.
fn install_cert_manager_if_needed() -> Result<bool> {
    let rendered = kubectl(None, &["kustomize", "config/default"])?;
    let needed = rendered
        .lines()
        .any(|line| line.starts_with("apiVersion: cert-manager.io/"));
    let skipped = std::env::var("CERT_MANAGER_INSTALL_SKIP").is_ok_and(|skip| skip == "true");
    if !needed || skipped || kubectl(None, &["get", "crd", "certificates.cert-manager.io"]).is_ok()
    {
        return Ok(false);
    }
    utils::step("installing cert-manager");
    kubectl(None, &["apply", "-f", CERT_MANAGER])?;
    let timeout = format!("--timeout={}s", crate::TIMEOUT.as_secs());
    kubectl(
        None,
        &[
            "wait",
            "deployment/cert-manager-webhook",
            "-n",
            "cert-manager",
            "--for=condition=Available",
            &timeout,
        ],
    )?;
    Ok(true)
}
