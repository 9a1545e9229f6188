//! ConversionReview v1: objects of a multi-version kind converted between versions through the hub (the storage
//! version, as in kubebuilder's Hub/Convertible): every spoke converts to the hub and back, so n versions need
//! n - 1 pairs of conversions, not n².
//!
//! Each object is decoded once, from the raw JSON of the body, into its version's type, converted to the hub and
//! on to the desired version in memory (as controller-runtime's ConvertTo/ConvertFrom do), and written as JSON;
//! the body is let go before the answer is written (the Limits of [`super`]).

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use http::StatusCode;
use kube::Resource;
use kube::core::Status;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Answer, Handler};

/// An object of a kind's hub type, on its way from one version to another.
type HubObject = Box<dyn Any>;

/// Decodes one object of a version (raw JSON) and converts it to the hub.
type ToHub = fn(&RawValue) -> Result<HubObject, String>;

/// Converts a hub object to a version, as JSON.
type FromHub = fn(HubObject) -> Result<Value, String>;

/// How one kind converts: its hub version, and each version's way to and from the hub (the hub's own: decoding
/// and encoding).
#[derive(Clone)]
pub(super) struct KindConversions {
    hub_version: String,
    versions: HashMap<String, (ToHub, FromHub)>,
}

/// Every convertible kind, by `(group, kind)`.
pub(super) type Conversions = HashMap<(String, String), KindConversions>;

/// Adds spoke `S` of hub `H` to `conversions`; `Err` when the kind has a hub of another version already.
pub(super) fn add_spoke<H, S>(conversions: &mut Conversions) -> Result<(), String>
where
    H: Resource<DynamicType = ()> + Serialize + DeserializeOwned + TryFrom<S> + 'static,
    S: Resource<DynamicType = ()> + Serialize + DeserializeOwned + TryFrom<H> + 'static,
    <H as TryFrom<S>>::Error: std::fmt::Display,
    <S as TryFrom<H>>::Error: std::fmt::Display,
{
    let key = (H::group(&()).into_owned(), H::kind(&()).into_owned());
    let hub = H::version(&()).into_owned();
    let entry = conversions.entry(key).or_insert_with(|| KindConversions {
        hub_version: hub.clone(),
        versions: HashMap::from([(
            hub.clone(),
            (decode_hub::<H> as ToHub, encode_hub::<H> as FromHub),
        )]),
    });
    if entry.hub_version != hub {
        return Err(format!(
            "{} has hub {} already; every spoke converts through the same hub",
            H::kind(&()),
            entry.hub_version
        ));
    }
    entry.versions.insert(
        S::version(&()).into_owned(),
        (spoke_to_hub::<S, H>, hub_to_spoke::<H, S>),
    );
    Ok(())
}

fn decode<T: DeserializeOwned>(raw: &RawValue) -> Result<T, String> {
    serde_json::from_str(raw.get()).map_err(|e| format!("does not decode: {e}"))
}

fn decode_hub<H: DeserializeOwned + 'static>(raw: &RawValue) -> Result<HubObject, String> {
    Ok(Box::new(decode::<H>(raw)?))
}

fn encode_hub<H: Serialize + 'static>(hub: HubObject) -> Result<Value, String> {
    serde_json::to_value(&*downcast::<H>(hub)?).map_err(|e| e.to_string())
}

fn spoke_to_hub<S, H>(raw: &RawValue) -> Result<HubObject, String>
where
    S: DeserializeOwned,
    H: TryFrom<S> + 'static,
    <H as TryFrom<S>>::Error: std::fmt::Display,
{
    let hub = H::try_from(decode::<S>(raw)?).map_err(|e| e.to_string())?;
    Ok(Box::new(hub))
}

fn hub_to_spoke<H, S>(hub: HubObject) -> Result<Value, String>
where
    H: 'static,
    S: TryFrom<H> + Serialize,
    <S as TryFrom<H>>::Error: std::fmt::Display,
{
    let spoke = S::try_from(*downcast::<H>(hub)?).map_err(|e| e.to_string())?;
    serde_json::to_value(spoke).map_err(|e| e.to_string())
}

/// The hub object as its type: every conversion of a kind was registered with the same hub (`add_spoke`).
fn downcast<H: 'static>(hub: HubObject) -> Result<Box<H>, String> {
    hub.downcast::<H>()
        .map_err(|_| format!("the hub is not a {}", std::any::type_name::<H>()))
}

/// What the conversion uses of a ConversionReview's request: the objects as raw JSON, borrowed from the body.
#[derive(Deserialize)]
struct RawRequest<'a> {
    uid: String,
    #[serde(rename = "desiredAPIVersion")]
    desired_api_version: String,
    #[serde(borrow)]
    objects: Vec<&'a RawValue>,
}

/// The answer, as kube's `ConversionReview` with a `ConversionResponse` writes it, the objects already JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answered {
    api_version: String,
    kind: String,
    response: Response,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    uid: String,
    result: Status,
    converted_objects: Vec<Box<RawValue>>,
}

/// The served handler of `/convert`.
pub(super) fn converting(conversions: Arc<Conversions>) -> Handler {
    Arc::new(move |body| {
        let conversions = conversions.clone();
        async move { convert_review(&conversions, body) }.boxed()
    })
}

/// Every object of the review in `body` converted to the desired version, or the review failed naming the first
/// object that did not convert.
fn convert_review(conversions: &Conversions, body: Vec<u8>) -> Answer {
    let (types, request): (_, RawRequest) = super::read_review(&body, "a ConversionReview")?;
    let desired = &request.desired_api_version;
    let converted: Result<Vec<Box<RawValue>>, String> = request
        .objects
        .iter()
        .map(|obj| convert_object(conversions, obj, desired))
        .collect();
    let (result, converted_objects) = match converted {
        Ok(objects) => (Status::success(), objects),
        Err(message) => {
            tracing::warn!(%message, "conversion failed");
            let status = Status::failure(&message, "Invalid").with_code(422);
            (status, Vec::new())
        }
    };
    let answered = Answered {
        api_version: types.api_version,
        kind: types.kind,
        response: Response {
            uid: request.uid,
            result,
            converted_objects,
        },
    };
    // The objects are converted: the body is let go before the answer is written.
    drop(body);
    serde_json::to_string(&answered).map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// What names an object in a failure, read without decoding the rest of it.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Identity {
    api_version: String,
    kind: String,
    metadata: IdentityMetadata,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct IdentityMetadata {
    name: String,
    namespace: Option<String>,
}

/// Converts `obj` to `desired` (`group/version`) through its kind's hub; an error names the object and the
/// versions.
fn convert_object(
    conversions: &Conversions,
    obj: &RawValue,
    desired: &str,
) -> Result<Box<RawValue>, String> {
    let identity: Identity = serde_json::from_str(obj.get()).unwrap_or_default();
    let Identity {
        api_version: from,
        kind,
        metadata,
    } = identity;
    let name = match metadata.namespace {
        Some(ns) => format!("{ns}/{}", metadata.name),
        None => metadata.name,
    };
    let failed =
        |why: String| format!("cannot convert {kind} {name} from {from} to {desired}: {why}");
    let (group, from_version) = split_api_version(&from);
    let (_, to_version) = split_api_version(desired);
    if from_version == to_version {
        return Ok(obj.to_owned());
    }
    let kind_conversions = conversions
        .get(&(group.to_string(), kind.clone()))
        .ok_or_else(|| failed(format!("no conversion is served for {kind}.{group}")))?;
    let version = |version: &str| {
        kind_conversions.versions.get(version).ok_or_else(|| {
            failed(format!(
                "{version} is neither the hub ({}) nor a spoke of it",
                kind_conversions.hub_version
            ))
        })
    };
    let (to_hub, _) = version(from_version)?;
    let (_, from_hub) = version(to_version)?;
    let mut out = from_hub(to_hub(obj).map_err(&failed)?).map_err(&failed)?;
    let Some(fields) = out.as_object_mut() else {
        return Err(failed("the converted object is not a JSON object".into()));
    };
    fields.insert("apiVersion".into(), Value::from(desired));
    fields.insert("kind".into(), Value::from(kind.clone()));
    serde_json::value::to_raw_value(&out).map_err(|e| failed(e.to_string()))
}

/// `group/version` (or `version` for the core group) -> (group, version).
fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}
