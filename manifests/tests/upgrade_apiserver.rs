//! The evidence behind `rkb manifests --check`: for each rule of [`rkb_manifests::compat`], a test on a real
//! kube-apiserver that shows what the change it refuses breaks, and the checker's verdict on that same pair of
//! CRDs.
//!
//! Each `rule_<rule>` test installs an old CRD (a group of its own, `<rule>.upgrade.rkb.test`, so the tests run
//! side by side), stores an object under it the way a client does (server-side apply of a manifest, strict field
//! validation as kubectl sends it), replaces the CRD with the new one and shows the break where it happens on
//! the server, then asserts that `compare(old, new)` reports exactly that rule at that place. `rule_crd_removed`
//! has no new CRD: it deletes the old one, as a release without it applied with pruning does (its verdict is the
//! CLI's, in tests/compat_cli.rs).
//! `safe_changes_pass` is the counterpart: changes the checker lets through, and the server keeps accepting the
//! old manifest. Two more cases the rules' documentation needs: `rule_list_type_changed_to_atomic` (a change
//! that refuses no value and still breaks the list's co-owners) and
//! `a_deprecated_version_still_stored_is_kept_by_the_server` (a removed deprecated version, which the server
//! refuses to drop until a storage migration, and the checker reports as `stored-version-removed`).
//! `every_rule_has_a_test_on_the_api_server` keeps the list complete.
//!
//! Where the break shows: since Kubernetes 1.33 the API server ratchets CRD validation (an update that leaves an
//! invalid value unchanged is let through), so a tightened schema (a required field, an enum, a limit, a CEL rule)
//! does not break the stored object's own re-apply: the tests show that, and the break where it happens, the same
//! manifest created as a new object (another namespace, a re-install, a restore from backup). Server-side apply
//! types a manifest with the schema before any validation, so nothing ratchets there: after a type change or a
//! list made a set, applying the stored object's own unchanged manifest fails with HTTP 500. A removed or narrowed
//! field breaks differently: its data is pruned from every read. Defaults are applied on read too: adding one
//! changes what a GET of a stored object returns; changing or removing one changes what the same manifest creates.
//!
//! One API server serves the whole file. The tests are plain `#[test]`s that share one tokio runtime, because a
//! kube client belongs to the runtime that made it. The server is never stopped: it dies with the test process
//! (envtest's parent-death signal) and the next envtest start sweeps its directory.

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::Status;
use rkb_envtest::{Environment, eventually};
use rkb_manifests::compat::{Rule, compare};
use serde_json::{Value, json};

/// How long a test waits for the server to act on a CRD change (it rebuilds a CRD's handler asynchronously).
const WAIT: Duration = Duration::from_secs(30);

/// The API server and the runtime its client lives on, shared by every test of the file.
struct Shared {
    runtime: tokio::runtime::Runtime,
    env: Environment,
}

/// Runs a test's body on the shared runtime, against the shared API server (started by the first test).
fn on_server<F: Future<Output = ()>>(body: impl FnOnce(&'static Environment) -> F) {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    let shared = SHARED.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let env = runtime
            .block_on(Environment::start())
            .unwrap_or_else(|err| panic!("envtest did not start:\n{err:?}"));
        Shared { runtime, env }
    });
    shared.runtime.block_on(body(&shared.env));
}

// ---- the CRDs ----

/// A structural object schema with `properties`.
fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// A version of a CRD whose objects' `spec` has the schema `spec`.
fn version(name: &str, served: bool, storage: bool, spec: Value) -> Value {
    json!({
        "name": name, "served": served, "storage": storage,
        "schema": {"openAPIV3Schema": object(json!({"spec": spec}))},
    })
}

/// The namespaced CRD `things.<rule>.upgrade.rkb.test` with one version, `v1`, whose `spec` has the schema `spec`.
fn crd(rule: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("things.{}", group(rule))},
        "spec": {
            "group": group(rule),
            "names": {"kind": "Thing", "listKind": "ThingList", "plural": "things", "singular": "thing"},
            "scope": "Namespaced",
            "versions": [version("v1", true, true, spec)],
        },
    })
}

fn group(rule: &str) -> String {
    format!("{rule}.upgrade.rkb.test")
}

/// `old` with `change` made to a copy: the new CRD of a pair.
fn changed(old: &Value, change: impl FnOnce(&mut Value)) -> Value {
    let mut new = old.clone();
    change(&mut new);
    new
}

/// The schema of `spec` in the CRD's first version, where most changes are made.
fn spec_of(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

// ---- what a client does ----

/// One pair of CRDs on the server (the old one installed first), and the objects a client makes of them.
struct Upgrade {
    env: &'static Environment,
    /// The pair's name, its group's first label: the rule's name.
    name: &'static str,
    old: Value,
    new: Value,
}

impl Upgrade {
    /// Installs `old` (waiting until it is Established) for the pair (`old`, `new`) named `name`.
    async fn install(
        env: &'static Environment,
        name: &'static str,
        old: Value,
        new: Value,
    ) -> Self {
        let crd: CustomResourceDefinition = serde_json::from_value(old.clone()).unwrap();
        env.install_crds([crd])
            .await
            .unwrap_or_else(|err| panic!("{name}: the old CRD is refused:\n{err:?}"));
        Upgrade {
            env,
            name,
            old,
            new,
        }
    }

    /// Installs the pair named `name` of the CRD whose `spec` has the schema `spec` and the same CRD with
    /// `change` made to that schema.
    async fn of_spec(
        env: &'static Environment,
        name: &'static str,
        spec: Value,
        change: impl FnOnce(&mut Value),
    ) -> Self {
        let old = crd(name, spec);
        let new = changed(&old, |crd| change(spec_of(crd)));
        Upgrade::install(env, name, old, new).await
    }

    /// Replaces the old CRD with the new one, as `kubectl apply` of the next release does; the server's refusal
    /// when it refuses.
    async fn upgrade(&self) -> Result<(), Box<Status>> {
        let api: Api<CustomResourceDefinition> = Api::all(self.env.client());
        let mut crd: CustomResourceDefinition = serde_json::from_value(self.new.clone()).unwrap();
        let name = crd.metadata.name.clone().unwrap();
        crd.metadata.resource_version = api.get(&name).await.unwrap().metadata.resource_version;
        let replaced = api.replace(&name, &PostParams::default(), &crd).await;
        answered(replaced, "replacing the CRD").map(drop)
    }

    /// Things of API version `version` in namespace `default`.
    fn things(&self, version: &str) -> Api<DynamicObject> {
        let group = group(self.name);
        let resource = ApiResource {
            api_version: format!("{group}/{version}"),
            group,
            version: version.into(),
            kind: "Thing".into(),
            plural: "things".into(),
        };
        Api::namespaced_with(self.env.client(), "default", &resource)
    }

    /// The manifest of Thing `name` in `version` with `spec`.
    fn manifest(&self, version: &str, name: &str, spec: &Value) -> Value {
        json!({
            "apiVersion": format!("{}/{version}", group(self.name)),
            "kind": "Thing",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        })
    }

    /// Applies Thing `name` of `v1` with `spec` as `kubectl apply --server-side` does (field manager `client`,
    /// strict field validation); the object the server returns, or its refusal.
    async fn apply(&self, name: &str, spec: &Value) -> Result<Value, Box<Status>> {
        self.apply_as("client", "v1", name, spec).await
    }

    /// Applies Thing `name` of `version` with `spec` server-side as field manager `manager`.
    async fn apply_as(
        &self,
        manager: &str,
        version: &str,
        name: &str,
        spec: &Value,
    ) -> Result<Value, Box<Status>> {
        let params = PatchParams::apply(manager).validation_strict();
        let manifest = self.manifest(version, name, spec);
        let applied = self
            .things(version)
            .patch(name, &params, &Patch::Apply(&manifest))
            .await;
        answered(applied, &format!("{}: applying {name}", self.name))
    }

    /// Creates Thing `name` of `v1` with `spec` (a POST, as `kubectl create` does, and `kubectl apply` for an
    /// object that does not exist yet); the object the server returns, or its refusal. A dry run is checked and
    /// not stored.
    async fn create(&self, name: &str, spec: &Value, dry_run: bool) -> Result<Value, Box<Status>> {
        let params = PostParams {
            dry_run,
            ..PostParams::default()
        };
        let object: DynamicObject =
            serde_json::from_value(self.manifest("v1", name, spec)).unwrap();
        let created = self.things("v1").create(&params, &object).await;
        answered(created, &format!("{}: creating {name}", self.name))
    }

    /// Merge-patches Thing `name` of `v1` with `spec` (as `kubectl patch --type merge` does, and client-side
    /// `kubectl apply` of a custom resource); the object's new spec, or the server's refusal.
    async fn merge(&self, name: &str, spec: &Value) -> Result<Value, Box<Status>> {
        let patch = Patch::Merge(json!({"spec": spec}));
        let patched = self
            .things("v1")
            .patch(name, &PatchParams::default(), &patch)
            .await;
        answered(patched, &format!("{}: patching {name}", self.name)).map(|o| o["spec"].clone())
    }

    /// The spec of Thing `name` of `v1` as a GET returns it.
    async fn get(&self, name: &str) -> Value {
        let object = self.things("v1").get(name).await;
        answered(object, &format!("{}: reading {name}", self.name)).unwrap()["spec"].clone()
    }

    /// Waits until the new CRD is in force for writes: until a dry-run create of Thing `name` with `spec` is
    /// refused (a real create accepted meanwhile would store the object, and ratcheting would then let its
    /// manifest through). Then creates it for real and returns the refusal.
    async fn refused(&self, name: &str, spec: &Value) -> Box<Status> {
        let what = format!("{}: the new CRD refuses Thing {name} {spec}", self.name);
        eventually(&what, WAIT, || async {
            Ok::<_, String>(self.create(name, spec, true).await.err().map(drop))
        })
        .await
        .unwrap();
        self.create(name, spec, false)
            .await
            .expect_err("a dry run was refused, the real create must be too")
    }

    /// Waits until a dry-run create of Thing `name` with `spec` returns a `spec` for which `holds` is true (the new
    /// CRD in force for creates), then creates it for real and returns the stored spec.
    async fn created_until(
        &self,
        name: &str,
        spec: &Value,
        what: &str,
        holds: impl Fn(&Value) -> bool,
    ) -> Value {
        let what = format!("{}: creating {name} {spec} yields {what}", self.name);
        eventually(&what, WAIT, || async {
            let dry = self.create(name, spec, true).await.map_err(|s| s.message)?;
            Ok::<_, String>(holds(&dry["spec"]).then_some(()))
        })
        .await
        .unwrap();
        self.create(name, spec, false).await.unwrap()["spec"].clone()
    }

    /// Waits until a GET of Thing `name` returns a `spec` for which `holds` is true, and returns that spec.
    async fn read_until(&self, name: &str, what: &str, holds: impl Fn(&Value) -> bool) -> Value {
        let what = format!("{}: a GET of {name} returns {what}", self.name);
        eventually(&what, WAIT, || async {
            let spec = self.get(name).await;
            Ok::<_, String>(holds(&spec).then_some(spec))
        })
        .await
        .unwrap()
    }

    /// Asserts the checker reports exactly `expected` (rule, version, path) findings for this pair.
    fn assert_verdict(&self, expected: &[(Rule, &str, &str)]) {
        let findings = compare(&self.old, &self.new);
        let got: Vec<(Rule, &str, &str)> = findings
            .iter()
            .map(|f| (f.rule, f.version.as_str(), f.path.as_str()))
            .collect();
        assert_eq!(
            got, expected,
            "{}: the checker's findings: {findings:#?}",
            self.name
        );
    }
}

/// What a request returned: the object as JSON, or the server's refusal. Not reaching the server (`doing`
/// says what the test was doing) ends the test.
fn answered<T: serde::Serialize>(
    result: kube::Result<T>,
    doing: &str,
) -> Result<Value, Box<Status>> {
    match result {
        Ok(object) => Ok(serde_json::to_value(object).unwrap()),
        Err(kube::Error::Api(status)) => Err(status),
        Err(other) => panic!("{doing}: {other}"),
    }
}

/// Asserts the server refused with HTTP `code` and a message that holds `says`, the part that names the field
/// and why (the rest names the object).
fn assert_refusal(status: &Status, code: u16, says: &str) {
    assert_eq!(status.code, code, "{status:?}");
    assert!(
        status.message.contains(says),
        "the server said:\n{}\nexpected it to say:\n{says}",
        status.message
    );
}

/// A change that makes a schema accept less (a required field, an enum, a limit, a CEL rule), with its proof.
struct Narrowing {
    rule: Rule,
    /// The old CRD's `spec` schema.
    spec: Value,
    /// The change the new CRD makes to it.
    change: fn(&mut Value),
    /// A `spec` the old CRD accepts and the new one does not.
    manifest: Value,
    /// What the server says when it refuses `manifest` (HTTP 422).
    says: &'static str,
    /// Where the checker reports the change (in `v1`).
    path: &'static str,
}

/// The break of a narrowing: its `manifest`, stored as Thing `x` under the old CRD, is refused as a new object
/// under the new one, while the stored object's own manifest, unchanged, still applies (ratcheting); and the
/// checker reports exactly the narrowing's rule at its path.
fn prove_narrowing(narrowing: Narrowing) {
    let Narrowing {
        rule,
        spec,
        change,
        manifest,
        says,
        path,
    } = narrowing;
    on_server(|env| async move {
        let up = Upgrade::of_spec(env, rule.name(), spec, change).await;
        up.apply("x", &manifest).await.unwrap();
        up.upgrade().await.unwrap();
        let refused = up.refused("y", &manifest).await;
        assert_refusal(&refused, 422, says);
        up.apply("x", &manifest)
            .await
            .expect("the stored object's own manifest, unchanged, is ratcheted");
        up.assert_verdict(&[(rule, "v1", path)]);
    });
}

// ---- the rules ----

/// Changing the scope is refused by the API server itself: every stored object's key has (or has not) a
/// namespace, so none would survive.
#[test]
fn rule_scope_changed() {
    on_server(|env| async move {
        let name = Rule::ScopeChanged.name();
        let old = crd(name, object(json!({"replicas": {"type": "integer"}})));
        let new = changed(&old, |crd| crd["spec"]["scope"] = "Cluster".into());
        let up = Upgrade::install(env, name, old, new).await;
        up.apply("x", &json!({"replicas": 3})).await.unwrap();

        let refused = up
            .upgrade()
            .await
            .expect_err("the server refuses a new scope");
        assert_refusal(
            &refused,
            422,
            "spec.scope: Invalid value: \"Cluster\": field is immutable",
        );
        up.assert_verdict(&[(Rule::ScopeChanged, "", "")]);
    });
}

/// A version still in `status.storedVersions` cannot leave `spec.versions`: the API server refuses the new CRD
/// until every object is rewritten in another version and the status updated (a storage migration). The
/// removed version was served too; the checker reports it once, as `stored-version-removed`.
#[test]
fn rule_stored_version_removed() {
    on_server(|env| async move {
        let name = Rule::StoredVersionRemoved.name();
        let spec = object(json!({"replicas": {"type": "integer"}}));
        let old = crd(name, spec.clone());
        let new = changed(&old, |crd| {
            crd["spec"]["versions"] = json!([version("v2", true, true, spec)])
        });
        let up = Upgrade::install(env, name, old, new).await;
        up.apply("x", &json!({"replicas": 3})).await.unwrap();

        let refused = up
            .upgrade()
            .await
            .expect_err("the server keeps a stored version");
        assert_refusal(
            &refused,
            422,
            "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 was previously a \
             storage version, and must remain in spec.versions until a storage migration ensures no data remains \
             persisted in v1 and removes v1 from status.storedVersions",
        );
        up.assert_verdict(&[(Rule::StoredVersionRemoved, "v1", "")]);
    });
}

/// A served version that was never stored can go, and the server accepts the new CRD: the objects survive (read
/// through the other version), but every client still written against the removed version gets 404.
#[test]
fn rule_served_version_removed() {
    on_server(|env| async move {
        let name = Rule::ServedVersionRemoved.name();
        let spec = object(json!({"replicas": {"type": "integer"}}));
        let mut old = crd(name, spec.clone());
        old["spec"]["versions"] = json!([
            version("v1alpha1", true, false, spec.clone()),
            version("v1", true, true, spec)
        ]);
        let new = changed(&old, |crd| {
            crd["spec"]["versions"].as_array_mut().unwrap().remove(0);
        });
        let up = Upgrade::install(env, name, old, new).await;
        up.apply_as("client", "v1alpha1", "x", &json!({"replicas": 3}))
            .await
            .unwrap();

        up.upgrade()
            .await
            .expect("a version never stored may be removed");
        let gone = eventually("v1alpha1 is gone", WAIT, || async {
            match up.things("v1alpha1").get("x").await {
                Err(kube::Error::Api(status)) if status.code == 404 => Ok(Some(status)),
                Err(other) => Err(other.to_string()),
                Ok(_) => Ok(None),
            }
        })
        .await
        .unwrap();
        assert_eq!(gone.message, "404 page not found");
        assert_eq!(up.get("x").await, json!({"replicas": 3}));
        up.assert_verdict(&[(Rule::ServedVersionRemoved, "v1alpha1", "")]);
    });
}

/// A removed field's data is pruned from every read of the stored objects (and lost for good at their next
/// write); a new object created with it loses it without a word; the server-side apply of the stored object's own
/// manifest, with strict field validation as kubectl sends it, fails (HTTP 500, from server-side apply's typing).
#[test]
fn rule_field_removed() {
    on_server(|env| async move {
        let spec = object(json!({"replicas": {"type": "integer"}, "colour": {"type": "string"}}));
        let up = Upgrade::of_spec(env, Rule::FieldRemoved.name(), spec, |spec| {
            spec["properties"].as_object_mut().unwrap().remove("colour");
        })
        .await;
        let manifest = json!({"replicas": 3, "colour": "red"});
        up.apply("x", &manifest).await.unwrap();

        up.upgrade().await.unwrap();
        let read = up
            .read_until("x", "no colour", |s| s.get("colour").is_none())
            .await;
        assert_eq!(read, json!({"replicas": 3}));
        let created = up
            .created_until("y", &manifest, "no colour", |s| s.get("colour").is_none())
            .await;
        assert_eq!(created, json!({"replicas": 3}), "dropped without a word");
        let refused = up
            .apply("x", &manifest)
            .await
            .expect_err("strict validation refuses colour");
        assert_refusal(&refused, 500, ".spec.colour: field not declared in schema");
        up.assert_verdict(&[(Rule::FieldRemoved, "v1", ".spec.colour")]);
    });
}

/// A stored value of the old type stays as it is (a client decoding the new type fails on it); the same manifest
/// created as a new object is refused, and so is its server-side apply to the stored object, unchanged (HTTP 500:
/// server-side apply types the manifest with the new schema before any validation, so nothing is ratcheted). A
/// merge patch that leaves the value unchanged passes (ratcheting); one that changes it to another integer does not.
#[test]
fn rule_type_changed() {
    on_server(|env| async move {
        let spec = object(json!({"replicas": {"type": "integer"}}));
        let up = Upgrade::of_spec(env, Rule::TypeChanged.name(), spec, |spec| {
            spec["properties"]["replicas"]["type"] = "string".into()
        })
        .await;
        let manifest = json!({"replicas": 3});
        up.apply("x", &manifest).await.unwrap();

        up.upgrade().await.unwrap();
        let refused = up.refused("y", &manifest).await;
        let says = "spec.replicas: Invalid value: \"integer\": \
                    spec.replicas in body must be of type string: \"integer\"";
        assert_refusal(&refused, 422, says);
        assert_eq!(
            up.get("x").await,
            manifest,
            "the stored value is kept as it was"
        );
        let refused = up.apply("x", &manifest).await.unwrap_err();
        assert_refusal(&refused, 500, ".spec.replicas: expected string, got");
        up.merge("x", &manifest)
            .await
            .expect("an unchanged value is ratcheted");
        let refused = up.merge("x", &json!({"replicas": 4})).await.unwrap_err();
        assert_refusal(&refused, 422, says);
        up.assert_verdict(&[(Rule::TypeChanged, "v1", ".spec.replicas")]);
    });
}

/// A field required now: the manifest clients always applied, without it, is refused as a new object; the stored
/// object's own manifest, unchanged, still applies (ratcheting).
#[test]
fn rule_required_added() {
    prove_narrowing(Narrowing {
        rule: Rule::RequiredAdded,
        spec: object(json!({"replicas": {"type": "integer"}, "owner": {"type": "string"}})),
        change: |spec| spec["required"] = json!(["owner"]),
        manifest: json!({"replicas": 3}),
        says: "spec.owner: Required value",
        path: ".spec.owner",
    });
}

/// Defaults are applied when an object is read from storage: a new default changes what a GET of every stored
/// object without the field returns, with no one having written it.
#[test]
fn rule_default_added() {
    on_server(|env| async move {
        let spec = object(json!({"replicas": {"type": "integer"}, "mode": {"type": "string"}}));
        let up = Upgrade::of_spec(env, Rule::DefaultAdded.name(), spec, |spec| {
            spec["properties"]["mode"]["default"] = "fast".into()
        })
        .await;
        up.apply("x", &json!({"replicas": 3})).await.unwrap();
        assert_eq!(up.get("x").await, json!({"replicas": 3}));

        up.upgrade().await.unwrap();
        let read = up
            .read_until("x", "a mode", |spec| spec.get("mode").is_some())
            .await;
        assert_eq!(read, json!({"replicas": 3, "mode": "fast"}));
        up.assert_verdict(&[(Rule::DefaultAdded, "v1", ".spec.mode")]);
    });
}

/// A spec with `replicas` and a `mode` that defaults to `fast`, where the default rules start.
fn defaulted_mode() -> Value {
    object(json!({"replicas": {"type": "integer"}, "mode": {"type": "string", "default": "fast"}}))
}

/// The old default was written into each object when it was created, so stored objects keep it; the same
/// manifest created as a new object now means something else.
#[test]
fn rule_default_changed() {
    on_server(|env| async move {
        let up = Upgrade::of_spec(env, Rule::DefaultChanged.name(), defaulted_mode(), |spec| {
            spec["properties"]["mode"]["default"] = "slow".into()
        })
        .await;
        let manifest = json!({"replicas": 3});
        let stored = up.apply("x", &manifest).await.unwrap()["spec"].clone();
        assert_eq!(stored, json!({"replicas": 3, "mode": "fast"}));

        up.upgrade().await.unwrap();
        let created = up
            .created_until("y", &manifest, "mode: slow", |s| s["mode"] == "slow")
            .await;
        assert_eq!(created, json!({"replicas": 3, "mode": "slow"}));
        assert_eq!(up.get("x").await, stored);
        up.assert_verdict(&[(Rule::DefaultChanged, "v1", ".spec.mode")]);
    });
}

/// As for a changed default, stored objects keep the value written at their creation; the same manifest
/// created as a new object now has no value at all.
#[test]
fn rule_default_removed() {
    on_server(|env| async move {
        let up = Upgrade::of_spec(env, Rule::DefaultRemoved.name(), defaulted_mode(), |spec| {
            spec["properties"]["mode"]
                .as_object_mut()
                .unwrap()
                .remove("default");
        })
        .await;
        let manifest = json!({"replicas": 3});
        let stored = up.apply("x", &manifest).await.unwrap()["spec"].clone();
        assert_eq!(stored, json!({"replicas": 3, "mode": "fast"}));

        up.upgrade().await.unwrap();
        let created = up
            .created_until("y", &manifest, "no mode", |s| s.get("mode").is_none())
            .await;
        assert_eq!(created, manifest);
        assert_eq!(up.get("x").await, stored);
        up.assert_verdict(&[(Rule::DefaultRemoved, "v1", ".spec.mode")]);
    });
}

/// What the server says of `mode: turbo` where only `fast` and `slow` are allowed.
const NOT_IN_ENUM: &str =
    "spec.mode: Unsupported value: \"turbo\": supported values: \"fast\", \"slow\"";

/// An enum on a free string: a value clients used is refused in a new object; the stored object's own manifest,
/// unchanged, still applies (ratcheting).
#[test]
fn rule_enum_added() {
    prove_narrowing(Narrowing {
        rule: Rule::EnumAdded,
        spec: object(json!({"mode": {"type": "string"}})),
        change: |spec| spec["properties"]["mode"]["enum"] = json!(["fast", "slow"]),
        manifest: json!({"mode": "turbo"}),
        says: NOT_IN_ENUM,
        path: ".spec.mode",
    });
}

/// An enum value taken out: as for an enum added, the value is refused in a new object and ratcheted on the stored
/// one.
#[test]
fn rule_enum_value_removed() {
    prove_narrowing(Narrowing {
        rule: Rule::EnumValueRemoved,
        spec: object(json!({"mode": {"type": "string", "enum": ["fast", "slow", "turbo"]}})),
        change: |spec| spec["properties"]["mode"]["enum"] = json!(["fast", "slow"]),
        manifest: json!({"mode": "turbo"}),
        says: NOT_IN_ENUM,
        path: ".spec.mode",
    });
}

/// A limit moved so fewer values pass: a value that was valid is refused in a new object; the stored object's own
/// manifest, unchanged, still applies (ratcheting).
#[test]
fn rule_limit_tightened() {
    prove_narrowing(Narrowing {
        rule: Rule::LimitTightened,
        spec: object(json!({"name": {"type": "string", "maxLength": 16}})),
        change: |spec| spec["properties"]["name"]["maxLength"] = 8.into(),
        manifest: json!({"name": "twelve-chars"}),
        says: "spec.name: Too long: may not be more than 8 bytes",
        path: ".spec.name",
    });
}

/// A limit where there was none: as for a limit tightened, a value that was valid is refused in a new object and
/// ratcheted on the stored one.
#[test]
fn rule_limit_added() {
    prove_narrowing(Narrowing {
        rule: Rule::LimitAdded,
        spec: object(json!({"replicas": {"type": "integer"}})),
        change: |spec| spec["properties"]["replicas"]["maximum"] = 10.into(),
        manifest: json!({"replicas": 20}),
        says: "spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10",
        path: ".spec.replicas",
    });
}

/// Unknown fields the old schema kept are pruned from every read of the stored objects (and lost for good at
/// their next write).
#[test]
fn rule_preserve_unknown_fields_narrowed() {
    on_server(|env| async move {
        let spec = object(
            json!({"config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}),
        );
        let up = Upgrade::of_spec(
            env,
            Rule::PreserveUnknownFieldsNarrowed.name(),
            spec,
            |spec| {
                let config = spec["properties"]["config"].as_object_mut().unwrap();
                config.remove("x-kubernetes-preserve-unknown-fields");
            },
        )
        .await;
        up.apply("x", &json!({"config": {"level": "debug"}}))
            .await
            .unwrap();

        up.upgrade().await.unwrap();
        let read = up
            .read_until("x", "config without level", |s| {
                s["config"].get("level").is_none()
            })
            .await;
        assert_eq!(read, json!({"config": {}}));
        up.assert_verdict(&[(Rule::PreserveUnknownFieldsNarrowed, "v1", ".spec.config")]);
    });
}

/// An atomic list made a set: a list with a repeated entry, valid before, is refused in a new object, and the
/// server-side apply of the stored object's own manifest fails (HTTP 500: server-side apply builds the set before
/// validation, so nothing is ratcheted); a merge patch leaving the list unchanged passes.
#[test]
fn rule_list_type_changed() {
    on_server(|env| async move {
        let spec = object(json!({"tags": {"type": "array", "items": {"type": "string"}}}));
        let up = Upgrade::of_spec(env, Rule::ListTypeChanged.name(), spec, |spec| {
            spec["properties"]["tags"]["x-kubernetes-list-type"] = "set".into()
        })
        .await;
        let manifest = json!({"tags": ["a", "a"]});
        up.apply("x", &manifest).await.unwrap();

        up.upgrade().await.unwrap();
        let refused = up.refused("y", &manifest).await;
        assert_refusal(&refused, 422, "spec.tags[1]: Duplicate value: \"a\"");
        let refused = up.apply("x", &manifest).await.unwrap_err();
        assert_refusal(
            &refused,
            500,
            ".spec.tags: duplicate entries for key [=\"a\"]",
        );
        up.merge("x", &manifest)
            .await
            .expect("an unchanged list is ratcheted");
        up.assert_verdict(&[(Rule::ListTypeChanged, "v1", ".spec.tags")]);
    });
}

/// `schema` with the CEL rule `rule`.
fn with_rule(mut schema: Value, rule: &str) -> Value {
    schema["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    schema
}

/// What the server says of `replicas: 8` under the rule `self.replicas <= 5`.
const OVER_FIVE: &str = "spec: Invalid value: failed rule: self.replicas <= 5";

/// A CEL rule added: a value that was valid is refused in a new object; the stored object's own manifest,
/// unchanged, still applies (ratcheting: the rule does not use `oldSelf`).
#[test]
fn rule_cel_rule_added() {
    prove_narrowing(Narrowing {
        rule: Rule::CelRuleAdded,
        spec: object(json!({"replicas": {"type": "integer"}})),
        change: |spec| spec["x-kubernetes-validations"] = json!([{"rule": "self.replicas <= 5"}]),
        manifest: json!({"replicas": 8}),
        says: OVER_FIVE,
        path: ".spec",
    });
}

/// A CEL rule changed to allow less: as for a rule added, a value that was valid is refused in a new object and
/// ratcheted on the stored one.
#[test]
fn rule_cel_rule_changed() {
    prove_narrowing(Narrowing {
        rule: Rule::CelRuleChanged,
        spec: with_rule(
            object(json!({"replicas": {"type": "integer"}})),
            "self.replicas <= 10",
        ),
        change: |spec| spec["x-kubernetes-validations"][0]["rule"] = "self.replicas <= 5".into(),
        manifest: json!({"replicas": 8}),
        says: OVER_FIVE,
        path: ".spec",
    });
}

/// What the checker lets through: a description changed, a new optional field, an enum value added, a limit
/// relaxed, a CEL rule removed. Once the new CRD is in force (the new field is kept), the old manifest is still
/// accepted, on the stored object and as a new one, and reads the same.
#[test]
fn safe_changes_pass() {
    on_server(|env| async move {
        let spec = object(json!({
            "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How fast."},
            "name": {"type": "string", "maxLength": 8},
        }));
        let spec = with_rule(spec, "self.name != 'admin'");
        let up = Upgrade::of_spec(env, "safe-changes", spec, |spec| {
            spec["properties"]["mode"]["description"] = "How fast the thing runs.".into();
            spec["properties"]["mode"]["enum"] = json!(["fast", "slow", "turbo"]);
            spec["properties"]["name"]["maxLength"] = 16.into();
            spec["properties"]["colour"] = json!({"type": "string"});
            spec.as_object_mut()
                .unwrap()
                .remove("x-kubernetes-validations");
        })
        .await;
        let manifest = json!({"mode": "fast", "name": "short"});
        up.apply("x", &manifest).await.unwrap();

        up.upgrade().await.unwrap();
        let with_colour = json!({"mode": "turbo", "name": "longer-name", "colour": "red"});
        up.created_until("z", &with_colour, "colour kept", |s| s["colour"] == "red")
            .await;
        up.apply("x", &manifest)
            .await
            .expect("the stored object's manifest");
        let created = up
            .apply("y", &manifest)
            .await
            .expect("the same manifest as a new object");
        assert_eq!(created["spec"], manifest);
        assert_eq!(up.get("x").await, manifest);
        up.assert_verdict(&[]);
    });
}

/// The other way, a set made atomic, refuses no value, yet it breaks the clients that share the list: two field
/// managers that each applied their own entry (a set merges them) now conflict (HTTP 409) when either re-applies
/// its own unchanged manifest, since an atomic list has one owner.
#[test]
fn rule_list_type_changed_to_atomic() {
    on_server(|env| async move {
        let tags =
            json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"});
        let up = Upgrade::of_spec(
            env,
            "list-type-changed-to-atomic",
            object(json!({"tags": tags})),
            |spec| spec["properties"]["tags"]["x-kubernetes-list-type"] = "atomic".into(),
        )
        .await;
        let (mine, theirs) = (json!({"tags": ["a"]}), json!({"tags": ["b"]}));
        up.apply_as("a", "v1", "x", &mine).await.unwrap();
        up.apply_as("b", "v1", "x", &theirs).await.unwrap();
        assert_eq!(up.get("x").await, json!({"tags": ["a", "b"]}));

        up.upgrade().await.unwrap();
        let refused = eventually("manager a's apply conflicts", WAIT, || async {
            Ok::<_, String>(up.apply_as("a", "v1", "x", &mine).await.err())
        })
        .await
        .unwrap();
        assert_refusal(
            &refused,
            409,
            "Apply failed with 1 conflict: conflict with \"b\": .spec.tags",
        );
        let refused = up.apply_as("b", "v1", "x", &theirs).await.unwrap_err();
        assert_refusal(
            &refused,
            409,
            "Apply failed with 1 conflict: conflict with \"a\": .spec.tags",
        );
        up.assert_verdict(&[(Rule::ListTypeChanged, "v1", ".spec.tags")]);
    });
}

/// A version the baseline no longer stores may still be in `status.storedVersions`: the storage moved from v1 to
/// v2 in the baseline (v1 deprecated), but objects written before still sit in etcd as v1. The checker compares
/// CRDs and cannot see the status; the API server refuses the CRD until a storage migration has rewritten them,
/// so nothing is lost, and the release cannot be applied before. The checker reports the removal as
/// `stored-version-removed` (it may still be stored), acknowledged once the migration ran.
#[test]
fn a_deprecated_version_still_stored_is_kept_by_the_server() {
    on_server(|env| async move {
        let name = "stored-version-deprecated";
        let spec = object(json!({"replicas": {"type": "integer"}}));
        let first = crd(name, spec.clone());
        let mut v1 = version("v1", true, false, spec.clone());
        v1["deprecated"] = true.into();
        let baseline = changed(&first, |crd| {
            crd["spec"]["versions"] = json!([v1, version("v2", true, true, spec.clone())])
        });
        let next = changed(&baseline, |crd| {
            crd["spec"]["versions"] = json!([version("v2", true, true, spec)])
        });
        let moved = Upgrade::install(env, name, first, baseline.clone()).await;
        moved.apply("x", &json!({"replicas": 3})).await.unwrap();
        moved.upgrade().await.expect("the storage version may move");

        let up = Upgrade::install(env, name, baseline, next).await;
        let refused = up
            .upgrade()
            .await
            .expect_err("the server keeps a stored version");
        assert_refusal(
            &refused,
            422,
            "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions",
        );
        up.assert_verdict(&[(Rule::StoredVersionRemoved, "v1", "")]);
    });
}

/// `nullable` taken away: stored nulls are pruned from every read (a client that tells null from absent sees the
/// field gone), a new object created with the null loses it without a word, and the server-side apply of the
/// stored object's own manifest, null included, is refused (HTTP 422: to the server the null is a change now).
#[test]
fn rule_nullable_changed() {
    on_server(|env| async move {
        let spec = object(
            json!({"replicas": {"type": "integer"}, "owner": {"type": "string", "nullable": true}}),
        );
        let up = Upgrade::of_spec(env, Rule::NullableChanged.name(), spec, |spec| {
            spec["properties"]["owner"]
                .as_object_mut()
                .unwrap()
                .remove("nullable");
        })
        .await;
        let manifest = json!({"replicas": 3, "owner": null});
        up.apply("x", &manifest).await.unwrap();
        assert_eq!(up.get("x").await, manifest);

        up.upgrade().await.unwrap();
        let read = up
            .read_until("x", "no owner", |s| s.get("owner").is_none())
            .await;
        assert_eq!(read, json!({"replicas": 3}));
        let created = up.create("y", &manifest, false).await.unwrap();
        assert_eq!(
            created["spec"],
            json!({"replicas": 3}),
            "dropped without a word"
        );
        let refused = up.apply("x", &manifest).await.unwrap_err();
        let says = "spec.owner: Invalid value: \"null\": spec.owner in body must be of type string: \"null\"";
        assert_refusal(&refused, 422, says);
        up.assert_verdict(&[(Rule::NullableChanged, "v1", ".spec.owner")]);
    });
}

/// A CRD the next release no longer has: applied with pruning (`kubectl apply --prune`, a GitOps tool), the
/// release deletes it, and the API server deletes every object of it with it (before the CRD itself goes), so
/// installing the CRD again (rolling the release back) brings none back. `compare` compares one CRD with one and
/// never reports this rule: `rkb manifests` finds the baseline's file without a generated CRD (its verdict:
/// tests/compat_cli.rs, `a_crd_no_longer_generated_is_refused_at_the_baseline_file`).
#[test]
fn rule_crd_removed() {
    on_server(|env| async move {
        let name = Rule::CrdRemoved.name();
        let old = crd(name, object(json!({"replicas": {"type": "integer"}})));
        let up = Upgrade::install(env, name, old.clone(), Value::Null).await;
        up.apply("x", &json!({"replicas": 3})).await.unwrap();
        assert_eq!(up.get("x").await, json!({"replicas": 3}));

        let crds: Api<CustomResourceDefinition> = Api::all(env.client());
        let crd_name = format!("things.{}", group(name));
        crds.delete(&crd_name, &Default::default()).await.unwrap();
        eventually("the CRD is gone", WAIT, || async {
            match crds.get_opt(&crd_name).await {
                Ok(found) => Ok(found.is_none().then_some(())),
                Err(err) => Err(err.to_string()),
            }
        })
        .await
        .unwrap();
        let again: CustomResourceDefinition = serde_json::from_value(old).unwrap();
        env.install_crds([again])
            .await
            .unwrap_or_else(|err| panic!("{name}: the CRD installed again is refused:\n{err:?}"));
        let things = up.things("v1").list(&Default::default()).await.unwrap();
        assert_eq!(
            things.items.len(),
            0,
            "every object went with the CRD: {:?}",
            things.items
        );
    });
}

/// Every rule of the checker has its proof here, a test named `rule_<rule>`: a rule added to `compat` without one
/// fails this.
#[test]
fn every_rule_has_a_test_on_the_api_server() {
    let source = include_str!("upgrade_apiserver.rs");
    let missing: Vec<String> = Rule::all()
        .iter()
        .map(|rule| format!("rule_{}", rule.name().replace('-', "_")))
        .filter(|test| !source.contains(&format!("fn {test}()")))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a test on the API server: {missing:?}"
    );
}
