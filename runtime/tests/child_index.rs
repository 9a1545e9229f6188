//! The child index against a real API server: an apply that would change nothing is skipped, and any change by
//! someone else (an edit, a deletion) or of the desired content makes the next apply go through.

mod common;

use std::convert::Infallible;
use std::time::Duration;

use common::{config_map, quiet_options, touch_config_map};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::DeleteParams;
use kube::runtime::watcher;
use kube::{Api, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::Manager;
use rkb_runtime::child_index::{ChildIndex, Key, Write, fingerprint};

const TIMEOUT: Duration = Duration::from_secs(20);
const MANAGER: &str = "rkb-child-index-test";

/// A control plane and a manager (not run: the tests use its context for the index's watch).
async fn start() -> anyhow::Result<(Environment, Manager)> {
    let env = Environment::start().await?;
    // The manager's own client, as an operator's: the index's watches are protobuf on the wire.
    let mgr = Manager::builder(MANAGER)
        .config(env.config().clone())
        .options(quiet_options())
        .build()
        .await?;
    Ok((env, mgr))
}

#[tokio::test]
async fn skips_applies_that_change_nothing_and_notices_other_writers() -> anyhow::Result<()> {
    let (env, mgr) = start().await?;
    let client = env.client();
    let index = ChildIndex::default();
    let selector = watcher::Config::default().labels("test=child-index");
    let watch = tokio::spawn(index.clone().watch::<ConfigMap>(mgr.context(), selector));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let desired = config_map("child", &[("test", "child-index")]);
    let key = Key::of::<ConfigMap>("default", "child");

    // Applied once, then skipped: the stored object does not change.
    assert_eq!(index.apply(&api, &desired, MANAGER).await?, Write::Applied);
    eventually("the watch sees the child", TIMEOUT, || async {
        Ok::<_, Infallible>(index.exists(&key).then_some(()))
    })
    .await?;
    let stored = api.get("child").await?.resource_version();
    assert_eq!(index.apply(&api, &desired, MANAGER).await?, Write::Skipped);
    assert_eq!(api.get("child").await?.resource_version(), stored);

    // Edited by someone else: the next apply goes through and puts the desired data back.
    touch_config_map(&client, "child", "edited").await;
    let content = fingerprint(&desired);
    eventually("the edit marks the child changed", TIMEOUT, || async {
        Ok::<_, Infallible>((!index.is_current(&key, content)).then_some(()))
    })
    .await?;
    assert_eq!(index.apply(&api, &desired, MANAGER).await?, Write::Applied);
    let data = api.get("child").await?.data.unwrap_or_default();
    assert_eq!(data.get("k").map(String::as_str), Some("v"));
    assert_eq!(index.apply(&api, &desired, MANAGER).await?, Write::Skipped);

    // Deleted by someone else: applied again, so it exists again.
    api.delete("child", &DeleteParams::default()).await?;
    eventually("the deletion is seen", TIMEOUT, || async {
        Ok::<_, Infallible>((!index.exists(&key)).then_some(()))
    })
    .await?;
    assert_eq!(index.apply(&api, &desired, MANAGER).await?, Write::Applied);
    assert!(api.get_opt("child").await?.is_some());

    // Other desired content is applied.
    let mut changed = desired.clone();
    changed
        .data
        .get_or_insert_default()
        .insert("k".into(), "w".into());
    assert_eq!(index.apply(&api, &changed, MANAGER).await?, Write::Applied);

    watch.abort();
    Ok(())
}

/// A process started later (here: a new index) takes what an earlier one applied as applied, until someone else
/// writes to the child.
#[tokio::test]
async fn a_new_index_adopts_what_an_earlier_process_applied() -> anyhow::Result<()> {
    let (env, mgr) = start().await?;
    let client = env.client();
    let selector = || watcher::Config::default().labels("test=adopt");
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let desired = config_map("child", &[("test", "adopt")]);
    let (key, content) = (
        Key::of::<ConfigMap>("default", "child"),
        fingerprint(&desired),
    );
    let earlier = ChildIndex::default();
    assert_eq!(
        earlier.apply(&api, &desired, MANAGER).await?,
        Write::Applied
    );

    let later = ChildIndex::default();
    let watch = tokio::spawn(later.clone().watch::<ConfigMap>(mgr.context(), selector()));
    eventually("the later index adopts the child", TIMEOUT, || async {
        Ok::<_, Infallible>(later.is_current(&key, content).then_some(()))
    })
    .await?;
    let stored = api.get("child").await?.resource_version();
    assert_eq!(later.apply(&api, &desired, MANAGER).await?, Write::Skipped);
    assert_eq!(api.get("child").await?.resource_version(), stored);

    touch_config_map(&client, "child", "edited").await;
    eventually("the edit marks the child changed", TIMEOUT, || async {
        Ok::<_, Infallible>((!later.is_current(&key, content)).then_some(()))
    })
    .await?;
    assert_eq!(later.apply(&api, &desired, MANAGER).await?, Write::Applied);
    watch.abort();
    Ok(())
}

/// The index's watch asks for the owners of the children it sees created, changed and deleted by others: a
/// controller needs no watch of its own on those children. The event of the index's own apply asks for nothing:
/// the reconcile that applied the child knows what it shows.
#[tokio::test]
async fn the_owners_of_children_changed_by_others_are_requested() -> anyhow::Result<()> {
    use futures::StreamExt;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
    use kube::api::{Patch, PatchParams};
    use rkb_runtime::ObjectRef;

    let (env, mgr) = start().await?;
    let client = env.client();
    let index = ChildIndex::default();
    let mut owners = Box::pin(index.owner_requests::<ConfigMap>());
    let selector = watcher::Config::default().labels("test=owners");
    let watch = tokio::spawn(index.clone().watch::<ConfigMap>(mgr.context(), selector));
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let owned_by = |name: &str, owner: &str, uid: &str| {
        let mut child = config_map(name, &[("test", "owners")]);
        child.metadata.owner_references = Some(vec![OwnerReference {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: owner.into(),
            uid: uid.into(),
            controller: Some(true),
            ..OwnerReference::default()
        }]);
        child
    };
    let ours = ObjectRef::<ConfigMap>::new("ours").within("default");
    let theirs = ObjectRef::<ConfigMap>::new("theirs").within("default");

    // Created by another writer: its owner is requested (once the watch has listed, or from its event).
    let other = owned_by("other", "theirs", "6a1f0c3e-0000-4000-8000-000000000002");
    let by_another = PatchParams::apply("someone-else");
    api.patch("other", &by_another, &Patch::Apply(&other))
        .await?;
    assert_eq!(
        tokio::time::timeout(TIMEOUT, owners.next()).await?,
        Some(theirs.clone()),
        "created by another writer"
    );
    // Applied by the index, then changed by another writer: the only request is the other writer's, though the
    // index's own apply came first on the same watch.
    let child = owned_by("child", "ours", "6a1f0c3e-0000-4000-8000-000000000001");
    assert_eq!(index.apply(&api, &child, MANAGER).await?, Write::Applied);
    touch_config_map(&client, "other", "edited").await;
    assert_eq!(
        tokio::time::timeout(TIMEOUT, owners.next()).await?,
        Some(theirs),
        "the index's own apply asked for nothing"
    );

    touch_config_map(&client, "child", "edited").await;
    assert_eq!(
        tokio::time::timeout(TIMEOUT, owners.next()).await?,
        Some(ours.clone()),
        "changed"
    );
    api.delete("child", &DeleteParams::default()).await?;
    assert_eq!(
        tokio::time::timeout(TIMEOUT, owners.next()).await?,
        Some(ours),
        "deleted"
    );
    watch.abort();
    Ok(())
}
