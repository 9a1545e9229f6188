//! Storage-version migration: after a CRD's storage version moves (v1 -> v2), rewrites every object of the kind so
//! etcd holds it in the new version, then drops the old versions from the CRD's `status.storedVersions`, so they can
//! be removed from `spec.versions`. The API server itself only ever adds to `storedVersions`, and refuses to remove a
//! version from the CRD while it is listed there, so without this an old version can never go away.
//!
//! ```no_run
//! # #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)] struct CronJob { metadata: rkb_runtime::ObjectMeta }
//! # impl rkb_runtime::Resource for CronJob {
//! #     type DynamicType = (); type Scope = kube::core::NamespaceResourceScope;
//! #     fn kind(_: &()) -> std::borrow::Cow<'_, str> { "CronJob".into() }
//! #     fn group(_: &()) -> std::borrow::Cow<'_, str> { "batch.tutorial.kubebuilder.io".into() }
//! #     fn version(_: &()) -> std::borrow::Cow<'_, str> { "v1".into() }
//! #     fn plural(_: &()) -> std::borrow::Cow<'_, str> { "cronjobs".into() }
//! #     fn meta(&self) -> &rkb_runtime::ObjectMeta { &self.metadata }
//! #     fn meta_mut(&mut self) -> &mut rkb_runtime::ObjectMeta { &mut self.metadata }
//! # }
//! # async fn main_(mgr: rkb_runtime::Manager) {
//! use rkb_runtime::storage_migration::StorageMigration;
//! mgr.add(|ctx| StorageMigration::new(&ctx).kind::<CronJob>().run());
//! # }
//! ```
//!
//! Contract:
//! - **A controller of the manager.** [`StorageMigration::run`] is added with `Manager::add` like any controller and
//!   runs until the manager shuts down. It waits for leadership (`--leader-elect`: only the leader migrates; without
//!   leader election every replica would, which is still safe, see below), migrates each CRD it was given whose
//!   `storedVersions` lists more than the storage version, then re-reads the CRDs every [`DEFAULT_RECHECK`]
//!   (`.recheck(..)`), so a storage change made while the operator runs is migrated too. Add one migrator per
//!   manager, naming every kind (`.kind::<A>().kind::<B>()`, or `.crd("plural.group")`): its metrics are registered
//!   once per manager. [`StorageMigration::run_once`] does one round and returns, for a one-shot Job.
//! - **How an object is migrated.** A no-op update: the object is read (a paged list, [`DEFAULT_PAGE_SIZE`] per page)
//!   and written back unchanged with `PUT` and its resourceVersion. The API server encodes every write in the current
//!   storage version, and skips the etcd write when the encoding equals what is stored (the resourceVersion then stays
//!   the same), so objects already in the storage version cost one request and no write: re-running is cheap, and an
//!   interrupted migration resumes by simply running again. Objects are read and written in the storage version when
//!   it is served (else in the first served version) as `DynamicObject`s, so fields the operator's Rust type does not
//!   know are written back as they were. A rewrite changes the object's resourceVersion, so watchers (the operator's
//!   own controllers) see one update event per rewritten object.
//! - **Pacing and races.** Writes are paced to [`DEFAULT_WRITES_PER_SECOND`] (`.writes_per_second(..)`). A 409 Conflict
//!   (someone wrote the object after the list) re-reads the object and writes it again, up to [`MAX_CONFLICTS`] times
//!   in a row; a 404 (deleted meanwhile) counts as `gone`; an expired continue token (410) lists again from the start,
//!   skipping the objects this process already wrote that have not changed since. Any other error (a validating
//!   webhook refusing the update, a missing RBAC grant) fails the round, is logged with its causes and retried with
//!   backoff: the version is dropped from `storedVersions` only once every object made it.
//! - **Never dropping a version a write may still use.** A round (1) reads the CRD: its storage version S,
//!   `storedVersions` and generation; (2) waits until API discovery reports the resource's `storageVersionHash` for S,
//!   i.e. the API server answering encodes new writes in S; (3) waits the settle time ([`DEFAULT_SETTLE`],
//!   kube-apiserver's default `--request-timeout`), so a write accepted before the switch, or by another API server
//!   whose cache of the CRD lags, has committed before (4) the list is taken: every object stored in an old version
//!   is then in the list and rewritten, and every write after the list is encoded in S; (5) re-reads the CRD and
//!   patches `status.storedVersions` to `[S]` only if its generation, storage version and `storedVersions` are those
//!   of (1), with the resourceVersion just read as a precondition; otherwise (the spec changed: a storage version may
//!   have been used meanwhile) the round starts over. Raise `.settle(..)` when the API servers run with a longer
//!   `--request-timeout`. Two migrators running at once (no leader election, or a frozen former leader) are harmless:
//!   each rewrites objects idempotently and patches `storedVersions` only after its own full pass.
//! - **Leadership.** Each write starts only while this replica's leader term runs and the manager is not shutting
//!   down (checked before every write); otherwise the round stops and `run` waits to lead again. The manager aborts
//!   its controllers when leadership is lost.
//! - **Progress.** `storage_migration_objects_total{resource,outcome}` counts objects by outcome: `rewritten` (stored
//!   anew), `unchanged` (already in the storage version), `gone` (deleted meanwhile);
//!   `storage_migration_pending_versions{resource}` is the number of stored versions still to drop (0 when done).
//!   `resource` is the CRD's name. Each round logs its start, one line per page and its end at info level.
//! - **RBAC** (markers for the operator's sources; `get` on the kind is for the conflict re-read):
//!   ```text
//!   // +kubebuilder:rbac:groups=<group>,resources=<plural>,verbs=get;list;update
//!   // +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get
//!   // +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,verbs=patch
//!   ```
//!   Discovery (`GET /apis/<group>/<version>`) is open to every authenticated user by default (`system:discovery`).

use std::collections::HashMap;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::core::TypeMeta;
use kube::{Api, Resource, ResourceExt};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use tokio::time::{Instant, MissedTickBehavior};

use crate::Context;
use crate::failure::Chain;

/// Writes per second, over every kind of one migrator.
pub const DEFAULT_WRITES_PER_SECOND: f64 = 10.0;
/// Objects per list page.
pub const DEFAULT_PAGE_SIZE: u32 = 100;
/// How long to wait, once the new storage version is served, before listing (kube-apiserver's `--request-timeout`).
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(60);
/// How often `run` re-reads the CRDs after a round.
pub const DEFAULT_RECHECK: Duration = Duration::from_secs(600);
/// Conflicting writes in a row after which an object fails the round.
pub const MAX_CONFLICTS: u32 = 5;
/// How long discovery may take to report the new storage version.
const SERVING_TIMEOUT: Duration = Duration::from_secs(120);
/// How often discovery is read while waiting for it.
const SERVING_POLL: Duration = Duration::from_millis(200);
/// `run`'s first and longest wait after a failed round.
const RETRY_FIRST: Duration = Duration::from_secs(5);
const RETRY_MAX: Duration = Duration::from_secs(300);
/// Rounds started over in a row because the CRD changed, before the round fails.
const MAX_RESTARTS: u32 = 3;

/// What went wrong in a round. The message says what failed; `source()` says why.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The CRD could not be read.
    #[error("cannot read CustomResourceDefinition {crd}")]
    ReadCrd {
        /// The CRD's name.
        crd: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// The CRD names no storage version or serves none (the API server does not accept such a CRD).
    #[error("CustomResourceDefinition {crd} has no {what} version")]
    NoVersion {
        /// The CRD's name.
        crd: String,
        /// "storage" or "served".
        what: &'static str,
    },
    /// API discovery could not be read.
    #[error("cannot read API discovery for {api_version}")]
    Discovery {
        /// The group/version read.
        api_version: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// Discovery did not report the storage version in time.
    #[error("the API server did not report {crd} stored as {version} within {timeout:?}")]
    NotServing {
        /// The CRD's name.
        crd: String,
        /// The storage version.
        version: String,
        /// How long it waited.
        timeout: Duration,
    },
    /// A page of objects could not be listed.
    #[error("cannot list {crd}")]
    List {
        /// The CRD's name.
        crd: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// An object could not be written back.
    #[error("cannot rewrite {crd} {object}")]
    Rewrite {
        /// The CRD's name.
        crd: String,
        /// The object, as "namespace/name" or "name".
        object: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// An object kept changing under the migrator.
    #[error("{crd} {object} changed under every one of {MAX_CONFLICTS} writes in a row")]
    Conflicts {
        /// The CRD's name.
        crd: String,
        /// The object, as "namespace/name" or "name".
        object: String,
    },
    /// The CRD's spec kept changing while its objects were rewritten.
    #[error("CustomResourceDefinition {crd} changed during each of {MAX_RESTARTS} rounds in a row")]
    CrdChanging {
        /// The CRD's name.
        crd: String,
    },
    /// `status.storedVersions` could not be patched.
    #[error("cannot set status.storedVersions of CustomResourceDefinition {crd} to [{version}]")]
    UpdateStoredVersions {
        /// The CRD's name.
        crd: String,
        /// The storage version.
        version: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// The round stopped before its end: shutdown, or leadership ran out. Running again resumes it.
    #[error("storage-version migration stopped: {0}")]
    Interrupted(&'static str),
}

/// How one CRD's round ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `storedVersions` held only the storage version: nothing to do.
    UpToDate {
        /// The CRD's name.
        crd: String,
    },
    /// Every object was rewritten and `storedVersions` is now `[to]`.
    Migrated {
        /// The CRD's name.
        crd: String,
        /// `storedVersions` before.
        from: Vec<String>,
        /// The storage version.
        to: String,
        /// Objects counted by what their write did.
        objects: Counts,
    },
}

/// Objects of one round by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Written in the storage version.
    pub rewritten: u64,
    /// Already stored in the storage version (the server wrote nothing).
    pub unchanged: u64,
    /// Deleted before they could be written.
    pub gone: u64,
}

/// Rewrites the objects of CRDs into their storage version and drops old versions from `storedVersions`; see the
/// module docs.
#[must_use]
pub struct StorageMigration {
    ctx: Context,
    crds: Vec<String>,
    writes_per_second: f64,
    page_size: u32,
    settle: Duration,
    recheck: Duration,
    metrics: MigrationMetrics,
    /// Per CRD, the objects this process wrote in the storage version: skipped while unchanged.
    confirmed: HashMap<String, Confirmed>,
}

impl StorageMigration {
    /// A migrator using the manager's client, leadership and metrics; name the kinds with [`Self::kind`].
    pub fn new(ctx: &Context) -> Self {
        Self {
            ctx: ctx.clone(),
            crds: Vec::new(),
            writes_per_second: DEFAULT_WRITES_PER_SECOND,
            page_size: DEFAULT_PAGE_SIZE,
            settle: DEFAULT_SETTLE,
            recheck: DEFAULT_RECHECK,
            metrics: MigrationMetrics::default(),
            confirmed: HashMap::new(),
        }
    }

    /// Migrates K's CRD (`<plural>.<group>`).
    pub fn kind<K: Resource<DynamicType = ()>>(self) -> Self {
        let name = format!("{}.{}", K::plural(&()), K::group(&()));
        self.crd(name)
    }

    /// Migrates the CRD named `name` (`<plural>.<group>`).
    pub fn crd(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.metrics.track(&self.ctx, &name);
        self.crds.push(name);
        self
    }

    /// Paces writes to `n` per second (every write, no-op or not; at least one a minute).
    pub fn writes_per_second(mut self, n: f64) -> Self {
        self.writes_per_second = n.max(1.0 / 60.0);
        self
    }

    /// Lists `n` objects per page (at least 1). Keep `n / writes_per_second` well under etcd's compaction interval
    /// (5 min), or continue tokens expire and lists start over.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Waits `settle` between seeing the storage version served and listing (module docs, step 3).
    pub fn settle(mut self, settle: Duration) -> Self {
        self.settle = settle;
        self
    }

    /// Re-reads the CRDs every `interval` after a round (in [`Self::run`]).
    pub fn recheck(mut self, interval: Duration) -> Self {
        self.recheck = interval;
        self
    }

    /// Runs as a controller of the manager until it shuts down: migrates when leading, rechecks, retries failures
    /// with backoff (logged with their causes; a failed round never stops the manager).
    pub async fn run(mut self) -> Result<(), MigrationError> {
        self.ctx.set_controller_name("storage-migration");
        let mut retry = RETRY_FIRST;
        loop {
            if !self.ctx.wait_for_leadership().await {
                return Ok(());
            }
            let pause = match self.run_once().await {
                Ok(_) => {
                    retry = RETRY_FIRST;
                    self.recheck
                }
                Err(MigrationError::Interrupted(why)) => {
                    tracing::info!(why, "storage-version migration paused");
                    continue;
                }
                Err(error) => {
                    tracing::error!(error = %Chain(&error), ?retry, "storage-version migration failed; retrying");
                    let pause = retry;
                    retry = (retry * 2).min(RETRY_MAX);
                    pause
                }
            };
            if self.pause(pause).await.is_err() {
                return Ok(());
            }
        }
    }

    /// One round over every CRD named, now (no waiting for leadership; writes still stop when a leader term ends).
    pub async fn run_once(&mut self) -> Result<Vec<Outcome>, MigrationError> {
        let mut outcomes = Vec::with_capacity(self.crds.len());
        for crd in self.crds.clone() {
            outcomes.push(self.migrate_crd(&crd).await?);
        }
        Ok(outcomes)
    }

    /// Migrates one CRD, starting over when its spec changed meanwhile.
    async fn migrate_crd(&mut self, crd: &str) -> Result<Outcome, MigrationError> {
        for _ in 0..MAX_RESTARTS {
            let target = self.observe(crd).await?;
            self.metrics.set_pending(crd, target.pending_versions());
            if target.stored == [target.storage.clone()] {
                return Ok(Outcome::UpToDate { crd: crd.into() });
            }
            tracing::info!(crd, from = ?target.stored, to = target.storage, "migrating the storage version");
            self.await_serving(&target).await?;
            self.pause(self.settle).await?;
            let objects = self.rewrite_all(&target).await?;
            if self.commit(&target).await? {
                self.metrics.set_pending(crd, 0);
                tracing::info!(
                    crd,
                    to = target.storage,
                    ?objects,
                    "storage-version migration done"
                );
                return Ok(Outcome::Migrated {
                    crd: crd.into(),
                    from: target.stored,
                    to: target.storage,
                    objects,
                });
            }
            tracing::info!(
                crd,
                "CustomResourceDefinition changed during the migration; starting over"
            );
        }
        Err(MigrationError::CrdChanging { crd: crd.into() })
    }

    async fn observe(&self, crd: &str) -> Result<Target, MigrationError> {
        let read = Api::<CustomResourceDefinition>::all(self.ctx.client())
            .get(crd)
            .await
            .map_err(|source| MigrationError::ReadCrd {
                crd: crd.into(),
                source,
            })?;
        Target::from_crd(&read)
    }

    /// Step 2: waits until discovery reports the storage version's hash for the resource.
    async fn await_serving(&self, target: &Target) -> Result<(), MigrationError> {
        let resource = &target.resource;
        let expected = storage_version_hash(&resource.group, &target.storage, &resource.kind);
        let deadline = Instant::now() + SERVING_TIMEOUT;
        loop {
            let list = self
                .ctx
                .client()
                .list_api_group_resources(&resource.api_version)
                .await
                .map_err(|source| MigrationError::Discovery {
                    api_version: resource.api_version.clone(),
                    source,
                })?;
            if let Some(listed) = list.resources.iter().find(|r| r.name == resource.plural) {
                match listed.storage_version_hash.as_deref() {
                    Some(hash) if hash == expected => return Ok(()),
                    Some(_) => {}
                    None => {
                        tracing::warn!(
                            crd = target.crd,
                            "discovery reports no storageVersionHash; relying on the settle time alone"
                        );
                        return Ok(());
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(MigrationError::NotServing {
                    crd: target.crd.clone(),
                    version: target.storage.clone(),
                    timeout: SERVING_TIMEOUT,
                });
            }
            self.pause(SERVING_POLL).await?;
        }
    }

    /// Step 4: pages through every object, writing back each one this process has not written unchanged since.
    async fn rewrite_all(&mut self, target: &Target) -> Result<Counts, MigrationError> {
        let earlier = self.confirmed.remove(&target.crd).unwrap_or_default();
        let mut confirmed = earlier.for_generation(target.generation);
        let counts = self.list_and_rewrite(target, &mut confirmed).await;
        self.confirmed.insert(target.crd.clone(), confirmed);
        counts
    }

    async fn list_and_rewrite(
        &self,
        target: &Target,
        confirmed: &mut Confirmed,
    ) -> Result<Counts, MigrationError> {
        let api = Api::<DynamicObject>::all_with(self.ctx.client(), &target.resource);
        let mut pacer =
            tokio::time::interval(Duration::from_secs_f64(1.0 / self.writes_per_second));
        pacer.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut counts = Counts::default();
        let mut continue_token: Option<String> = None;
        loop {
            let params = ListParams {
                limit: Some(self.page_size),
                continue_token: continue_token.clone(),
                ..ListParams::default()
            };
            let page = match api.list(&params).await {
                Ok(page) => page,
                Err(kube::Error::Api(status)) if status.code == 410 && continue_token.is_some() => {
                    tracing::warn!(
                        crd = target.crd,
                        "list continue token expired; listing again from the start"
                    );
                    continue_token = None;
                    continue;
                }
                Err(source) => {
                    return Err(MigrationError::List {
                        crd: target.crd.clone(),
                        source,
                    });
                }
            };
            counts.add(
                self.rewrite_page(target, page.items, &mut pacer, confirmed)
                    .await?,
            );
            tracing::info!(
                crd = target.crd,
                ?counts,
                "storage-version migration progress"
            );
            continue_token = page.metadata.continue_.filter(|token| !token.is_empty());
            if continue_token.is_none() {
                return Ok(counts);
            }
        }
    }

    async fn rewrite_page(
        &self,
        target: &Target,
        items: Vec<DynamicObject>,
        pacer: &mut tokio::time::Interval,
        confirmed: &mut Confirmed,
    ) -> Result<Counts, MigrationError> {
        let mut counts = Counts::default();
        for obj in items {
            if confirmed.holds(&obj) {
                continue;
            }
            tokio::select! {
                biased;
                _ = self.ctx.shutdown_signal() => return Err(MigrationError::Interrupted(SHUTTING_DOWN)),
                _ = pacer.tick() => {}
            }
            self.may_write()?;
            let written = self.rewrite(target, obj).await?;
            self.metrics.count(&target.crd, &written);
            match written {
                Written::Rewritten(obj) => {
                    counts.rewritten += 1;
                    confirmed.insert(&obj);
                }
                Written::Unchanged(obj) => {
                    counts.unchanged += 1;
                    confirmed.insert(&obj);
                }
                Written::Gone => counts.gone += 1,
            }
        }
        Ok(counts)
    }

    /// Writes one object back unchanged; on a conflict, re-reads it and tries again.
    async fn rewrite(
        &self,
        target: &Target,
        mut obj: DynamicObject,
    ) -> Result<Written, MigrationError> {
        let api = target.api_for(self.ctx.client(), obj.namespace().as_deref());
        let name = obj.name_any();
        let object = match obj.namespace() {
            Some(ns) => format!("{ns}/{name}"),
            None => name.clone(),
        };
        for _ in 0..MAX_CONFLICTS {
            let sent_version = obj.resource_version();
            obj.types = Some(target.type_meta());
            match api.replace(&name, &PostParams::default(), &obj).await {
                Ok(stored) if stored.resource_version() == sent_version => {
                    return Ok(Written::Unchanged(stored));
                }
                Ok(stored) => return Ok(Written::Rewritten(stored)),
                Err(kube::Error::Api(status)) if status.is_not_found() => return Ok(Written::Gone),
                Err(kube::Error::Api(status)) if status.is_conflict() => {
                    let reread = api.get_opt(&name).await;
                    obj = match reread.map_err(|source| rewrite_error(target, &object, source))? {
                        Some(current) => current,
                        None => return Ok(Written::Gone),
                    };
                    self.may_write()?;
                }
                Err(source) => return Err(rewrite_error(target, &object, source)),
            }
        }
        Err(MigrationError::Conflicts {
            crd: target.crd.clone(),
            object,
        })
    }

    /// Step 5: drops the old versions if the CRD's spec and stored versions are what the round started from.
    /// False when they changed (the round must start over).
    async fn commit(&self, target: &Target) -> Result<bool, MigrationError> {
        let now = self.observe(&target.crd).await?;
        if (&now.generation, &now.storage, &now.stored)
            != (&target.generation, &target.storage, &target.stored)
        {
            return Ok(false);
        }
        self.may_write()?;
        let patch = serde_json::json!({
            "metadata": { "resourceVersion": now.resource_version },
            "status": { "storedVersions": [target.storage] },
        });
        let patched = Api::<CustomResourceDefinition>::all(self.ctx.client())
            .patch_status(&target.crd, &PatchParams::default(), &Patch::Merge(&patch))
            .await;
        match patched {
            Ok(_) => Ok(true),
            Err(kube::Error::Api(status)) if status.is_conflict() => Ok(false),
            Err(source) => Err(MigrationError::UpdateStoredVersions {
                crd: target.crd.clone(),
                version: target.storage.clone(),
                source,
            }),
        }
    }

    /// Whether a write may start: the manager is not shutting down and this replica's leader term runs.
    fn may_write(&self) -> Result<(), MigrationError> {
        if self.ctx.is_shutting_down() {
            Err(MigrationError::Interrupted(SHUTTING_DOWN))
        } else if !self.ctx.is_leader() {
            Err(MigrationError::Interrupted("this replica does not lead"))
        } else {
            Ok(())
        }
    }

    /// Sleeps `duration`, or fails with `Interrupted` when the manager shuts down first.
    async fn pause(&self, duration: Duration) -> Result<(), MigrationError> {
        tokio::select! {
            biased;
            _ = self.ctx.shutdown_signal() => Err(MigrationError::Interrupted(SHUTTING_DOWN)),
            _ = tokio::time::sleep(duration) => Ok(()),
        }
    }
}

const SHUTTING_DOWN: &str = "the manager is shutting down";

fn rewrite_error(target: &Target, object: &str, source: kube::Error) -> MigrationError {
    MigrationError::Rewrite {
        crd: target.crd.clone(),
        object: object.into(),
        source,
    }
}

/// What one write did.
enum Written {
    Rewritten(DynamicObject),
    Unchanged(DynamicObject),
    Gone,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.rewritten += other.rewritten;
        self.unchanged += other.unchanged;
        self.gone += other.gone;
    }
}

/// A CRD as a round sees it: what it stores, and how its objects are read and written.
struct Target {
    crd: String,
    storage: String,
    stored: Vec<String>,
    generation: Option<i64>,
    resource_version: Option<String>,
    /// The version objects are read and written in: the storage version when served.
    resource: ApiResource,
    namespaced: bool,
}

impl Target {
    fn from_crd(crd: &CustomResourceDefinition) -> Result<Self, MigrationError> {
        let name = crd.name_any();
        let versions = &crd.spec.versions;
        let storage =
            versions
                .iter()
                .find(|v| v.storage)
                .ok_or_else(|| MigrationError::NoVersion {
                    crd: name.clone(),
                    what: "storage",
                })?;
        let served = if storage.served {
            Some(storage)
        } else {
            versions.iter().find(|v| v.served)
        };
        let served = served.ok_or_else(|| MigrationError::NoVersion {
            crd: name.clone(),
            what: "served",
        })?;
        let group = &crd.spec.group;
        let resource = ApiResource {
            group: group.clone(),
            version: served.name.clone(),
            api_version: format!("{group}/{}", served.name),
            kind: crd.spec.names.kind.clone(),
            plural: crd.spec.names.plural.clone(),
        };
        Ok(Self {
            storage: storage.name.clone(),
            stored: crd
                .status
                .as_ref()
                .and_then(|s| s.stored_versions.clone())
                .unwrap_or_default(),
            generation: crd.metadata.generation,
            resource_version: crd.metadata.resource_version.clone(),
            resource,
            namespaced: crd.spec.scope == "Namespaced",
            crd: name,
        })
    }

    /// How many stored versions are still to drop.
    fn pending_versions(&self) -> usize {
        self.stored.iter().filter(|v| **v != self.storage).count()
    }

    fn api_for(&self, client: kube::Client, namespace: Option<&str>) -> Api<DynamicObject> {
        match namespace {
            Some(ns) if self.namespaced => Api::namespaced_with(client, ns, &self.resource),
            _ => Api::all_with(client, &self.resource),
        }
    }

    fn type_meta(&self) -> TypeMeta {
        TypeMeta {
            api_version: self.resource.api_version.clone(),
            kind: self.resource.kind.clone(),
        }
    }
}

/// Objects this process wrote in the storage version of one CRD generation, by uid, with the resourceVersion the
/// write returned: unchanged since, they are still stored in that version.
#[derive(Default)]
struct Confirmed {
    generation: Option<i64>,
    versions: HashMap<String, String>,
}

impl Confirmed {
    /// Itself if it was made for `generation`, else an empty set for it: a new spec may store another version.
    fn for_generation(self, generation: Option<i64>) -> Self {
        if self.generation == generation {
            self
        } else {
            Self {
                generation,
                versions: HashMap::new(),
            }
        }
    }

    fn holds(&self, obj: &DynamicObject) -> bool {
        let (Some(uid), Some(version)) = (obj.uid(), obj.resource_version()) else {
            return false;
        };
        self.versions.get(&uid) == Some(&version)
    }

    fn insert(&mut self, obj: &DynamicObject) {
        if let (Some(uid), Some(version)) = (obj.uid(), obj.resource_version()) {
            self.versions.insert(uid, version);
        }
    }
}

/// The API server's `storageVersionHash` of a resource stored as group/version/kind: the first 8 bytes of the
/// SHA-256 of "group/version/kind", base64-encoded. SHA-256 comes from rustls' ring provider, already linked.
fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    use rustls::crypto::ring::cipher_suite::TLS13_AES_128_GCM_SHA256;
    let suite = TLS13_AES_128_GCM_SHA256.tls13().expect("a TLS 1.3 suite");
    let digest = suite
        .common
        .hash_provider
        .hash(format!("{group}/{version}/{kind}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ObjectLabels {
    resource: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResourceLabels {
    resource: String,
}

/// The migrator's metrics (module docs, "Progress").
#[derive(Clone, Default)]
struct MigrationMetrics {
    objects: Family<ObjectLabels, Counter>,
    pending: Family<ResourceLabels, Gauge>,
    /// Whether registration was decided (at the first CRD named).
    registered: bool,
}

const OBJECTS_METRIC: &str = "storage_migration_objects";
const OUTCOMES: [&str; 3] = ["rewritten", "unchanged", "gone"];

impl MigrationMetrics {
    /// Starts `resource`'s object counts at 0 (its pending versions are set once a round has read the CRD), registering
    /// the families in the manager's registry with the first CRD named.
    /// A registry shows only families that have series, so registering and making the first series at once lets a
    /// second migrator of the same manager see the first one's families: it then counts without exporting, rather
    /// than breaking /metrics with a duplicate family.
    fn track(&mut self, ctx: &Context, resource: &str) {
        if !self.registered {
            self.registered = true;
            self.register(ctx);
        }
        for outcome in OUTCOMES {
            let labels = ObjectLabels {
                resource: resource.into(),
                outcome: outcome.into(),
            };
            self.objects.get_or_create(&labels).inc_by(0);
        }
    }

    fn register(&self, ctx: &Context) {
        let registry = ctx.metrics();
        if registry
            .encode()
            .contains(&format!("# TYPE {OBJECTS_METRIC} counter"))
        {
            tracing::warn!(
                "a second StorageMigration in one manager: its metrics are not exported; name every kind in one"
            );
            return;
        }
        registry.register(
            OBJECTS_METRIC,
            "Objects a storage-version migration wrote back, by outcome: rewritten, unchanged, gone",
            self.objects.clone(),
        );
        registry.register(
            "storage_migration_pending_versions",
            "Versions in a CRD's status.storedVersions besides its storage version",
            self.pending.clone(),
        );
    }

    fn count(&self, resource: &str, written: &Written) {
        let outcome = match written {
            Written::Rewritten(_) => OUTCOMES[0],
            Written::Unchanged(_) => OUTCOMES[1],
            Written::Gone => OUTCOMES[2],
        };
        let labels = ObjectLabels {
            resource: resource.into(),
            outcome: outcome.into(),
        };
        self.objects.get_or_create(&labels).inc();
    }

    fn set_pending(&self, resource: &str, versions: usize) {
        let labels = ResourceLabels {
            resource: resource.into(),
        };
        self.pending.get_or_create(&labels).set(versions as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_storage_version_hash_is_the_api_servers() {
        // As kube-apiserver's discovery reports it for apps/v1 deployments.
        assert_eq!(
            storage_version_hash("apps", "v1", "Deployment"),
            "8aSe+NMegvE="
        );
    }
}
