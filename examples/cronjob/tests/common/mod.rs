// Copyright 2026 The rkb authors.
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

//! What the tests share: a Job template the API server accepts, and a control plane calling this project's webhooks.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::sync::Mutex;
use std::time::Duration;

use cronjob::controller::cronjob_controller::Clock;
use jiff::Timestamp;

use rkb_runtime::envtest::Environment;
use rkb_runtime::k8s_openapi::api::batch::v1::{JobSpec, JobTemplateSpec};
use rkb_runtime::k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use rkb_runtime::{Manager, ManagerOptions, RunningManager};

/// A clock the test sets: the controller runs on it (`controller_with_clock`), so runs come due when the test says.
pub struct TestClock(pub Mutex<Timestamp>);

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap()
    }
}

/// How long the API server and the controller may take to act.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A Job template the API server accepts: one container that says hello.
pub fn hello_job() -> JobTemplateSpec {
    let container = Container {
        name: "hello".into(),
        image: Some("busybox".into()),
        args: Some(vec!["echo".into(), "hello".into()]),
        ..Container::default()
    };
    let pod = PodSpec {
        containers: vec![container],
        restart_policy: Some("OnFailure".into()),
        ..PodSpec::default()
    };
    JobTemplateSpec {
        metadata: None,
        spec: Some(JobSpec {
            template: PodTemplateSpec {
                metadata: None,
                spec: Some(pod),
            },
            ..JobSpec::default()
        }),
    }
}

/// A control plane with the CRD, the webhook configurations `rkb manifests` wrote (config/webhook/manifests.yaml)
/// and the CRD's conversion pointing at a manager that serves every webhook of the project. The manager runs with
/// the flags config/webhook-certs gives it (this example deploys without cert-manager): it makes its certificate
/// and injects its CA into those objects itself, so the API server reaches it only if that works.
pub async fn serve_webhooks() -> anyhow::Result<(Environment, RunningManager)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let env = Environment::builder()
        .crd_dir(format!("{root}/config/crd/bases"))
        .start()
        .await?;
    let manifests = std::fs::read_to_string(format!("{root}/config/webhook/manifests.yaml"))
        .map_err(|e| {
            anyhow::anyhow!(
                "config/webhook/manifests.yaml: {e}; run `rkb manifests` (make manifests) first"
            )
        })?;
    let server = env.install_webhooks(&manifests).await?;
    env.enable_conversion(
        "cronjobs.batch.tutorial.kubebuilder.io",
        &server,
        rkb_runtime::webhook::CONVERT_PATH,
    )
    .await?;
    let args = std::iter::once("cronjob".to_string()).chain(webhook_certs_args(root)?);
    let deployed = ManagerOptions::try_parse_from("cronjob", args)
        .map_err(|e| anyhow::anyhow!("config/webhook-certs/manager_patch.yaml: {e:?}"))?;
    let options = ManagerOptions {
        webhook_port: server.port,
        health_probe_bind_address: "0".into(),
        ..deployed
    };
    let mgr = Manager::builder("cronjob-webhook-test")
        .client(as_deployed_with_webhook_certs(&env, root).await?)
        .options(options)
        .build()
        .await?;
    // Every webhook of the project: the API server calls each version's for an object of any version.
    mgr.serve_webhooks(cronjob::webhook::webhooks());
    let running = mgr.spawn();
    converting(&env).await?;
    Ok((env, running))
}

/// Waits until the API server converts through the manager. It picks up the CA the manager injects into the CRD
/// a moment after the one in the webhook configurations, so a test's first admission passing says nothing about
/// conversion. A probe CronJob, created in v1 and read in v2, then deleted.
async fn converting(env: &Environment) -> anyhow::Result<()> {
    use rkb_runtime::Api;
    use rkb_runtime::kube::api::{DeleteParams, PostParams};
    let v1s: Api<cronjob::api::v1::CronJob> = Api::namespaced(env.client(), "default");
    let v2s: Api<cronjob::api::v2::CronJob> = Api::namespaced(env.client(), "default");
    let probe = cronjob::api::v1::CronJob::new(
        "conversion-probe",
        cronjob::api::v1::CronJobSpec {
            schedule: "*/5 * * * *".into(),
            job_template: hello_job(),
            ..Default::default()
        },
    );
    rkb_runtime::envtest::eventually(
        "the API server converts through the manager",
        TIMEOUT,
        || async {
            if v1s.get_opt("conversion-probe").await?.is_none() {
                v1s.create(&PostParams::default(), &probe).await?;
            }
            v2s.get("conversion-probe").await.map(Some)
        },
    )
    .await?;
    v1s.delete("conversion-probe", &DeleteParams::default())
        .await?;
    Ok(())
}

/// The arguments config/webhook-certs/manager_patch.yaml adds to the manager's container, in order (names as
/// config/ gives them before kustomize's prefix, which is how envtest installs the objects).
fn webhook_certs_args(root: &str) -> anyhow::Result<Vec<String>> {
    let path = format!("{root}/config/webhook-certs/manager_patch.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let ops: Vec<std::collections::BTreeMap<String, String>> =
        serde_saphyr::from_str(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    Ok(ops
        .into_iter()
        .filter_map(|mut op| op.remove("value"))
        .collect())
}

/// What config/webhook-certs deploys besides the flags, in envtest's default namespace: its empty Secret, and a
/// client holding exactly its Role and ClusterRole (the manager's own roles are not needed to serve webhooks), so
/// a permission the component lacks fails the tests.
async fn as_deployed_with_webhook_certs(
    env: &Environment,
    root: &str,
) -> anyhow::Result<rkb_runtime::Client> {
    use rkb_runtime::kube::api::PostParams;
    let read = |file: &str| {
        let path = format!("{root}/config/webhook-certs/{file}");
        std::fs::read_to_string(&path)
            .map(|text| text.replace("namespace: system", "namespace: default"))
            .map_err(|e| anyhow::anyhow!("{path}: {e}"))
    };
    let secret: rkb_runtime::k8s_openapi::api::core::v1::Secret =
        serde_saphyr::from_str(&read("secret.yaml")?)?;
    rkb_runtime::Api::namespaced(env.client(), "default")
        .create(&PostParams::default(), &secret)
        .await?;
    let rbac = read("rbac.yaml")?;
    let roles: Vec<&str> = rbac
        .split("\n---\n")
        .filter(|doc| doc.contains("\nkind: Role\n") || doc.contains("\nkind: ClusterRole\n"))
        .collect();
    Ok(env
        .client_with_rbac("cronjob-webhook-certs", &roles.join("\n---\n"))
        .await?)
}
