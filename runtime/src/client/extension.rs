//! Requests for `+genclient:method=` extension verbs: any verb on the resource or one of its
//! subresources, with input and result types other than the kind (e.g. `scale` with `Scale`).

use std::fmt::Debug;

use kube::core::Request;
use kube::{Resource, ResourceExt};
use serde::{Serialize, de::DeserializeOwned};

use super::{Error, Patch, PatchParams, PostParams, ResourceClient};

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
}
