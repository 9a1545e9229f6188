//! Admission webhooks served by the manager, as controller-runtime's webhook package serves them.
//!
//! Expected flow: register a [`Defaulter`] and/or a [`Validator`] for a kind on [`Webhooks`], hand it to the
//! manager ([`crate::Manager::serve_webhooks`]), and install `config/webhook/manifests.yaml` (from the
//! `+kubebuilder:webhook` markers) pointing at the manager's service. The API server then POSTs AdmissionReviews
//! to `/mutate-<group>-<version>-<kind>` and `/validate-<group>-<version>-<kind>` (dots in the group become
//! dashes, the kind is lower-cased: kubebuilder's paths, which the scaffolded markers name).
//!
//! Guarantees:
//! - A defaulter gets the typed object and may change it; the reply is the JSON patch from what the object was to
//!   what the defaulter made of it (only fields the defaulter changed are in it).
//! - A validator is asked about creates, updates (old and new object) and deletes; `Ok(warnings)` allows the
//!   request (the warnings reach the client, e.g. kubectl prints them), `Err(Denied)` refuses it with its message.
//! - An error, a panic in user code or an object that does not decode as the kind is a refusal with a message,
//!   never a dropped connection; a body that is not an AdmissionReview is an HTTP 400 with the reason.
//! - Served over TLS on `--webhook-port` (9443) with the certificate in `--webhook-cert-path`
//!   (`--webhook-cert-name`, `--webhook-cert-key`), reloaded when the files change (cert-manager rotates them).
//!   Without certificate files, for local runs, a self-signed certificate for localhost is written there (reused by
//!   later runs) and its caBundle logged.
//! - Each request is counted in controller-runtime's `controller_runtime_webhook_*` metrics.
//!
//! - Conversion ([`Webhooks::conversion`]): a ConversionReview at `/convert` has every object converted to the
//!   desired version through the kind's hub; an object that fails names itself and both versions, and the
//!   whole review fails (the API server then fails the request), as controller-runtime does.
//!
//! Limits (the webhook port is reachable without authentication, so no request may take the manager's memory):
//! - A body is read only within `--webhook-max-request-bytes` (8 MiB; the API server sends objects of at most
//!   3 MiB, an update's review holds two), `--webhook-max-in-flight-bytes` for all bodies at once (16 MiB) and
//!   `--http-read-body-timeout` (30 s): 413, 429 and 408 otherwise (`intake.rs`); bodies of at most 64 KiB (the
//!   reviews of ordinary objects) are read in a lane of their own, a quarter of that budget more, charged by the
//!   bytes that arrived, so clients that declare large bodies and send them slowly cannot starve the API server's
//!   reviews; the connection limits of `server.rs` apply as on every listener.
//! - A review is decoded once: its envelope keeps `object`, `oldObject` (and a conversion's `objects`) as the raw
//!   JSON of the body, borrowed, not copied, and each is decoded straight into the kind. Fields the kind does not
//!   know cost nothing. A request therefore holds its body plus the decoded object(s), for as long as its
//!   answer takes; a defaulter adds the kind's JSON form twice (before and after, for the patch), and the object
//!   as sent once more when it changed something; a conversion adds the converted objects' JSON.
//! - What a decoded object weighs depends on the kind and on the JSON: a long string costs its length, but many
//!   tiny values (`[0,0,…]` in a free-form field, `{}` items of a list of large structs) decode to many times
//!   their size, as in controller-runtime. The in-flight budget bounds how many bodies are decoded at once, not
//!   that factor (runtime/tests/webhook_limits.rs measures both).
//!
//! Caveats: HTTP/1.1 only (controller-runtime turns HTTP/2 off by default too; `--enable-http2` is accepted and
//! warned about). A defaulter's patch is computed on the kind's own serialization: fields the kind does not
//! know are left as they were.

mod admission;
mod conversion;
mod intake;

pub use admission::{Defaulter, Denied, Validator, Verdict, Warnings};
pub(crate) use intake::Intake;

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use http::StatusCode;
use kube::Resource;

/// What a webhook answers: the review to send back (JSON), or an HTTP error with its reason.
pub(crate) type Answer = Result<String, (StatusCode, String)>;

/// A review as the API server sends it (AdmissionReview, ConversionReview): its types and its request, whose
/// objects the request type keeps as raw JSON borrowed from the body. kube's review types would parse each object
/// into a `serde_json::Value` tree and buffer the whole review once more for their flattened `TypeMeta`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Review<R> {
    api_version: String,
    kind: String,
    request: Option<R>,
}

/// The review in `body`, a `what` (for the 400 that refuses anything else): its types and its request.
fn read_review<'a, R: serde::Deserialize<'a>>(
    body: &'a [u8],
    what: &str,
) -> Result<(kube::core::TypeMeta, R), (StatusCode, String)> {
    let bad = |why: &dyn std::fmt::Display| (StatusCode::BAD_REQUEST, format!("not {what}: {why}"));
    let review: Review<R> = serde_json::from_slice(body).map_err(|e| bad(&e))?;
    let request = review.request.ok_or_else(|| bad(&"it has no request"))?;
    let types = kube::core::TypeMeta {
        api_version: review.api_version,
        kind: review.kind,
    };
    Ok((types, request))
}

/// One served path: takes the request body, answers.
pub(crate) type Handler = Arc<dyn Fn(Vec<u8>) -> BoxFuture<'static, Answer> + Send + Sync>;

/// Where controller-runtime serves conversions (kubebuilder's CRD patches name it).
pub const CONVERT_PATH: &str = "/convert";

/// The webhooks a manager serves, by path.
#[derive(Clone, Default)]
pub struct Webhooks {
    handlers: BTreeMap<String, Handler>,
    conversions: conversion::Conversions,
}

impl Webhooks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `defaulter` for `K` at [`mutate_path`]`::<K>()`.
    pub fn defaulter<K, D>(self, defaulter: D) -> Self
    where
        K: Resource<DynamicType = ()>
            + serde::Serialize
            + serde::de::DeserializeOwned
            + Send
            + 'static,
        D: Defaulter<K>,
    {
        self.defaulter_at(&mutate_path::<K>(), defaulter)
    }

    /// Serves `defaulter` for `K` at `path`, the path its `+kubebuilder:webhook` marker names
    /// (`rkb create webhook --defaulting-path`, controller-runtime's `WithDefaulterCustomPath`).
    pub fn defaulter_at<K, D>(mut self, path: &str, defaulter: D) -> Self
    where
        K: Resource<DynamicType = ()>
            + serde::Serialize
            + serde::de::DeserializeOwned
            + Send
            + 'static,
        D: Defaulter<K>,
    {
        let handler = admission::defaulting::<K, D>(Arc::new(defaulter));
        self.handlers.insert(path.to_string(), handler);
        self
    }

    /// Serves `validator` for `K` at [`validate_path`]`::<K>()`.
    pub fn validator<K, V>(self, validator: V) -> Self
    where
        K: Resource<DynamicType = ()> + serde::de::DeserializeOwned + Send + Sync + 'static,
        V: Validator<K>,
    {
        self.validator_at(&validate_path::<K>(), validator)
    }

    /// Serves `validator` for `K` at `path`, the path its `+kubebuilder:webhook` marker names
    /// (`rkb create webhook --validation-path`, controller-runtime's `WithValidatorCustomPath`).
    pub fn validator_at<K, V>(mut self, path: &str, validator: V) -> Self
    where
        K: Resource<DynamicType = ()> + serde::de::DeserializeOwned + Send + Sync + 'static,
        V: Validator<K>,
    {
        let handler = admission::validating::<K, V>(Arc::new(validator));
        self.handlers.insert(path.to_string(), handler);
        self
    }

    /// Converts between hub `H` (the storage version) and spoke `S`, another version of the same kind, at
    /// [`CONVERT_PATH`]: `S: TryFrom<H>` and `H: TryFrom<S>` (a `From` impl gives both). Call once per spoke.
    ///
    /// # Panics
    /// When `H` and `S` are not versions of one kind, or another hub of the kind was registered: a programming
    /// error, found at startup.
    pub fn conversion<H, S>(mut self) -> Self
    where
        H: Resource<DynamicType = ()>
            + serde::Serialize
            + serde::de::DeserializeOwned
            + TryFrom<S>
            + 'static,
        S: Resource<DynamicType = ()>
            + serde::Serialize
            + serde::de::DeserializeOwned
            + TryFrom<H>
            + 'static,
        <H as TryFrom<S>>::Error: std::fmt::Display,
        <S as TryFrom<H>>::Error: std::fmt::Display,
    {
        assert!(
            H::group(&()) == S::group(&()) && H::kind(&()) == S::kind(&()),
            "conversion::<{}, {}>: hub and spoke must be versions of one kind",
            std::any::type_name::<H>(),
            std::any::type_name::<S>()
        );
        if let Err(message) = conversion::add_spoke::<H, S>(&mut self.conversions) {
            panic!(
                "conversion::<{}, {}>: {message}",
                std::any::type_name::<H>(),
                std::any::type_name::<S>()
            );
        }
        let handler = conversion::converting(std::sync::Arc::new(self.conversions.clone()));
        self.handlers.insert(CONVERT_PATH.to_string(), handler);
        self
    }

    /// These webhooks and `other`'s (`other` wins on a path both serve; conversions of both are served).
    pub fn merge(mut self, other: Webhooks) -> Self {
        self.handlers.extend(other.handlers);
        for (kind, conversions) in other.conversions {
            self.conversions.insert(kind, conversions);
        }
        if !self.conversions.is_empty() {
            let handler = conversion::converting(std::sync::Arc::new(self.conversions.clone()));
            self.handlers.insert(CONVERT_PATH.to_string(), handler);
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }

    /// The served paths.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.handlers.keys().map(String::as_str)
    }

    pub(crate) fn handler(&self, path: &str) -> Option<&Handler> {
        self.handlers.get(path)
    }
}

/// kubebuilder's path of the defaulting webhook of `K`: `/mutate-batch-tutorial-kubebuilder-io-v1-cronjob`.
pub fn mutate_path<K: Resource<DynamicType = ()>>() -> String {
    path_for::<K>("mutate")
}

/// kubebuilder's path of the validating webhook of `K`: `/validate-batch-tutorial-kubebuilder-io-v1-cronjob`.
pub fn validate_path<K: Resource<DynamicType = ()>>() -> String {
    path_for::<K>("validate")
}

fn path_for<K: Resource<DynamicType = ()>>(prefix: &str) -> String {
    format!(
        "/{prefix}-{}-{}-{}",
        K::group(&()).replace('.', "-"),
        K::version(&()),
        K::kind(&()).to_lowercase()
    )
}
