//! The generic typed client every `#[derive(Kind)]` client wraps: code-generator's clientset verbs
//! (create, update, update_status, delete, delete_collection, get, list, watch, patch, apply,
//! apply_status) over one `kube::Api<K>`.

mod error;
mod extension;
mod protobuf_watch;

use std::fmt::Debug;

use futures::{StreamExt, TryStreamExt, stream::BoxStream};
use k8s_openapi::NamespaceResourceScope;
use kube::{Api, Client, Resource};
use serde::{Serialize, de::DeserializeOwned};

pub use error::Error;
pub use kube::api::{
    DeleteParams, ListParams, ObjectList, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
pub use protobuf_watch::{ProtobufWatchLayer, ProtobufWatches, WatchBody};
// The kind-scope helpers typed clients are built with (scope.rs), where client code looks for them too.
pub use crate::scope::{KindScope, is_namespaced, scoped_api};

/// The field manager used for server-side apply when none is set.
pub const DEFAULT_FIELD_MANAGER: &str = "rkb";

/// Options of a server-side apply.
#[derive(Clone, Debug, Default)]
pub struct ApplyOptions {
    /// Field manager for this call; the client's own (see [`ResourceClient::with_field_manager`])
    /// when `None`.
    pub field_manager: Option<String>,
    /// Take ownership of fields another manager owns instead of failing with a conflict.
    pub force: bool,
    /// Validate and answer without persisting.
    pub dry_run: bool,
}

impl ApplyOptions {
    /// Apply with `force: true`.
    pub fn force() -> Self {
        ApplyOptions {
            force: true,
            ..Default::default()
        }
    }
}

/// A typed client for one kind, bound to a namespace (namespaced kinds) or to the cluster.
pub struct ResourceClient<K> {
    api: Api<K>,
    field_manager: String,
}

impl<K: Clone> Clone for ResourceClient<K> {
    fn clone(&self) -> Self {
        ResourceClient {
            api: self.api.clone(),
            field_manager: self.field_manager.clone(),
        }
    }
}

impl<K: Resource> Debug for ResourceClient<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceClient")
            .field("url", &self.api.resource_url())
            .field("field_manager", &self.field_manager)
            .finish()
    }
}

impl<K> ResourceClient<K>
where
    K: Resource<Scope = NamespaceResourceScope, DynamicType = ()>,
{
    /// A client for the objects of one namespace.
    pub fn namespaced(client: Client, namespace: &str) -> Self {
        Self::from_api(Api::namespaced(client, namespace))
    }
}

impl<K> ResourceClient<K>
where
    K: Resource<DynamicType = ()>,
{
    /// A client for a cluster-scoped kind, or for all namespaces of a namespaced kind (list,
    /// watch and delete_collection only; the API server needs a namespace for the rest).
    pub fn all(client: Client) -> Self {
        Self::from_api(Api::all(client))
    }

    /// Wraps an existing `Api`.
    pub fn from_api(api: Api<K>) -> Self {
        ResourceClient {
            api,
            field_manager: DEFAULT_FIELD_MANAGER.to_string(),
        }
    }

    /// The field manager named on server-side apply (and on create/update/patch).
    pub fn with_field_manager(mut self, field_manager: impl Into<String>) -> Self {
        self.field_manager = field_manager.into();
        self
    }

    /// The field manager this client names.
    pub fn field_manager(&self) -> &str {
        &self.field_manager
    }

    /// The namespace this client is bound to, if any.
    pub fn namespace(&self) -> Option<&str> {
        self.api.namespace()
    }

    /// The underlying `kube::Api`, for calls this client does not wrap.
    pub fn api(&self) -> &Api<K> {
        &self.api
    }

    /// `pp` with this client's field manager unless it names one.
    fn post_params(&self, pp: &PostParams) -> PostParams {
        let mut pp = pp.clone();
        pp.field_manager
            .get_or_insert_with(|| self.field_manager.clone());
        pp
    }

    /// `pp` with this client's field manager unless it names one.
    fn patch_params(&self, pp: &PatchParams) -> PatchParams {
        let mut pp = pp.clone();
        pp.field_manager
            .get_or_insert_with(|| self.field_manager.clone());
        pp
    }
}

impl<K> ResourceClient<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug + Send + 'static,
{
    fn name_of(obj: &K) -> Result<&str, Error> {
        obj.meta().name.as_deref().ok_or(Error::MissingName)
    }

    /// POST a new object.
    pub async fn create(&self, obj: &K, pp: &PostParams) -> Result<K, Error> {
        Ok(self.api.create(&self.post_params(pp), obj).await?)
    }

    /// PUT the whole object (its `metadata.resourceVersion` guards against lost updates).
    /// With a status subresource the server ignores `status` here; use `update_status`.
    pub async fn update(&self, obj: &K, pp: &PostParams) -> Result<K, Error> {
        let name = Self::name_of(obj)?;
        Ok(self.api.replace(name, &self.post_params(pp), obj).await?)
    }

    /// PUT the status subresource (only `status` changes).
    pub async fn update_status(&self, obj: &K, pp: &PostParams) -> Result<K, Error> {
        let name = Self::name_of(obj)?;
        Ok(self
            .api
            .replace_status(name, &self.post_params(pp), obj)
            .await?)
    }

    /// DELETE one object. Not found is an error, like client-go.
    pub async fn delete(&self, name: &str, dp: &DeleteParams) -> Result<(), Error> {
        self.api.delete(name, dp).await?;
        Ok(())
    }

    /// DELETE every object the list options select.
    pub async fn delete_collection(&self, dp: &DeleteParams, lp: &ListParams) -> Result<(), Error> {
        self.api.delete_collection(dp, lp).await?;
        Ok(())
    }

    /// GET one object.
    pub async fn get(&self, name: &str) -> Result<K, Error> {
        Ok(self.api.get(name).await?)
    }

    /// GET one object, `None` when it does not exist.
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>, Error> {
        Ok(self.api.get_opt(name).await?)
    }

    /// LIST objects.
    pub async fn list(&self, lp: &ListParams) -> Result<ObjectList<K>, Error> {
        Ok(self.api.list(lp).await?)
    }

    /// WATCH from `resource_version` ("0" = any, "" = most recent). The raw stream: it ends when
    /// the server closes it; informers (which reconnect) are built on kube's watcher instead.
    pub async fn watch(
        &self,
        wp: &WatchParams,
        resource_version: &str,
    ) -> Result<BoxStream<'static, Result<WatchEvent<K>, Error>>, Error> {
        let stream = self.api.watch(wp, resource_version).await?;
        Ok(stream.map_err(Error::from).boxed())
    }

    /// PATCH one object (merge, strategic, JSON or apply patch).
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K, Error> {
        Ok(self.api.patch(name, &self.patch_params(pp), patch).await?)
    }

    /// PATCH the status subresource.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K, Error> {
        Ok(self
            .api
            .patch_status(name, &self.patch_params(pp), patch)
            .await?)
    }

    /// Server-side apply of `config`: the object itself or any partial JSON-shaped value naming
    /// `metadata.name`. `apiVersion` and `kind` are filled in when absent. Fields owned by another
    /// manager fail with a conflict (`Error::is_conflict`) unless `opts.force`.
    pub async fn apply<P: Serialize>(&self, config: &P, opts: &ApplyOptions) -> Result<K, Error> {
        let (name, body) = self.apply_body(config)?;
        let pp = self.apply_params(opts);
        Ok(self.api.patch(&name, &pp, &Patch::Apply(body)).await?)
    }

    /// Server-side apply to the status subresource.
    pub async fn apply_status<P: Serialize>(
        &self,
        config: &P,
        opts: &ApplyOptions,
    ) -> Result<K, Error> {
        let (name, body) = self.apply_body(config)?;
        let pp = self.apply_params(opts);
        Ok(self
            .api
            .patch_status(&name, &pp, &Patch::Apply(body))
            .await?)
    }

    fn apply_params(&self, opts: &ApplyOptions) -> PatchParams {
        PatchParams {
            dry_run: opts.dry_run,
            force: opts.force,
            field_manager: Some(
                opts.field_manager
                    .clone()
                    .unwrap_or_else(|| self.field_manager.clone()),
            ),
            field_validation: None,
        }
    }

    fn apply_body<P: Serialize>(&self, config: &P) -> Result<(String, serde_json::Value), Error> {
        let mut body = serde_json::to_value(config)?;
        let name = body
            .pointer("/metadata/name")
            .and_then(|n| n.as_str())
            .ok_or(Error::MissingName)?
            .to_string();
        if let Some(map) = body.as_object_mut() {
            // An empty TypeMeta serializes as absent or as "": both mean "fill it in".
            for (key, value) in [("apiVersion", K::api_version(&())), ("kind", K::kind(&()))] {
                let missing = map.get(key).is_none_or(|v| v.as_str() == Some(""));
                if missing {
                    map.insert(key.to_string(), serde_json::Value::from(value.as_ref()));
                }
            }
        }
        Ok((name, body))
    }
}

/// Fills `type_meta` for a kind: what `Kind::new` uses.
pub fn type_meta<K: Resource<DynamicType = ()>>() -> kube::core::TypeMeta {
    kube::core::TypeMeta {
        api_version: K::api_version(&()).into_owned(),
        kind: K::kind(&()).into_owned(),
    }
}
