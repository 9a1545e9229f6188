//! ConversionReview v1: objects of a multi-version kind converted between versions through the hub (the storage
//! version, as in kubebuilder's Hub/Convertible): every spoke converts to the hub and back, so n versions need
//! n - 1 pairs of conversions, not n².

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use http::StatusCode;
use kube::Resource;
use kube::core::Status;
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Handler;

/// Converts one object (as JSON) to or from the hub.
type Convert = fn(Value) -> Result<Value, String>;

/// How one kind converts: its hub version, and each spoke's conversions to and from the hub.
#[derive(Clone, Default)]
pub(super) struct KindConversions {
    hub_version: String,
    spokes: HashMap<String, (Convert, Convert)>,
}

/// Every convertible kind, by `(group, kind)`.
pub(super) type Conversions = HashMap<(String, String), KindConversions>;

/// Adds spoke `S` of hub `H` to `conversions`; `Err` when `H` is already another spoke's hub of a different version.
pub(super) fn add_spoke<H, S>(conversions: &mut Conversions) -> Result<(), String>
where
    H: Resource<DynamicType = ()> + Serialize + DeserializeOwned + TryFrom<S> + 'static,
    S: Resource<DynamicType = ()> + Serialize + DeserializeOwned + TryFrom<H> + 'static,
    <H as TryFrom<S>>::Error: std::fmt::Display,
    <S as TryFrom<H>>::Error: std::fmt::Display,
{
    let key = (H::group(&()).into_owned(), H::kind(&()).into_owned());
    let entry = conversions.entry(key).or_default();
    let hub = H::version(&()).into_owned();
    if !entry.hub_version.is_empty() && entry.hub_version != hub {
        return Err(format!(
            "{} has hub {} already; every spoke converts through the same hub",
            H::kind(&()),
            entry.hub_version
        ));
    }
    entry.hub_version = hub;
    entry.spokes.insert(
        S::version(&()).into_owned(),
        (convert::<S, H>, convert::<H, S>),
    );
    Ok(())
}

/// Decodes `value` as `From`, converts it to `To`, encodes it.
fn convert<From, To>(value: Value) -> Result<Value, String>
where
    From: DeserializeOwned,
    To: TryFrom<From> + Serialize,
    <To as TryFrom<From>>::Error: std::fmt::Display,
{
    let from: From = serde_json::from_value(value).map_err(|e| format!("does not decode: {e}"))?;
    let to = To::try_from(from).map_err(|e| e.to_string())?;
    serde_json::to_value(to).map_err(|e| e.to_string())
}

/// The served handler of `/convert`.
pub(super) fn converting(conversions: Arc<Conversions>) -> Handler {
    Arc::new(move |body| {
        let conversions = conversions.clone();
        async move {
            let review: ConversionReview = serde_json::from_slice(&body).map_err(|e| {
                (
                    StatusCode::BAD_REQUEST,
                    format!("not a ConversionReview: {e}"),
                )
            })?;
            let request = ConversionRequest::from_review(review)
                .map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
            let desired = request.desired_api_version.clone();
            let converted: Result<Vec<Value>, String> = request
                .objects
                .iter()
                .map(|obj| convert_object(&conversions, obj.clone(), &desired))
                .collect();
            let response = ConversionResponse::for_request(request);
            let response = match converted {
                Ok(objects) => response.success(objects),
                Err(message) => {
                    tracing::warn!(%message, "conversion failed");
                    response.failure(Status::failure(&message, "Invalid").with_code(422))
                }
            };
            serde_json::to_value(response.into_review())
                .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
        }
        .boxed()
    })
}

/// Converts `obj` to `desired` (`group/version`) through its kind's hub; an error names the object and the
/// versions.
fn convert_object(conversions: &Conversions, obj: Value, desired: &str) -> Result<Value, String> {
    let from = obj["apiVersion"].as_str().unwrap_or_default().to_string();
    let kind = obj["kind"].as_str().unwrap_or_default().to_string();
    let name = match obj["metadata"]["namespace"].as_str() {
        Some(ns) => format!("{ns}/{}", obj["metadata"]["name"].as_str().unwrap_or("")),
        None => obj["metadata"]["name"].as_str().unwrap_or("").to_string(),
    };
    let failed =
        |why: String| format!("cannot convert {kind} {name} from {from} to {desired}: {why}");
    let (group, from_version) = split_api_version(&from);
    let (_, to_version) = split_api_version(desired);
    if from_version == to_version {
        return Ok(obj);
    }
    let kind_conversions = conversions
        .get(&(group.to_string(), kind.clone()))
        .ok_or_else(|| failed(format!("no conversion is served for {kind}.{group}")))?;
    let spoke = |version: &str| {
        kind_conversions.spokes.get(version).ok_or_else(|| {
            failed(format!(
                "{version} is neither the hub ({}) nor a spoke of it",
                kind_conversions.hub_version
            ))
        })
    };
    let hub = if from_version == kind_conversions.hub_version {
        obj
    } else {
        (spoke(from_version)?.0)(obj).map_err(&failed)?
    };
    let mut out = if to_version == kind_conversions.hub_version {
        hub
    } else {
        (spoke(to_version)?.1)(hub).map_err(&failed)?
    };
    out["apiVersion"] = Value::from(desired);
    out["kind"] = Value::from(kind);
    Ok(out)
}

/// `group/version` (or `version` for the core group) -> (group, version).
fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}
