//! The initial sync of a controller's watch, told by kube-apiserver's own metrics (GET /metrics, admin client):
//! a streaming list counts in `apiserver_watch_list_duration_seconds`, a list in `apiserver_request_total` with
//! verb LIST, a refused streaming list as a WATCH answered 422.
//!
//! Each scenario then restarts kube-apiserver, which breaks the watches: they resume from their last
//! resourceVersion, which the restarted server's watch cache (filled from etcd at its start) no longer holds: 410
//! Gone. The watches must get their state again the way they did first, and see a change made after the restart.
//! kube-apiserver's metrics start from zero at the restart, so they count what happened after it; a watch that
//! resumed without a 410 would count no list of either kind.

mod common;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kinds::{WIDGET_CRD, Widget, WidgetSpec};
use common::quiet_options;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::sample;
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

/// What kube-apiserver counted for widgets: streaming lists, lists, and watches it refused with 422.
#[derive(Debug, PartialEq)]
struct Served {
    streaming_lists: f64,
    lists: f64,
    refused_watches: f64,
}

async fn served(admin: &Client) -> Served {
    let request = http::Request::get("/metrics").body(Vec::new()).unwrap();
    let text = admin.request_text(request).await.expect("GET /metrics");
    // A series a server has not counted yet is absent; each is summed over its other labels (scope, code).
    let sum = |name: &str, labels: &[(&str, &str)]| -> f64 {
        ["cluster", "namespace", "resource"]
            .iter()
            .map(|scope| {
                let mut with_scope = labels.to_vec();
                with_scope.extend([("resource", "widgets"), ("scope", *scope)]);
                sample(&text, name, &with_scope).unwrap_or(0.0)
            })
            .sum()
    };
    let lists = ["200", "410", "500"]
        .iter()
        .map(|code| {
            sum(
                "apiserver_request_total",
                &[("verb", "LIST"), ("code", code)],
            )
        })
        .sum();
    Served {
        streaming_lists: sum("apiserver_watch_list_duration_seconds_count", &[]),
        lists,
        refused_watches: sum(
            "apiserver_request_total",
            &[("verb", "WATCH"), ("code", "422")],
        ),
    }
}

/// The size each widget had at its last reconcile.
type Seen = Arc<Mutex<HashMap<String, i64>>>;

async fn wait_seen(seen: &Seen, name: &str, size: i64) {
    eventually(
        &format!("a reconcile of {name} at size {size}"),
        Duration::from_secs(30),
        || {
            let at = seen.lock().unwrap().get(name).copied();
            async move { Ok::<_, Infallible>((at == Some(size)).then_some(())) }
        },
    )
    .await
    .unwrap();
}

async fn resize(widgets: &Api<Widget>, name: &str, size: i64) {
    let patch = serde_json::json!({"spec": {"size": size}});
    widgets
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch");
}

/// Runs a Widget controller (its manager built with `streaming_lists(streaming)`, or the default if None) on an
/// envtest started with
/// `apiserver_args`, then a second one, then both through a 410 Gone; returns what kube-apiserver served for widgets after each step (the last since its restart).
async fn initial_syncs(streaming: Option<bool>, apiserver_args: &[&str]) -> [Served; 3] {
    let mut builder = Environment::builder();
    for arg in apiserver_args {
        builder = builder.apiserver_arg(*arg);
    }
    let mut env = builder.start().await.expect("envtest");
    env.install_crds_yaml(WIDGET_CRD)
        .await
        .expect("install CRD");
    let client = env.client();
    let widgets: Api<Widget> = Api::namespaced(client.clone(), "default");
    for name in ["w1", "w2"] {
        let widget = Widget {
            spec: WidgetSpec { size: 1 },
            ..Widget::new(name, &[])
        };
        widgets
            .create(&PostParams::default(), &widget)
            .await
            .unwrap();
    }
    let mut mgr = Manager::builder("rkb-streaming-lists-test");
    if let Some(streaming) = streaming {
        mgr = mgr.streaming_lists(streaming);
    }
    let mgr = mgr
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    // Two controllers of widgets: the second starts once the first has synced, to show what the manager remembers.
    let (seen, late) = (Seen::default(), Seen::default());
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    mgr.add(recording(seen.clone(), "widget", None));
    mgr.add(recording(late.clone(), "late-widget", Some(released)));
    let running = mgr.spawn();
    wait_seen(&seen, "w1", 1).await;
    wait_seen(&seen, "w2", 1).await;
    let first = served(&client).await;
    release.send(()).unwrap();
    wait_seen(&late, "w2", 1).await;
    let with_late = served(&client).await;

    resize(&widgets, "w1", 2).await;
    wait_seen(&seen, "w1", 2).await;
    wait_seen(&late, "w1", 2).await;
    env.kill_and_restart_apiserver()
        .await
        .expect("restart kube-apiserver");
    resize(&widgets, "w2", 2).await;
    wait_seen(&seen, "w2", 2).await;
    wait_seen(&late, "w2", 2).await;
    let after_restart = served(&client).await;
    running.stop().await.expect("clean stop");
    [first, with_late, after_restart]
}

/// A controller named `name` recording into `seen`, started once `start` (if any) fires.
fn recording(
    seen: Seen,
    name: &'static str,
    start: Option<tokio::sync::oneshot::Receiver<()>>,
) -> impl FnOnce(Context) -> futures::future::BoxFuture<'static, Result<(), rkb_runtime::Error>> {
    move |ctx: Context| {
        Box::pin(async move {
            if let Some(start) = start {
                let _ = start.await;
            }
            Controller::for_kind::<Widget>(&ctx)
                .named(name)
                .run(move |w: Arc<Widget>, _ctx| {
                    seen.lock().unwrap().insert(w.name_any(), w.spec.size);
                    async { Ok::<_, BoxError>(Action::await_change()) }
                })
                .await
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watches_stream_their_initial_state_and_again_after_a_410() {
    let streamed = |streaming_lists| Served {
        streaming_lists,
        lists: 0.0,
        refused_watches: 0.0,
    };
    let [first, with_late, after_restart] = initial_syncs(None, &[]).await;
    assert_eq!(first, streamed(1.0), "the first controller's sync");
    assert_eq!(with_late, streamed(2.0), "the second controller's");
    assert_eq!(after_restart, streamed(2.0), "both again, after 410 Gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_watch_list_feature_watches_list_and_the_manager_remembers() {
    let listed = |lists, refused_watches| Served {
        streaming_lists: 0.0,
        lists,
        refused_watches,
    };
    let [first, with_late, after_restart] =
        initial_syncs(None, &["--feature-gates=WatchList=false"]).await;
    assert_eq!(first, listed(1.0, 1.0), "one refusal, then a list");
    assert_eq!(
        with_late,
        listed(2.0, 1.0),
        "the second controller lists at once"
    );
    assert_eq!(after_restart, listed(2.0, 0.0), "both list after 410 Gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn told_not_to_stream_watches_list_then_watch() {
    let listed = |lists| Served {
        streaming_lists: 0.0,
        lists,
        refused_watches: 0.0,
    };
    let [first, with_late, after_restart] = initial_syncs(Some(false), &[]).await;
    assert_eq!(first, listed(1.0), "the first controller's sync");
    assert_eq!(with_late, listed(2.0), "the second controller's");
    assert_eq!(after_restart, listed(2.0), "both again, after 410 Gone");
}
