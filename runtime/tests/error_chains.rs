//! A reconciler returning its own error type (a thiserror enum whose variants carry the kube::Error as their
//! `#[source]`, context-only messages) is treated as the kube::Error inside it would be: a stale-version 409 takes
//! the conflict path (logged at info as a race, not as a reconciler error), decided by walking the error's `source()`
//! chain (failure.rs). The outage case is runtime/tests/outage.rs, whose reconciler wraps its errors the same way.

mod common;

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, Api, Context, Controller, Manager};
use serde_json::json;

/// What an operator's reconcile returns, written as users write it.
#[derive(Debug, thiserror::Error)]
enum OperatorError {
    #[error("annotating ConfigMap {name}")]
    Annotate {
        name: String,
        #[source]
        source: kube::Error,
    },
    #[error("replacing ConfigMap {name}")]
    Replace {
        name: String,
        #[source]
        source: kube::Error,
    },
}

/// The runtime's log lines of this thread (a current-thread test runtime runs the manager's tasks on it).
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Lines {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[tokio::test]
async fn a_stale_write_inside_an_operators_error_takes_the_conflict_path() -> anyhow::Result<()> {
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);

    let env = Environment::start().await?;
    let client = env.client();
    create_config_map(
        &client,
        &config_map("raced", &[("test", "chains-conflict")]),
    )
    .await;
    let attempts = Arc::new(AtomicUsize::new(0));
    let mgr = Manager::builder("rkb-chains-conflict-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await?;
    let counted = attempts.clone();
    mgr.add(move |ctx: Context| async move {
        let selector = watcher::Config::default().labels("test=chains-conflict");
        Controller::for_kind_with::<ConfigMap>(&ctx, selector)
            .run(move |cm: Arc<ConfigMap>, ctx: Context| {
                let counted = counted.clone();
                async move {
                    if counted.fetch_add(1, Ordering::SeqCst) > 0 {
                        return Ok(Action::await_change());
                    }
                    // Someone else writes the object between our read and our write: our PUT carries the
                    // resourceVersion we read, so the API server answers 409 Conflict.
                    let api: Api<ConfigMap> = ctx.api_in("default");
                    let name = cm.name_any();
                    let other = json!({"metadata": {"annotations": {"rkb.test/other": "yes"}}});
                    api.patch(&name, &PatchParams::default(), &Patch::Merge(&other))
                        .await
                        .map_err(|source| OperatorError::Annotate {
                            name: name.clone(),
                            source,
                        })?;
                    api.replace(&name, &PostParams::default(), &cm)
                        .await
                        .map_err(|source| OperatorError::Replace { name, source })?;
                    Ok::<_, OperatorError>(Action::await_change())
                }
            })
            .await
    });
    let running = mgr.spawn();
    let retried = attempts.clone();
    eventually(
        "the conflicted reconcile ran again",
        Duration::from_secs(30),
        move || {
            let n = retried.load(Ordering::SeqCst);
            async move { Ok::<_, Infallible>((n >= 2).then_some(())) }
        },
    )
    .await?;
    running.stop().await?;

    let log = lines.text();
    let runtime_lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("rkb_runtime::"))
        .collect();
    let conflict = runtime_lines
        .iter()
        .find(|l| l.contains("conflict: the object changed since it was read; reconciling again"));
    let conflict = conflict.unwrap_or_else(|| panic!("no conflict line in:\n{log}"));
    assert!(conflict.contains(" INFO "), "{conflict}");
    // The whole chain, the operator's context first.
    assert!(
        conflict
            .contains("error=replacing ConfigMap raced: ApiError: Operation cannot be fulfilled"),
        "{conflict}"
    );
    assert!(
        !runtime_lines.iter().any(|l| l.contains(" ERROR ")),
        "logged as an error:\n{log}"
    );
    Ok(())
}
