//! Finalizer helpers in controllerutil's style (`has`/`add`/`remove`), written as JSON patches guarded by a test
//! of the current list, so a concurrent change makes the patch fail instead of clobbering someone's finalizer.
//! kube-runtime's all-in-one [`finalizer()`](kube::runtime::finalizer::finalizer) is re-exported too.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::Error;

pub use kube::runtime::finalizer::{Event, finalizer};

/// Whether `obj` carries `name` in metadata.finalizers.
pub fn has_finalizer<K: Resource>(obj: &K, name: &str) -> bool {
    obj.finalizers().iter().any(|f| f == name)
}

/// Whether `obj` is being deleted (deletionTimestamp set): time to clean up and remove the finalizer.
pub fn is_being_deleted<K: Resource>(obj: &K) -> bool {
    obj.meta().deletion_timestamp.is_some()
}

/// Adds `name` to obj's finalizers on the server unless present; returns the updated object.
pub async fn add_finalizer<K>(api: &Api<K>, obj: &K, name: &str) -> Result<K, Error>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    if has_finalizer(obj, name) {
        return Ok(obj.clone());
    }
    let ops = match obj.meta().finalizers.as_ref() {
        None => json!([
            { "op": "test", "path": "/metadata/finalizers", "value": null },
            { "op": "add", "path": "/metadata/finalizers", "value": [name] },
        ]),
        Some(current) => json!([
            { "op": "test", "path": "/metadata/finalizers", "value": current },
            { "op": "add", "path": "/metadata/finalizers/-", "value": name },
        ]),
    };
    patch(api, obj, name, ops).await
}

/// Removes `name` from obj's finalizers on the server if present; returns the updated object.
pub async fn remove_finalizer<K>(api: &Api<K>, obj: &K, name: &str) -> Result<K, Error>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let current = obj.finalizers();
    let Some(index) = current.iter().position(|f| f == name) else {
        return Ok(obj.clone());
    };
    let ops = json!([
        { "op": "test", "path": format!("/metadata/finalizers/{index}"), "value": name },
        { "op": "remove", "path": format!("/metadata/finalizers/{index}") },
    ]);
    patch(api, obj, name, ops).await
}

async fn patch<K>(
    api: &Api<K>,
    obj: &K,
    finalizer: &str,
    ops: serde_json::Value,
) -> Result<K, Error>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let ops: json_patch::Patch = serde_json::from_value(ops)?;
    let name = crate::error::required_name(obj)?;
    api.patch(name, &PatchParams::default(), &Patch::<()>::Json(ops))
        .await
        .map_err(|source| Error::Finalizer {
            finalizer: finalizer.to_string(),
            source,
        })
}
