//! Requests for `+genclient:method=` extension verbs: every verb client-gen allows there (get, list, watch, create,
//! update, patch, apply, delete, deleteCollection), get/create/update/patch/apply also on a subresource, with input
//! and result types other than the kind (e.g. `scale` with `Scale`).

use std::fmt::Debug;

use futures::{StreamExt, stream::BoxStream};
use kube::core::Request;
use kube::{Resource, ResourceExt};
use serde::{Serialize, de::DeserializeOwned};

use super::{
    ApplyOptions, DeleteParams, Error, ListParams, ObjectList, Patch, PatchParams, PostParams,
    ResourceClient, WatchEvent, WatchParams,
};

impl<K> ResourceClient<K>
where
    K: Resource<DynamicType = ()> + ResourceExt + Clone,
{
    fn request(&self) -> Request {
        Request::new(self.api().resource_url())
    }

    async fn send<T: DeserializeOwned>(
        &self,
        req: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    ) -> Result<T, Error> {
        let req = req.map_err(kube::Error::BuildRequest)?;
        Ok(self.api().clone().into_client().request::<T>(req).await?)
    }

    /// GET `name` (or its `subresource`), decoded as `T`.
    pub async fn request_get<T: DeserializeOwned>(
        &self,
        name: &str,
        subresource: Option<&str>,
    ) -> Result<T, Error> {
        let req = match subresource {
            Some(sub) => self.request().get_subresource(sub, name),
            None => self.request().get(name, &Default::default()),
        };
        self.send(req).await
    }

    /// POST `input` to the `(name, subresource)` given, or to the collection when `None` (client-gen's
    /// create without a subresource takes no name: the object carries it).
    pub async fn request_create<I: Serialize, T: DeserializeOwned>(
        &self,
        subresource_of: Option<(&str, &str)>,
        input: &I,
        pp: &PostParams,
    ) -> Result<T, Error> {
        let body = serde_json::to_vec(input)?;
        let pp = self.post_params(pp);
        let req = match subresource_of {
            Some((name, sub)) => self.request().create_subresource(sub, name, &pp, body),
            None => self.request().create(&pp, body),
        };
        self.send(req).await
    }

    /// PUT `input` to `name` (or its `subresource`).
    pub async fn request_update<I: Serialize, T: DeserializeOwned>(
        &self,
        name: &str,
        subresource: Option<&str>,
        input: &I,
        pp: &PostParams,
    ) -> Result<T, Error> {
        let body = serde_json::to_vec(input)?;
        let pp = self.post_params(pp);
        let req = match subresource {
            Some(sub) => self.request().replace_subresource(sub, name, &pp, body),
            None => self.request().replace(name, &pp, body),
        };
        self.send(req).await
    }

    /// PATCH `name` (or its `subresource`).
    pub async fn request_patch<P: Serialize + Debug, T: DeserializeOwned>(
        &self,
        name: &str,
        subresource: Option<&str>,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<T, Error> {
        let pp = self.patch_params(pp);
        let req = match subresource {
            Some(sub) => self.request().patch_subresource(sub, name, &pp, patch),
            None => self.request().patch(name, &pp, patch),
        };
        self.send(req).await
    }

    /// LIST the collection, its items decoded as `T`.
    pub async fn request_list<T: Clone + DeserializeOwned>(
        &self,
        lp: &ListParams,
    ) -> Result<ObjectList<T>, Error> {
        self.send(self.request().list(lp)).await
    }

    /// WATCH the collection from `resource_version`, its objects decoded as `T` (the raw stream, as `watch`).
    pub async fn request_watch<T: Clone + DeserializeOwned + Debug + Send + 'static>(
        &self,
        wp: &WatchParams,
        resource_version: &str,
    ) -> Result<BoxStream<'static, Result<WatchEvent<T>, Error>>, Error> {
        let req = self
            .request()
            .watch(wp, resource_version)
            .map_err(kube::Error::BuildRequest)?;
        let events = self
            .api()
            .clone()
            .into_client()
            .request_events::<T>(req)
            .await?;
        Ok(events.map(|event| event.map_err(Error::from)).boxed())
    }

    /// DELETE `name`; whatever the server answers (the object, or a Status) is dropped, as `delete` does.
    pub async fn request_delete(&self, name: &str, dp: &DeleteParams) -> Result<(), Error> {
        let _: serde_json::Value = self.send(self.request().delete(name, dp)).await?;
        Ok(())
    }

    /// DELETE the collection (the objects `lp` selects).
    pub async fn request_delete_collection(
        &self,
        dp: &DeleteParams,
        lp: &ListParams,
    ) -> Result<(), Error> {
        let _: serde_json::Value = self.send(self.request().delete_collection(dp, lp)).await?;
        Ok(())
    }

    /// Server-side apply of `input` to `(name, subresource)`, or to the object `input` names (`metadata.name`,
    /// apiVersion and kind filled in as `apply` does) when `None`.
    pub async fn request_apply<I: Serialize, T: DeserializeOwned>(
        &self,
        subresource_of: Option<(&str, &str)>,
        input: &I,
        opts: &ApplyOptions,
    ) -> Result<T, Error>
    where
        K: Serialize + DeserializeOwned + Debug + Send + 'static,
    {
        let pp = self.apply_params(opts);
        let req = match subresource_of {
            Some((name, sub)) => {
                let body = serde_json::to_value(input)?;
                self.request()
                    .patch_subresource(sub, name, &pp, &Patch::Apply(body))
            }
            None => {
                let (name, body) = self.apply_body(input)?;
                self.request().patch(&name, &pp, &Patch::Apply(body))
            }
        };
        self.send(req).await
    }
}
