//! What the runtime makes of the error a reconcile (or a worker's sync) returned: an API server outage, a 409
//! Conflict race, or a failure of the object. [`crate::Controller`] and [`crate::worker`] both decide with it, so
//! they treat the same errors the same way.
//!
//! Contract:
//! - a reconciler returns any error type that converts into a [`BoxError`]: its own thiserror enum, `anyhow::Error`,
//!   `kube::Error`, the runtime's errors, a `BoxError`. Nothing has to be boxed by hand or be of a known type;
//! - the error is classified by walking its `source()` chain from the top: the first `kube::Error` found decides
//!   ([`Failure`]). So an operator's `#[error("applying the Deployment")] Apply(#[source] kube::Error)` is an outage
//!   when the kube::Error is a transport failure, and a race when it is a stale-version 409, exactly as the bare
//!   kube::Error would be;
//! - `anyhow::Error` is read through its own chain (`anyhow::Error::chain`): boxing it (anyhow's `From`) hides the
//!   error it was made from (the box's `source()` starts below it), so it is kept as it is;
//! - logs print the whole chain, outermost first, joined with ": " ([`Chain`]): with Display impls that state their
//!   own context only (the cause comes from `source()`), nothing is printed twice.
//!
//! Caveat: `rkb_runtime::client::Error::Kube` is transparent (its `source()` is the kube::Error's own source), so the
//! walk looks inside it explicitly; any other transparent wrapper of a kube::Error hides it the same way, and its
//! errors are then failures of the object.

use std::any::Any;
use std::error::Error as StdError;
use std::fmt;

use crate::error::BoxError;

/// The failure in a row (of the same object) from which a conflict is logged as an error: with the default backoff
/// (5 ms doubling) about 1.3 s of retries have not cleared it, so it is a bug (a write whose resourceVersion is never
/// refreshed), not a race.
pub(crate) const PERSISTENT_CONFLICT: u32 = 8;

/// What a failed reconcile means for its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The API server could not be reached (outage.rs): not the object's fault, nothing charged to it.
    Outage,
    /// A 409 Conflict on a stale resourceVersion or precondition: an expected race (controller.rs).
    RaceConflict,
    /// Anything else: the object's failure, retried after its backoff.
    Object,
}

/// A reconcile's error, kept so that its `source()` chain can be walked from the error the reconciler returned.
pub(crate) struct ReconcileError(Inner);

enum Inner {
    Boxed(BoxError),
    Anyhow(anyhow::Error),
}

impl ReconcileError {
    /// Takes the error a reconciler returned.
    pub(crate) fn new<E: Into<BoxError> + 'static>(error: E) -> Self {
        // Moved out through `Any` (no allocation): only `anyhow::Error` needs keeping as it is (module docs).
        let mut slot = Some(error);
        if let Some(anyhow) = (&mut slot as &mut dyn Any).downcast_mut::<Option<anyhow::Error>>() {
            return Self(Inner::Anyhow(anyhow.take().expect("just filled")));
        }
        Self(Inner::Boxed(slot.take().expect("just filled").into()))
    }

    /// The error as returned: the top of its chain.
    pub(crate) fn error(&self) -> &(dyn StdError + 'static) {
        match &self.0 {
            Inner::Boxed(e) => &**e,
            Inner::Anyhow(e) => e.as_ref(),
        }
    }

    /// What it means for the object.
    pub(crate) fn failure(&self) -> Failure {
        classify(self.error())
    }

    /// The whole chain, for logs.
    pub(crate) fn chain(&self) -> Chain<'_> {
        Chain(self.error())
    }
}

/// What `error` means for the object it was returned for: the first `kube::Error` of its `source()` chain decides.
pub(crate) fn classify(error: &(dyn StdError + 'static)) -> Failure {
    match kube_error_in(error) {
        Some(e) if kube_unavailable(e) => Failure::Outage,
        Some(e) if is_race_conflict(e) => Failure::RaceConflict,
        _ => Failure::Object,
    }
}

/// The first `kube::Error` in the `source()` chain starting at `error` (`error` itself included).
pub(crate) fn kube_error_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a kube::Error> {
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(k) = e.downcast_ref::<kube::Error>() {
            return Some(k);
        }
        // Transparent: its source() is the kube::Error's source, so look inside it here (module docs).
        if let Some(crate::client::Error::Kube(k)) = e.downcast_ref::<crate::client::Error>() {
            return Some(k);
        }
        next = e.source();
    }
    None
}

/// Whether `error` says the API server could not be reached (outage.rs's module docs): the transport failed (no
/// connection, a reset, a timeout), never a status the server answered with.
pub(crate) fn kube_unavailable(e: &kube::Error) -> bool {
    matches!(e, kube::Error::HyperError(_) | kube::Error::Service(_))
}

/// Whether `error` is a 409 Conflict from a stale resourceVersion or precondition, an expected race; not one from
/// server-side apply's field ownership (another manager owns the field), which no retry clears.
fn is_race_conflict(error: &kube::Error) -> bool {
    let kube::Error::Api(status) = error else {
        return false;
    };
    let field_owners = status
        .details
        .as_ref()
        .is_some_and(|d| d.causes.iter().any(|c| c.reason == "FieldManagerConflict"));
    status.code == 409 && status.reason == "Conflict" && !field_owners
}

/// Displays an error and its causes, outermost first, joined with ": ". A cause whose text the line already ends
/// with is not repeated (a Display impl that still prints its cause).
pub struct Chain<'a>(pub &'a (dyn StdError + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut printed = self.0.to_string();
        let mut next = self.0.source();
        while let Some(cause) = next {
            let text = cause.to_string();
            if !text.is_empty() && !printed.ends_with(&text) {
                printed.push_str(": ");
                printed.push_str(&text);
            }
            next = cause.source();
        }
        f.write_str(&printed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn transport() -> kube::Error {
        kube::Error::Service("connection refused".into())
    }

    fn api(code: u16, reason: &str) -> kube::Error {
        kube::Error::Api(Box::new(
            Status::failure("the object has been modified", reason).with_code(code),
        ))
    }

    fn stale() -> kube::Error {
        api(409, "Conflict")
    }

    /// An operator's own error type, as users write it with thiserror: context-only messages, the cause as source.
    #[derive(Debug, thiserror::Error)]
    enum OperatorError {
        #[error("applying Deployment {name}")]
        Apply {
            name: String,
            #[source]
            source: kube::Error,
        },
        #[error("writing the status")]
        Status(#[from] crate::Error),
        #[error("the spec names no image")]
        NoImage,
    }

    fn apply(source: kube::Error) -> OperatorError {
        OperatorError::Apply {
            name: "web".into(),
            source,
        }
    }

    fn failure<E: Into<BoxError> + 'static>(error: E) -> Failure {
        ReconcileError::new(error).failure()
    }

    #[test]
    fn an_operators_own_error_is_classified_by_the_kube_error_it_wraps() {
        assert_eq!(failure(apply(transport())), Failure::Outage);
        assert_eq!(failure(apply(stale())), Failure::RaceConflict);
        assert_eq!(failure(apply(api(422, "Invalid"))), Failure::Object);
        assert_eq!(failure(OperatorError::NoImage), Failure::Object);
        // Two levels down: the operator's error, the runtime's, the kube::Error.
        let nested = OperatorError::Status(crate::Error::Kube(transport()));
        assert_eq!(failure(nested), Failure::Outage);
    }

    #[test]
    fn every_way_of_returning_an_error_is_classified_alike() {
        assert_eq!(failure(transport()), Failure::Outage);
        assert_eq!(failure(stale()), Failure::RaceConflict);
        assert_eq!(failure(crate::Error::Kube(stale())), Failure::RaceConflict);
        assert_eq!(
            failure(crate::client::Error::Kube(transport())),
            Failure::Outage
        );
        let boxed: BoxError = Box::new(apply(stale()));
        assert_eq!(failure(boxed), Failure::RaceConflict);
        // anyhow, with and without context: boxing it would hide the kube::Error it was made from.
        assert_eq!(failure(anyhow::Error::new(stale())), Failure::RaceConflict);
        assert_eq!(failure(anyhow::Error::new(transport())), Failure::Outage);
        let context = anyhow::Error::new(apply(transport())).context("reconciling web");
        assert_eq!(failure(context), Failure::Outage);
        assert_eq!(failure(anyhow::anyhow!("no image")), Failure::Object);
        assert_eq!(failure("a plain message".to_string()), Failure::Object);
    }

    #[test]
    fn only_stale_version_conflicts_are_races() {
        assert_eq!(failure(api(409, "AlreadyExists")), Failure::Object);
        assert_eq!(failure(api(503, "ServiceUnavailable")), Failure::Object);
        // The body kube-apiserver answers a conflicting server-side apply with.
        let apply: Status = serde_json::from_value(serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409,
            "message": "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas",
            "details": {"causes": [{
                "reason": "FieldManagerConflict",
                "message": "conflict with \"kubectl\"",
                "field": ".spec.replicas"
            }]}
        }))
        .unwrap();
        assert_eq!(failure(kube::Error::Api(Box::new(apply))), Failure::Object);
    }

    #[test]
    fn the_chain_is_logged_outermost_first_without_repeats() {
        // kube's Display of Service(e) is "ServiceError: {e}" and its source is e: printed once.
        let error = ReconcileError::new(apply(transport()));
        assert_eq!(
            error.chain().to_string(),
            "applying Deployment web: ServiceError: connection refused"
        );
        let anyhow = ReconcileError::new(anyhow::Error::new(stale()).context("reconciling web"));
        assert!(
            anyhow
                .chain()
                .to_string()
                .starts_with("reconciling web: ApiError: the object has been modified"),
            "{}",
            anyhow.chain()
        );
    }
}
