//! Server-side apply with a field manager, and owner references: how generated controllers write the objects they
//! own.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;

/// Server-side applies `obj` as `field_manager`, taking ownership of conflicting fields (what a controller wants:
/// it is the source of truth for the fields it sets). apiVersion and kind are filled in from K, so a derived kind
/// with an empty TypeMeta applies fine. Returns the object as stored.
pub async fn apply<K>(api: &Api<K>, obj: &K, field_manager: &str) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let name = obj
        .meta()
        .name
        .clone()
        .ok_or(Error::MissingField("metadata.name"))?;
    let body = apply_body(obj)?;
    Ok(api
        .patch(
            &name,
            &PatchParams::apply(field_manager).force(),
            &Patch::Apply(&body),
        )
        .await?)
}

/// Server-side applies only the status of `obj` (the status subresource) as `field_manager`.
pub async fn apply_status<K>(api: &Api<K>, obj: &K, field_manager: &str) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
{
    let name = obj
        .meta()
        .name
        .clone()
        .ok_or(Error::MissingField("metadata.name"))?;
    let full = apply_body(obj)?;
    let mut body = serde_json::Map::new();
    for key in ["apiVersion", "kind", "status"] {
        if let Some(v) = full.get(key) {
            body.insert(key.to_string(), v.clone());
        }
    }
    let mut meta = serde_json::Map::new();
    meta.insert("name".into(), Value::String(name.clone()));
    if let Some(ns) = &obj.meta().namespace {
        meta.insert("namespace".into(), Value::String(ns.clone()));
    }
    body.insert("metadata".into(), Value::Object(meta));
    Ok(api
        .patch_status(
            &name,
            &PatchParams::apply(field_manager).force(),
            &Patch::Apply(&Value::Object(body)),
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
    let refs = obj.meta_mut().owner_references.get_or_insert_with(Vec::new);
    if let Some(other) = refs
        .iter()
        .find(|r| r.controller == Some(true) && r.uid != reference.uid)
    {
        return Err(Error::AlreadyOwned {
            kind: other.kind.clone(),
            name: other.name.clone(),
        });
    }
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
