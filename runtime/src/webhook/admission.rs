//! AdmissionReview v1 in, AdmissionReview v1 out: defaulting (a JSON patch) and validation (allowed or denied,
//! with warnings). The review's objects stay raw JSON borrowed from the body until they are decoded, once, into
//! the kind (the Limits of [`super`]).

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use http::StatusCode;
use kube::Resource;
use kube::core::Status;
use kube::core::admission::{AdmissionResponse, Operation};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Handler;

/// Messages for the client that do not refuse the request (kubectl prints them as `Warning: ...`).
pub type Warnings = Vec<String>;

/// A validator's answer: allowed (with warnings), or refused.
pub type Verdict = Result<Warnings, Denied>;

/// A refusal: the message the client sees (`admission webhook "<name>" denied the request: <message>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    pub message: String,
    pub warnings: Warnings,
}

impl Denied {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    /// Adds warnings to show with the refusal.
    pub fn with_warnings(mut self, warnings: Warnings) -> Self {
        self.warnings = warnings;
        self
    }
}

impl From<String> for Denied {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for Denied {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Sets defaults on objects of kind `K` as they are created or updated (controller-runtime's CustomDefaulter).
pub trait Defaulter<K>: Send + Sync + 'static {
    /// Changes `obj` in place; an `Err` refuses the request.
    fn set_defaults(&self, obj: &mut K) -> impl Future<Output = Result<(), Denied>> + Send;
}

/// Validates objects of kind `K` (controller-runtime's CustomValidator). Unimplemented operations allow.
pub trait Validator<K: Sync>: Send + Sync + 'static {
    fn validate_create(&self, obj: &K) -> impl Future<Output = Verdict> + Send {
        let _ = obj;
        async { Ok(Vec::new()) }
    }

    fn validate_update(&self, old: &K, new: &K) -> impl Future<Output = Verdict> + Send {
        let _ = (old, new);
        async { Ok(Vec::new()) }
    }

    fn validate_delete(&self, obj: &K) -> impl Future<Output = Verdict> + Send {
        let _ = obj;
        async { Ok(Vec::new()) }
    }
}

/// The served handler of a defaulter.
pub(super) fn defaulting<K, D>(defaulter: Arc<D>) -> Handler
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Send + 'static,
    D: Defaulter<K>,
{
    Arc::new(move |body| {
        let defaulter = defaulter.clone();
        async move {
            let (request, response) = read_request(&body)?;
            reply(
                match default_object::<K, D>(&*defaulter, request.object).await {
                    Ok(Some(patch)) => match response.clone().with_patch(patch) {
                        Ok(patched) => patched,
                        Err(e) => refused(response, 500, &e.to_string()),
                    },
                    Ok(None) => response,
                    Err((code, message)) => refused(response, code, &message),
                },
            )
        }
        .boxed()
    })
}

/// The served handler of a validator.
pub(super) fn validating<K, V>(validator: Arc<V>) -> Handler
where
    K: Resource<DynamicType = ()> + DeserializeOwned + Send + Sync + 'static,
    V: Validator<K>,
{
    Arc::new(move |body| {
        let validator = validator.clone();
        async move {
            let (request, response) = read_request(&body)?;
            reply(match validate::<K, V>(&*validator, &request).await {
                Ok(Ok(warnings)) => with_warnings(response, warnings),
                Ok(Err(denied)) => {
                    with_warnings(refused(response, 403, &denied.message), denied.warnings)
                }
                Err((code, message)) => refused(response, code, &message),
            })
        }
        .boxed()
    })
}

/// A failure before the user's code gave an answer: an HTTP-like code and the message.
type Failure = (u16, String);

/// The JSON patch from the object as `K` serializes it to what the defaulter made of it; `None` when nothing
/// changed.
async fn default_object<K, D>(
    defaulter: &D,
    sent: Option<&RawValue>,
) -> Result<Option<json_patch::Patch>, Failure>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    D: Defaulter<K>,
{
    let sent = sent.ok_or_else(|| (400, "the request has no object".to_string()))?;
    let mut obj: K = decode(Some(sent), "object")?;
    let before = serde_json::to_value(&obj).map_err(|e| (500, e.to_string()))?;
    caught(defaulter.set_defaults(&mut obj))
        .await?
        .map_err(|denied| (403, denied.message))?;
    let after = serde_json::to_value(&obj).map_err(|e| (500, e.to_string()))?;
    drop(obj);
    let patch = defaulting_patch(sent, &before, &after)?;
    Ok((!patch.0.is_empty()).then_some(patch))
}

/// The patch that turns `sent` (the object as the API server sent it) into what the defaulter made of it:
/// the difference between the kind's serialization `before` and `after` defaulting, so fields the kind does not
/// know (or writes differently) stay as they were. Where `sent` lacks an object the kind serializes (an absent
/// `spec` that the kind writes as `{}`), that patch would not apply: then the difference from `sent` itself,
/// keeping only the removals of what the kind knows. `sent` is parsed only when the defaulter changed something.
fn defaulting_patch(
    sent: &RawValue,
    before: &Value,
    after: &Value,
) -> Result<json_patch::Patch, Failure> {
    let patch = json_patch::diff(before, after);
    if patch.0.is_empty() {
        return Ok(patch);
    }
    let mut sent: Value = serde_json::from_str(sent.get()).map_err(|e| (400, e.to_string()))?;
    // Applied to `sent` itself, not a copy: it is needed no more when the patch applies, and json_patch leaves
    // it as it was when the patch does not.
    if json_patch::patch(&mut sent, &patch).is_ok() {
        return Ok(patch);
    }
    let mut patch = json_patch::diff(&sent, after);
    patch.0.retain(|op| match op {
        json_patch::PatchOperation::Remove(remove) => {
            before.pointer(remove.path.as_str()).is_some()
        }
        _ => true,
    });
    Ok(patch)
}

async fn validate<K, V>(validator: &V, request: &RawRequest<'_>) -> Result<Verdict, Failure>
where
    K: Resource<DynamicType = ()> + DeserializeOwned + Sync,
    V: Validator<K>,
{
    match request.operation {
        Operation::Create => {
            let obj: K = decode(request.object, "object")?;
            caught(validator.validate_create(&obj)).await
        }
        Operation::Update => {
            let new: K = decode(request.object, "object")?;
            let old: K = decode(request.old_object, "oldObject")?;
            caught(validator.validate_update(&old, &new)).await
        }
        Operation::Delete => {
            let old: K = decode(request.old_object, "oldObject")?;
            caught(validator.validate_delete(&old)).await
        }
        Operation::Connect => Ok(Ok(Vec::new())),
    }
}

/// Runs user code; a panic becomes a refusal that says so (the connection is answered either way).
async fn caught<T>(future: impl Future<Output = T>) -> Result<T, Failure> {
    crate::panics::catch(future).await.map_err(|what| {
        tracing::error!(panic = %what, "webhook panicked");
        (500, format!("the webhook panicked: {what}"))
    })
}

/// What the webhooks use of an AdmissionRequest: the objects as raw JSON, borrowed from the body.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRequest<'a> {
    uid: String,
    operation: Operation,
    #[serde(borrow, default)]
    object: Option<&'a RawValue>,
    #[serde(borrow, default)]
    old_object: Option<&'a RawValue>,
    // Required of an AdmissionRequest (a review without them is refused, as before), not used: skipped unread.
    #[serde(rename = "kind")]
    _kind: IgnoredAny,
    #[serde(rename = "resource")]
    _resource: IgnoredAny,
    #[serde(rename = "userInfo")]
    _user_info: IgnoredAny,
}

/// The request of the AdmissionReview in `body`, and the allowing response to it that the handlers start from
/// (what kube's `AdmissionResponse::from(&request)` makes: the review's types, the request's uid).
fn read_request(body: &[u8]) -> Result<(RawRequest<'_>, AdmissionResponse), (StatusCode, String)> {
    let (types, request): (_, RawRequest) = super::read_review(body, "an AdmissionReview")?;
    let mut response = AdmissionResponse::invalid("");
    response.types = types;
    response.uid = request.uid.clone();
    response.allowed = true;
    response.result = Status::default();
    Ok((request, response))
}

/// The object `field` of the request, decoded straight from its raw JSON into the kind.
fn decode<K: DeserializeOwned>(obj: Option<&RawValue>, field: &str) -> Result<K, Failure> {
    let obj = obj.ok_or_else(|| (400, format!("the request has no {field}")))?;
    serde_json::from_str(obj.get()).map_err(|e| {
        (
            400,
            format!("the {field} does not decode as the webhook's kind: {e}"),
        )
    })
}

fn refused(response: AdmissionResponse, code: u16, message: &str) -> AdmissionResponse {
    let reason = match code {
        400 => "BadRequest",
        403 => "Forbidden",
        _ => "InternalError",
    };
    let mut response = response.deny(message);
    response.result = Status::failure(message, reason).with_code(code);
    response
}

fn with_warnings(mut response: AdmissionResponse, warnings: Warnings) -> AdmissionResponse {
    if !warnings.is_empty() {
        response.warnings = Some(warnings);
    }
    response
}

fn reply(response: AdmissionResponse) -> super::Answer {
    serde_json::to_string(&response.into_review())
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::defaulting_patch;
    use serde_json::json;

    fn applied(
        sent: serde_json::Value,
        before: serde_json::Value,
        after: serde_json::Value,
    ) -> serde_json::Value {
        let raw = serde_json::value::to_raw_value(&sent).unwrap();
        let mut doc = sent.clone();
        json_patch::patch(&mut doc, &defaulting_patch(&raw, &before, &after).unwrap()).unwrap();
        doc
    }

    #[test]
    fn the_patch_changes_only_what_the_defaulter_changed() {
        // An unknown field the kind drops stays; the defaulted field is added.
        let sent = json!({"spec": {"image": "", "extra": 1}});
        let out = applied(
            sent,
            json!({"spec": {"image": ""}}),
            json!({"spec": {"image": "nginx"}}),
        );
        assert_eq!(out, json!({"spec": {"image": "nginx", "extra": 1}}));
    }

    #[test]
    fn a_parent_the_request_lacks_is_created() {
        // The kind writes an absent spec as {}; the defaulter fills it.
        let sent = json!({"metadata": {"name": "a"}, "unknown": true});
        let out = applied(
            sent,
            json!({"metadata": {"name": "a"}, "spec": {}}),
            json!({"metadata": {"name": "a"}, "spec": {"replicas": 1}}),
        );
        assert_eq!(
            out,
            json!({"metadata": {"name": "a"}, "spec": {"replicas": 1}, "unknown": true})
        );
    }
}
