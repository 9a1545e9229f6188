//! Server-side apply with a field manager, and owner references: how generated controllers write the objects they
//! own.

use std::fmt::Debug;
use std::hash::{DefaultHasher, Hash, Hasher};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{DeleteParams, PartialObjectMeta, Patch, PatchParams};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;

/// Server-side applies `obj` as `field_manager`, taking ownership of conflicting fields (what a controller wants:
/// it is the source of truth for the fields it sets). apiVersion and kind are filled in from K, so a derived kind
/// with an empty TypeMeta applies fine. Returns the object as stored.
///
/// Inside a sharded controller's reconcile (see the `shard` module), every object applied of another kind than the
/// reconciled one gets the reconciled object's shard label, so the controller's label-selected watches of its
/// children see it; [`apply_answering_metadata`], [`apply_controlled`] and the child index's applies do the same.
pub async fn apply<K>(api: &Api<K>, obj: &K, field_manager: &str) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let (name, params, body) = apply_request(obj, field_manager)?;
    Ok(api.patch(&name, &params, &Patch::Apply(&body)).await?)
}

/// [`apply`], answered with the stored object's metadata only (`PartialObjectMetadata`, by the Accept header):
/// kube-apiserver encodes and sends a few hundred bytes instead of the whole object (a Deployment's defaults make
/// it several KiB), and nothing else is decoded. For writers that need only what the write did to the metadata:
/// its resourceVersion, uid, generation.
pub async fn apply_answering_metadata<K>(
    api: &Api<K>,
    obj: &K,
    field_manager: &str,
) -> Result<PartialObjectMeta<K>, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let (name, params, body) = apply_request(obj, field_manager)?;
    Ok(api
        .patch_metadata(&name, &params, &Patch::Apply(&body))
        .await?)
}

/// What [`apply`] sends: the object's name, forced apply as `field_manager`, and the body.
fn apply_request<K>(obj: &K, field_manager: &str) -> Result<(String, PatchParams, Value), Error>
where
    K: Resource<DynamicType = ()> + Serialize,
{
    let name = crate::error::required_name(obj)?.to_string();
    let mut body = apply_body(obj)?;
    // A child lives in its owner's shard (see the `shard` module); outside a sharded reconcile there is none.
    let shard = crate::shard::labels_for_child(&K::api_version(&()), &K::kind(&()));
    if let (false, Some(Value::Object(meta))) = (shard.is_empty(), body.get_mut("metadata")) {
        let labels = meta
            .entry("labels")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(labels) = labels {
            labels.extend(shard.into_iter().map(|(k, v)| (k, Value::String(v))));
        }
    }
    Ok((name, PatchParams::apply(field_manager).force(), body))
}

/// How often [`apply_controlled`] reads the live object again when it changed between its read and its apply.
const CONTROLLED_APPLY_ATTEMPTS: usize = 3;

/// Server-side applies `obj` with `owner` as its controller, unless the live object is controlled by another owner:
/// then nothing is written and the result is [`Error::ControlledByOther`] naming that controller.
///
/// Why not [`apply`] after [`set_controller_reference`]: ownerReferences is a list keyed by uid, so an apply that
/// lists only our reference drops every entry the same field manager applied before. When two owners reconciled by
/// one controller (same field manager) want the same child, say a shared Service, the second apply silently takes
/// the child from the first. This reads the live object first and applies with its resourceVersion as a
/// precondition, so a change between the read and the apply (another owner taking the child) is a conflict, read
/// again, instead of a takeover.
///
/// `obj` need not carry the reference (it is set here). A live object without a controller is taken over, as
/// controllerutil.SetControllerReference would. One window remains: two owners creating the same absent child at
/// the same moment (only possible with `.concurrency(n > 1)`); the later apply wins.
pub async fn apply_controlled<K, O>(
    api: &Api<K>,
    obj: &K,
    owner: &O,
    field_manager: &str,
) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
    O: Resource<DynamicType = ()>,
{
    let name = crate::error::required_name(obj)?.to_string();
    let mut desired = obj.clone();
    set_controller_reference(owner, &mut desired)?;
    let ours = controller_owner_ref(owner)?.uid;
    let mut attempt = 1;
    loop {
        let live = api.get_opt(&name).await?;
        if let Some(other) = live
            .as_ref()
            .and_then(controller_of)
            .filter(|r| r.uid != ours)
        {
            return Err(Error::ControlledByOther {
                object: object_name::<K>(&name, obj.meta().namespace.as_deref()),
                controller: Box::new(other.clone()),
            });
        }
        // Absent: nothing to guard (the server has no create-only precondition for apply; see the doc above).
        desired.meta_mut().resource_version = live.and_then(|l| l.meta().resource_version.clone());
        match apply(api, &desired, field_manager).await {
            // 409 with force=true is the precondition (or a concurrent create): look again.
            Err(Error::Kube(kube::Error::Api(status)))
                if status.code == 409 && attempt < CONTROLLED_APPLY_ATTEMPTS =>
            {
                attempt += 1;
            }
            result => return result,
        }
    }
}

/// Deletes `name` (background propagation: its dependents are collected after it). `Ok(false)` when it does not
/// exist; `Ok(true)` when the API server accepted the deletion (finalizers may keep the object a while).
pub async fn delete_if_exists<K>(api: &Api<K>, name: &str) -> Result<bool, Error>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The controller reference of `obj` (metav1.GetControllerOf): the owner reference with controller=true.
pub fn controller_of<K: Resource>(obj: &K) -> Option<&OwnerReference> {
    obj.meta()
        .owner_references
        .as_deref()?
        .iter()
        .find(|r| r.controller == Some(true))
}

/// "Kind namespace/name" for messages.
fn object_name<K: Resource<DynamicType = ()>>(name: &str, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("{} {ns}/{name}", K::kind(&())),
        None => format!("{} {name}", K::kind(&())),
    }
}

/// Server-side applies only the status of `obj` (the status subresource) as `field_manager`.
pub async fn apply_status<K>(api: &Api<K>, obj: &K, field_manager: &str) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let status = apply_body(obj)?
        .get_mut("status")
        .map(Value::take)
        .unwrap_or(Value::Null);
    send_status(api, obj, status, field_manager).await
}

/// What a write that skips unchanged content did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// Sent to the API server.
    Applied,
    /// Already as desired: nothing was sent.
    Skipped,
}

/// Server-side applies `status` as the status of `obj` (the object as read, usually from the cache) unless `obj`
/// already shows it: a status write is itself a change of the object, which would reconcile it again.
///
/// Statuses are compared as JSON, conditions' `lastTransitionTime` apart ([`status_fingerprint`]). A reconcile that
/// runs again before the cache shows its last write (a child's event came first) computes the same status from the
/// older copy and writes it again; [`crate::child_index::ChildIndex::apply_status`] remembers its writes to spare
/// that one too.
pub async fn apply_status_if_changed<K, S>(
    api: &Api<K>,
    obj: &K,
    status: &S,
    field_manager: &str,
) -> Result<Write, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
    S: Serialize,
{
    let desired = serde_json::to_value(status)?;
    let written = apply_status_value_if_changed(api, obj, desired, field_manager).await?;
    Ok(if written.is_some() {
        Write::Applied
    } else {
        Write::Skipped
    })
}

/// [`apply_status_if_changed`] of a status already turned into JSON; the stored object when it was written.
pub(crate) async fn apply_status_value_if_changed<K>(
    api: &Api<K>,
    obj: &K,
    desired: Value,
    field_manager: &str,
) -> Result<Option<K>, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let current = serde_json::to_value(obj)?
        .get_mut("status")
        .map(Value::take)
        .unwrap_or(Value::Null);
    if status_fingerprint(&current) == status_fingerprint(&desired) {
        return Ok(None);
    }
    Ok(Some(send_status(api, obj, desired, field_manager).await?))
}

/// A fingerprint of what a status says: its JSON with every `lastTransitionTime` left out, so a condition recomputed
/// from an older copy of the object (a new transition time, the same status, reason and message) counts as the same.
pub fn status_fingerprint(status: &Value) -> u64 {
    fn without_transition_times(value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(key, _)| key.as_str() != "lastTransitionTime")
                    .map(|(key, v)| (key.clone(), without_transition_times(v)))
                    .collect(),
            ),
            Value::Array(items) => {
                Value::Array(items.iter().map(without_transition_times).collect())
            }
            other => other.clone(),
        }
    }
    fingerprint(&without_transition_times(status))
}

/// A fingerprint of what would be applied (the child index compares them to skip writes that change nothing).
pub fn fingerprint<T: Serialize>(obj: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    serde_json::to_vec(obj)
        .unwrap_or_default()
        .hash(&mut hasher);
    hasher.finish()
}

/// Server-side applies `status` to `obj`'s status subresource: the body names the object and holds nothing else.
async fn send_status<K>(
    api: &Api<K>,
    obj: &K,
    status: Value,
    field_manager: &str,
) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let name = crate::error::required_name(obj)?.to_string();
    let mut meta = serde_json::Map::new();
    meta.insert("name".into(), Value::String(name.clone()));
    if let Some(ns) = &obj.meta().namespace {
        meta.insert("namespace".into(), Value::String(ns.clone()));
    }
    let mut body = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "metadata": meta,
    });
    // No status is no opinion on it, not an empty one.
    if !status.is_null() {
        body["status"] = status;
    }
    Ok(api
        .patch_status(
            &name,
            &PatchParams::apply(field_manager).force(),
            &Patch::Apply(&body),
        )
        .await?)
}

/// The JSON sent for an apply: the object with apiVersion/kind set and server-owned bookkeeping dropped
/// (managedFields must be absent in an apply; creationTimestamp/uid are not ours to set).
pub fn apply_body<K>(obj: &K) -> Result<Value, Error>
where
    K: Resource<DynamicType = ()> + Serialize,
{
    let mut body = serde_json::to_value(obj)?;
    if let Value::Object(map) = &mut body {
        map.insert(
            "apiVersion".into(),
            Value::String(K::api_version(&()).into_owned()),
        );
        map.insert("kind".into(), Value::String(K::kind(&()).into_owned()));
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            for key in ["managedFields", "creationTimestamp", "uid", "generation"] {
                meta.remove(key);
            }
        }
    }
    Ok(body)
}

/// The controller owner reference pointing at `owner` (controller=true, blockOwnerDeletion=true, as
/// controllerutil.SetControllerReference writes it: foreground deletion of the owner waits for this object).
pub fn controller_owner_ref<O>(owner: &O) -> Result<OwnerReference, Error>
where
    O: Resource<DynamicType = ()>,
{
    // kube's Resource::controller_owner_ref sets only controller=true.
    let mut reference = owner.controller_owner_ref(&()).ok_or(Error::MissingField(
        "metadata.name or metadata.uid of the owner",
    ))?;
    reference.block_owner_deletion = Some(true);
    Ok(reference)
}

/// Sets `owner` as the controller of `obj` (controllerutil.SetControllerReference): replaces a reference to the
/// same owner, fails if another object already controls `obj`.
pub fn set_controller_reference<O, K>(owner: &O, obj: &mut K) -> Result<(), Error>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    let reference = controller_owner_ref(owner)?;
    if let Some(other) = controller_of(obj).filter(|r| r.uid != reference.uid) {
        return Err(Error::AlreadyOwned {
            kind: other.kind.clone(),
            name: other.name.clone(),
        });
    }
    let refs = obj.meta_mut().owner_references.get_or_insert_with(Vec::new);
    refs.retain(|r| r.uid != reference.uid);
    refs.push(reference);
    Ok(())
}

/// Adds `owner` as a non-controller owner of `obj` (controllerutil.SetOwnerReference), replacing a reference to the
/// same owner.
pub fn set_owner_reference<O, K>(owner: &O, obj: &mut K) -> Result<(), Error>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    let mut reference = controller_owner_ref(owner)?;
    reference.controller = None;
    reference.block_owner_deletion = None;
    let refs = obj.meta_mut().owner_references.get_or_insert_with(Vec::new);
    refs.retain(|r| r.uid != reference.uid);
    refs.push(reference);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    fn owner(uid: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("owner-{uid}")),
                namespace: Some("ns".into()),
                uid: Some(uid.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    #[test]
    fn controller_reference_is_set_once_and_exclusive() {
        let mut d = Deployment::default();
        set_controller_reference(&owner("a"), &mut d).unwrap();
        set_controller_reference(&owner("a"), &mut d).unwrap();
        let refs = d.metadata.owner_references.as_ref().unwrap();
        assert_eq!(refs.len(), 1);
        assert_eq!(
            (
                refs[0].kind.as_str(),
                refs[0].controller,
                refs[0].block_owner_deletion
            ),
            ("ConfigMap", Some(true), Some(true))
        );
        assert!(matches!(
            set_controller_reference(&owner("b"), &mut d),
            Err(Error::AlreadyOwned { .. })
        ));
        set_owner_reference(&owner("b"), &mut d).unwrap();
        let refs = d.metadata.owner_references.as_ref().unwrap();
        assert_eq!(refs.len(), 2);
        // A plain owner neither controls nor blocks the owner's deletion.
        assert_eq!(
            (refs[1].controller, refs[1].block_owner_deletion),
            (None, None)
        );
    }

    #[test]
    fn owner_without_uid_is_rejected() {
        let mut d = Deployment::default();
        assert!(set_controller_reference(&ConfigMap::default(), &mut d).is_err());
    }

    #[test]
    fn statuses_differing_in_transition_times_only_are_the_same() {
        let status = |time: &str, reason: &str| {
            serde_json::json!({"observedGeneration": 2, "conditions": [
                {"type": "Ready", "status": "True", "reason": reason, "lastTransitionTime": time}
            ]})
        };
        let written = status_fingerprint(&status("2026-01-01T00:00:00Z", "Reconciled"));
        assert_eq!(
            written,
            status_fingerprint(&status("2026-01-02T00:00:00Z", "Reconciled"))
        );
        assert_ne!(
            written,
            status_fingerprint(&status("2026-01-01T00:00:00Z", "ApplyFailed"))
        );
    }

    #[test]
    fn apply_body_sets_type_and_drops_bookkeeping() {
        let mut cm = owner("a");
        cm.metadata.managed_fields = Some(vec![]);
        let body = apply_body(&cm).unwrap();
        assert_eq!(body["apiVersion"], "v1");
        assert_eq!(body["kind"], "ConfigMap");
        assert!(body["metadata"].get("managedFields").is_none());
        assert!(body["metadata"].get("uid").is_none());
        assert_eq!(body["metadata"]["name"], "owner-a");
    }
}
