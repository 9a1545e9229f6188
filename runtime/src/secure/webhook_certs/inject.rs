//! The targets: webhook configurations and CRDs whose caBundle the leader keeps equal to the Secret's `ca.crt`,
//! and the names their clientConfigs call (which the serving certificate must cover).

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Patch, PatchParams};
use kube::{Api, Client};
use serde_json::{Value, json};

use crate::Error;

/// The kinds of object a caBundle is injected into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TargetKind {
    Mutating,
    Validating,
    Crd,
}

impl TargetKind {
    fn name(self) -> &'static str {
        match self {
            Self::Mutating => "MutatingWebhookConfiguration",
            Self::Validating => "ValidatingWebhookConfiguration",
            Self::Crd => "CustomResourceDefinition",
        }
    }
}

/// One client configuration of a target: the JSON pointer of its caBundle, what it holds, the names it calls.
#[derive(Debug)]
struct Slot {
    pointer: String,
    ca_bundle: Option<Vec<u8>>,
    names: Vec<String>,
}

/// A target as read from the API server.
#[derive(Debug)]
pub(crate) struct Target {
    kind: TargetKind,
    name: String,
    resource_version: Value,
    slots: Vec<Slot>,
}

impl Target {
    /// Whether every client configuration of it holds `bundle`.
    pub(crate) fn holds(&self, bundle: &str) -> bool {
        self.slots
            .iter()
            .all(|s| s.ca_bundle.as_deref() == Some(bundle.as_bytes()))
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &String> {
        self.slots.iter().flat_map(|s| s.names.iter())
    }

    /// Sets every client configuration's caBundle to `bundle`, failing (422) if the object changed since read.
    pub(crate) async fn inject(&self, client: &Client, bundle: &str) -> Result<(), Error> {
        let encoded = serde_json::to_value(ByteString(bundle.as_bytes().to_vec()))
            .map_err(|e| Error::Tls(e.to_string()))?;
        // The indices name the entries read only if the object did not change since: the patch fails otherwise,
        // and the next pass reads it again.
        let mut ops = vec![
            json!({"op": "test", "path": "/metadata/resourceVersion", "value": self.resource_version}),
        ];
        for slot in &self.slots {
            ops.push(json!({"op": "add", "path": format!("{}/caBundle", slot.pointer), "value": encoded}));
        }
        let patch: json_patch::Patch =
            serde_json::from_value(Value::Array(ops)).map_err(|e| Error::Tls(e.to_string()))?;
        let params = PatchParams::default();
        let patch = Patch::Json::<()>(patch);
        let result = match self.kind {
            TargetKind::Mutating => Api::<MutatingWebhookConfiguration>::all(client.clone())
                .patch(&self.name, &params, &patch)
                .await
                .map(drop),
            TargetKind::Validating => Api::<ValidatingWebhookConfiguration>::all(client.clone())
                .patch(&self.name, &params, &patch)
                .await
                .map(drop),
            TargetKind::Crd => Api::<CustomResourceDefinition>::all(client.clone())
                .patch(&self.name, &params, &patch)
                .await
                .map(drop),
        };
        result.map_err(Error::Client)?;
        tracing::info!(kind = self.kind.name(), name = %self.name, "injected the webhook CA bundle");
        Ok(())
    }
}

/// Reads a target; None when it does not exist (nothing calls the webhook through it, so nothing to trust).
pub(crate) async fn read(
    client: &Client,
    kind: TargetKind,
    name: &str,
) -> Result<Option<Target>, Error> {
    let object: Option<Value> = match kind {
        TargetKind::Mutating => get_json::<MutatingWebhookConfiguration>(client, name).await?,
        TargetKind::Validating => get_json::<ValidatingWebhookConfiguration>(client, name).await?,
        TargetKind::Crd => get_json::<CustomResourceDefinition>(client, name).await?,
    };
    let Some(object) = object else {
        return Ok(None);
    };
    let configs: Vec<(String, &Value)> = match kind {
        TargetKind::Crd => {
            let pointer = "/spec/conversion/webhook/clientConfig";
            object
                .pointer(pointer)
                .map(|c| (pointer.to_string(), c))
                .into_iter()
                .collect()
        }
        _ => object["webhooks"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, w)| (format!("/webhooks/{i}/clientConfig"), &w["clientConfig"]))
            .collect(),
    };
    let slots = configs
        .into_iter()
        .map(|(pointer, config)| Slot {
            ca_bundle: config["caBundle"]
                .as_str()
                .and_then(|b| serde_json::from_value::<ByteString>(Value::from(b)).ok())
                .map(|b| b.0),
            names: called_names(config),
            pointer,
        })
        .collect();
    Ok(Some(Target {
        kind,
        name: name.to_string(),
        resource_version: object["metadata"]["resourceVersion"].clone(),
        slots,
    }))
}

async fn get_json<K>(client: &Client, name: &str) -> Result<Option<Value>, Error>
where
    K: kube::Resource<DynamicType = (), Scope = k8s_openapi::ClusterResourceScope>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + serde::Serialize,
{
    let object = Api::<K>::all(client.clone())
        .get_opt(name)
        .await
        .map_err(Error::Client)?;
    object
        .map(|o| serde_json::to_value(o).map_err(|e| Error::Tls(e.to_string())))
        .transpose()
}

/// The names a client configuration calls: a Service's two DNS names, or a URL's host.
fn called_names(config: &Value) -> Vec<String> {
    if let (Some(name), Some(namespace)) = (
        config["service"]["name"].as_str(),
        config["service"]["namespace"].as_str(),
    ) {
        return vec![
            format!("{name}.{namespace}.svc"),
            format!("{name}.{namespace}.svc.cluster.local"),
        ];
    }
    let host = config["url"]
        .as_str()
        .and_then(|url| url.parse::<http::Uri>().ok())
        .and_then(|uri| uri.host().map(|h| h.trim_matches(['[', ']']).to_string()));
    host.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_is_called_by_both_its_names_and_a_url_by_its_host() {
        let service = json!({"service": {"name": "cronjob-webhook-service", "namespace": "cronjob-system", "path": "/convert"}});
        assert_eq!(
            called_names(&service),
            [
                "cronjob-webhook-service.cronjob-system.svc",
                "cronjob-webhook-service.cronjob-system.svc.cluster.local"
            ]
        );
        assert_eq!(
            called_names(&json!({"url": "https://127.0.0.1:9443/mutate"})),
            ["127.0.0.1"]
        );
        assert_eq!(
            called_names(&json!({"url": "https://[::1]:9443/mutate"})),
            ["::1"]
        );
    }
}
